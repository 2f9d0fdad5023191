"""Prechecks that let a pass keep a function without its rewrite decide exactly: on every function
of the examples below, at the pass's place in the pipeline, the pass returns the function itself
where its full rewrite returns it unchanged, and a structurally equal result where the rewrite
changes it. The full rewrite is the pass with the precheck replaced by the one it had before (every
function of the kinds the pass handles is rewritten)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import pytest
from front_programs import NORMALIZE_STMT_STRUCTURE, parse
from pass_helpers import upto, wrap_bodies

import pypto.language as pl
from pypto import ir, passes
from pypto.ir.enums import is_incore_type
from pypto.ir.function import Function, Program
from pypto.ir.structural import structural_equal
from pypto.transform.util import straight_line

from passes.flatten_call_expr import FlattenCallExpr
from passes.infer_tile_memory_space import InferTileMemorySpace
from passes.normalize_stmt_structure import NormalizeStmtStructure

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
# Examples where these passes have work on some functions and none on others (loops, ifs and
# whiles, spmd scopes, matmul kernels with carried accumulators, mixed kernels).
_NAMES = ("deps_while_if", "deps_task_array", "tensor_matmul_big_mn", "matmul_big_k", "tensor_matmul_acc",
          "scaled_sum", "tensor_spmd", "tensor_dyn_cols", "cross_core_spmd", "tile_add")


def _full_nss(self: Any, func: Function) -> bool:
    return True


def _full_fce(self: Any, func: Function) -> bool:
    stmts = straight_line(func)
    return stmts is None or any(map(self._changes, stmts))


def _full_itms(self: Any, func: Function) -> bool:
    return is_incore_type(func.func_type)


_FULL: dict[type, Callable[[Any, Function], bool]] = {
    NormalizeStmtStructure: _full_nss,
    FlattenCallExpr: _full_fce,
    InferTileMemorySpace: _full_itms,
}


def _full(cls: type) -> type:
    """``cls`` rewriting every function its precheck would have sent to the rewrite before."""
    return type(f"Full{cls.__name__}", (cls,), {"applies": _FULL[cls]})


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[Program]]:
    """The programs each pass of ``_FULL`` is given, compiling the examples."""
    names = {cls.name for cls in _FULL}
    found: dict[str, list[Program]] = {n: [] for n in names}

    class Grab(passes.PassInstrument):
        name = "Grab"

        def before_pass(self, p: Any, prog: Program) -> None:
            if p.name in names:
                found[p.name].append(prog)

    for name in _NAMES:
        with passes.PassContext([Grab()]):
            ir.compile(pl.loads_program(str(EXAMPLES / f"{name}.py")), output_dir=tmp_path_factory.mktemp(name),
                       dump_passes=False, verify="none")
    return found


def _compare(cls: type, programs: list[Program]) -> tuple[int, int]:
    """Assert the pass and its full rewrite agree on every function; (kept by the precheck, changed)."""
    fast, full = cls(), _full(cls)()
    kept = changed = 0
    for program in programs:
        for func in program.functions.values():
            a, b = fast.run_function(func, program), full.run_function(func, program)
            if b is func:
                assert a is func, f"{cls.name} rewrote {func.name}, which its full rewrite keeps"
                kept += not fast.applies(func) and full.applies(func)
            else:
                assert a is not func, f"{cls.name} kept {func.name}, which its full rewrite changes"
                assert structural_equal(a, b), f"{cls.name} rewrote {func.name} otherwise"
                changed += 1
    return kept, changed


@pytest.mark.parametrize("cls", list(_FULL), ids=lambda c: c.name)
def test_precheck_agrees_with_the_full_rewrite(cls: type, inputs: dict[str, list[Program]]) -> None:
    kept, changed = _compare(cls, inputs[cls.name])
    assert kept, f"the examples give {cls.name} no function its precheck keeps"
    if cls is not NormalizeStmtStructure:  # the passes build canonical blocks: see the tests below
        assert changed, f"the examples give {cls.name} no function to change"


@pytest.mark.parametrize("name", sorted(NORMALIZE_STMT_STRUCTURE))
def test_normalize_stmt_structure_on_redundant_blocks(name: str) -> None:
    program = upto("NormalizeStmtStructure", parse(NORMALIZE_STMT_STRUCTURE[name]))
    kept, changed = _compare(NormalizeStmtStructure, [wrap_bodies(program)])
    assert changed
    kept, changed = _compare(NormalizeStmtStructure, [passes.normalize_stmt_structure()(program)])
    assert kept and not changed
