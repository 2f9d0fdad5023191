"""A loop of compiles (an autotuner, a test suite) keeps no earlier program alive: the module-level
caches of the checkers, analyses and code generators hold their IR weakly."""

from __future__ import annotations

import gc
import weakref
from pathlib import Path

import pypto.language as pl
from pypto import ir, passes
from pypto.analysis import walk
from pypto.ir.function import Function
from pypto.ir.types import TileType

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def refs_of(program: ir.Program) -> list[weakref.ref]:
    return [weakref.ref(program), *(weakref.ref(f) for f in program.functions.values())]


def tile_dims(program: ir.Program) -> list[weakref.ref]:
    """Weak references to the dims of every tile-typed variable of ``program``."""
    return [
        weakref.ref(dim)
        for func in program.functions.values()
        for node in walk(func)
        if isinstance(node, ir.Var) and isinstance(node.type, TileType)
        for dim in node.type.shape
    ]


def test_earlier_compiled_programs_are_freed(tmp_path: Path) -> None:
    text = (EXAMPLES / "matmul.py").read_text()
    earlier: list[weakref.ref] = []
    for i in range(4):
        compiled = ir.compile(pl.parse(text), tmp_path / str(i), dump_passes=False)
        # The tile dims too: a table of tile views keyed by dims once held them, and the
        # survivors pinned the memory of whole parses.
        dims = tile_dims(compiled.final_program) + tile_dims(compiled.program)
        assert dims
        earlier += refs_of(compiled.final_program) + refs_of(compiled.program) + dims
        del compiled, dims
    gc.collect()
    alive = [r() for r in earlier if r() is not None]
    assert alive == []


def test_programs_checked_by_the_front_passes_are_freed() -> None:
    text = (EXAMPLES / "tile_add.py").read_text()
    earlier: list[weakref.ref] = []
    for _ in range(3):
        source = pl.parse(text)
        result = passes.PassManager(passes.front_passes(), verify=True).run(source)
        earlier += refs_of(source) + refs_of(result)
        del source, result
    gc.collect()
    assert not [f for f in gc.get_objects() if isinstance(f, Function) and any(r() is f for r in earlier)]
    assert all(r() is None for r in earlier)

