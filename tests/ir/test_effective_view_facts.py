"""``effective_valid_shape`` and ``effective_view_layout`` (pypto.ir.types), which the generators and
analyses read instead of building a tile's effective view: the same facts as
``TileType.get_effective_tile_view()`` for implicit, partial and full stored views."""

from __future__ import annotations

from pathlib import Path

import pytest

import pypto.language as pl
from pypto import ir
from pypto.analysis.index import walk
from pypto.ir.datatype import DataType
from pypto.ir.enums import CompactMode, MemorySpace, PadValue, TileLayout
from pypto.ir.types import TileType, TileView, effective_valid_shape, effective_view_layout

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def c(v: int) -> ir.ConstInt:
    return ir.ConstInt(v, DataType.INDEX)


def facts(t: TileType) -> tuple[object, ...]:
    view = t.get_effective_tile_view()
    return list(view.valid_shape), (view.blayout, view.slayout, view.fractal, view.pad, view.compact)


TILES = [
    TileType([c(64), c(64)], DataType.FP32, memory_space=MemorySpace.Vec),
    TileType([c(16), c(1)], DataType.FP16, memory_space=MemorySpace.Vec),  # an implicit column vector
    TileType([c(32), c(32)], DataType.FP16, memory_space=MemorySpace.Right),
    TileType([c(16), c(16)], DataType.FP32, memory_space=MemorySpace.Acc),
    TileType([c(64), c(64)], DataType.FP32, tile_view=TileView(valid_shape=[c(8), c(64)]), memory_space=MemorySpace.Vec),
    TileType([c(64), c(64)], DataType.FP32, tile_view=TileView(pad=PadValue.max), memory_space=MemorySpace.Vec),
    TileType([c(16), c(64)], DataType.FP16, memory_space=MemorySpace.Vec,
             tile_view=TileView(blayout=TileLayout.col_major, compact=CompactMode.normal, valid_shape=[c(16), c(32)])),
]


@pytest.mark.parametrize("tile", TILES, ids=range(len(TILES)))
def test_the_facts_are_the_effective_views(tile: TileType) -> None:
    fresh = TileType(*[getattr(tile, f) for f in ("shape", "dtype", "memref", "tile_view")], tile.memory_space)
    assert (list(effective_valid_shape(fresh)), effective_view_layout(fresh)) == facts(tile)
    assert not hasattr(fresh, "_effective_view")  # nothing was built


@pytest.mark.parametrize("name", ["tensor_dyn_rows", "mixed_matmul_softmax", "tensor_matmul_trans"])
def test_every_tile_of_a_compiled_example(name: str, tmp_path: Path) -> None:
    final = ir.compile(pl.loads_program(str(EXAMPLES / f"{name}.py")), output_dir=tmp_path, dump_passes=False).final_program
    tiles = [n.type for f in final.functions.values() for n in walk(f.body) if isinstance(getattr(n, "type", None), TileType)]
    assert tiles
    for t in tiles:
        assert (list(effective_valid_shape(t)), effective_view_layout(t)) == facts(t)
