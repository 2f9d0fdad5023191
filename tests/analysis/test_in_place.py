"""The in-place table covers every tile op with a tile operand and a tile result, and names only
operands the op reads."""

from __future__ import annotations

import pytest

from pypto import DataType, ir
from pypto.analysis.in_place import IN_PLACE, in_place_operands, same_place
from pypto.ir import op_registry
from pypto.ir.op_registry import TILE, Effect


def _tile_ops_with_tile_results() -> set[str]:
    return {
        e.name
        for e in op_registry.all_entries()
        if e.name.startswith("tile.")
        and any(TILE in p.accepts for p in e.params)
        and e.memory is not None
        and e.memory.output is not None
    }


def test_table_covers_exactly_the_tile_ops_with_tile_operands_and_results() -> None:
    assert sorted(set(IN_PLACE) ^ _tile_ops_with_tile_results()) == []


@pytest.mark.parametrize("name", sorted(IN_PLACE))
def test_listed_operands_are_read_tile_parameters(name: str) -> None:
    entry = op_registry.get_entry(name)
    read_tiles = {p.name for p in entry.params if TILE in p.accepts and p.effect is Effect.READ}
    assert IN_PLACE[name] <= read_tiles


@pytest.mark.parametrize(
    "name",
    # §4.23 step 4, and the ops issue 26 found writing over an input they were still reading.
    ["tile.recip", "tile.rsqrt", "tile.row_sum", "tile.row_max", "tile.row_min", "tile.mrgsort_format1",
     "tile.move", "tile.fmod", "tile.fmods", "tile.transpose", "tile.concat", "tile.cast", "tile.col_argmax",
     "tile.col_argmin", "tile.row_argmax", "tile.col_sum", "tile.col_max", "tile.cmp", "tile.ands", "tile.xor",
     "tile.prelu"],
)
def test_ops_that_are_not_position_wise_share_no_operand(name: str) -> None:
    assert in_place_operands(name) == frozenset()


def test_masks_broadcast_vectors_and_scratch_are_never_in_place() -> None:
    assert in_place_operands("tile.sel") == {"lhs", "rhs"}
    assert in_place_operands("tile.sels") == {"src"}
    assert in_place_operands("tile.row_expand_mul") == {"tile"}
    assert in_place_operands("tile.col_expand_sub") == {"tile"}
    assert in_place_operands("tile.row_expand_add") == {"tile"}


def test_unknown_op_shares_nothing() -> None:
    assert in_place_operands("tile.no_such_op") == frozenset()


def _tile(shape: list[int], dtype: DataType, valid: list[int] | None = None) -> ir.TileType:
    index = [ir.ConstInt(v, DataType.INDEX, ir.Span.unknown()) for v in valid or []]
    view = ir.TileView(valid_shape=index) if valid else None
    return ir.TileType(shape, dtype, None, view, ir.MemorySpace.Vec)


def test_same_place_needs_shape_view_and_element_width() -> None:
    full = _tile([16, 64], DataType.FP32)
    assert same_place(full, _tile([16, 64], DataType.FP32))
    assert same_place(full, _tile([16, 64], DataType.INT32))  # same width: element i on element i
    assert same_place(full, _tile([16, 64], DataType.FP32, [16, 64]))  # the implicit valid region spelled out
    assert not same_place(full, _tile([16, 64], DataType.FP16))
    assert not same_place(full, _tile([16, 32], DataType.FP32))
    assert not same_place(full, _tile([16, 64], DataType.FP32, [8, 64]))


def test_same_place_with_one_dims_list_still_compares_views_spaces_and_widths() -> None:
    full = _tile([16, 64], DataType.FP32)
    dims = full.shape  # a type derived from another shares its dims list
    assert same_place(full, ir.TileType(dims, DataType.INT32, None, None, ir.MemorySpace.Vec))
    assert not same_place(full, ir.TileType(dims, DataType.FP16, None, None, ir.MemorySpace.Vec))
    valid = ir.TileView(valid_shape=[ir.ConstInt(8, DataType.INDEX, ir.Span.unknown()), dims[1]])
    assert not same_place(full, ir.TileType(dims, DataType.FP32, None, valid, ir.MemorySpace.Vec))
    # Other spaces: the same implicit layout (Mat and Left) or not (Vec and Mat, Mat and Right).
    def in_space(space: ir.MemorySpace) -> ir.TileType:
        return ir.TileType(dims, DataType.FP32, None, None, space)

    assert same_place(in_space(ir.MemorySpace.Mat), in_space(ir.MemorySpace.Left))
    assert not same_place(full, in_space(ir.MemorySpace.Mat))
    assert not same_place(in_space(ir.MemorySpace.Mat), in_space(ir.MemorySpace.Right))
