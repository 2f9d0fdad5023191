"""Issue 33 item 6: how valid regions flow through writes (assemble, store), slices and reshapes."""

from __future__ import annotations

import pytest

from pypto import ir
from pypto.ir.ops.regions import RegionError, written_union

T, L = ir.op.tensor, ir.op.tile
N = ir.Var("n", ir.ScalarType(ir.DataType.INDEX))


def tensor(name: str, shape: list, valid: list | None = None, pad: ir.PadValue = ir.PadValue.null) -> ir.Var:
    if valid is None and pad == ir.PadValue.null:
        return ir.Var(name, ir.TensorType(shape, ir.FP32))
    view = ir.TensorView(stride=[], layout=ir.TensorLayout.ND, valid_shape=valid or [], pad=pad)
    return ir.Var(name, ir.TensorType(shape, ir.FP32, None, view))


def tile(name: str, shape: list, valid: list | None = None, pad: ir.PadValue = ir.PadValue.null) -> ir.Var:
    view = ir.TileView(valid_shape=valid, pad=pad) if valid is not None or pad != ir.PadValue.null else None
    return ir.Var(name, ir.TileType(shape, ir.FP32, None, view, ir.Mem.Vec))


def printed(e: ir.Expr) -> str:
    return ir.python_print_type(e.type)


# ---------------------------------------------------------------- writes: the union of the written regions


@pytest.mark.parametrize(("valid", "offsets", "sizes", "union"), [
    ([8, 16], [8, 0], [8, 16], (16, 16)),  # rows appended
    ([16, 8], [0, 8], [16, 8], (16, 16)),  # columns appended
    ([8, 16], [4, 0], [8, 16], (12, 16)),  # overlapping
    ([8, 16], [0, 0], [4, 8], (8, 16)),  # inside
    ([0, 16], [0, 0], [4, 16], (4, 16)),  # the first write
    ([8, 8], [0, 0], [16, 16], (16, 16)),  # covering
    ([8, 16], [8, 0], [0, 16], (8, 16)),  # nothing written
])
def test_written_union(valid: list, offsets: list, sizes: list, union: tuple) -> None:
    assert written_union(valid, offsets, sizes) == union


@pytest.mark.parametrize(("valid", "offsets", "sizes", "message"), [
    ([4, 16], [8, 0], [8, 16], "leaves a gap after the target's valid region [4, 16]: axis 0 is valid up to 4"),
    ([8, 16], [8, 0], [8, 8], "would make the valid region L-shaped"),
    ([8, 16], [0, 0], [16, 8], "would make the valid region L-shaped"),
    ([0, 16], [4, 0], [4, 16], "is empty, so a write at offsets [4, 0] leaves a gap before it"),
])
def test_written_union_refuses_a_region_that_is_not_a_box(valid: list, offsets: list, sizes: list,
                                                           message: str) -> None:
    with pytest.raises(RegionError, match=message.replace("[", r"\[").replace("]", r"\]")):
        written_union(valid, offsets, sizes)


def test_assemble_appends_rows_to_the_valid_region() -> None:
    out = T.assemble(tensor("t", [24, 16], [8, 16]), tensor("s", [8, 16]), [8, 0])
    assert printed(out) == ("pl.Tensor[[24, 16], pl.FP32, pl.TensorView(valid_shape=[16, 16], stride=[], "
                            "layout=pl.TensorLayout.ND)]")
    assert printed(T.assemble(tensor("t", [16, 16], [8, 16]), tensor("s", [8, 16]), [8, 0])) == \
        "pl.Tensor[[16, 16], pl.FP32]"


@pytest.mark.parametrize("build", [
    lambda: T.assemble(tensor("t", [16, 16], [8, 16]), tensor("s", [8, 8]), [8, 0]),
    lambda: L.assemble(tile("t", [16, 16], [8, 16]), tile("s", [8, 8]), [8, 0]),
    lambda: L.store(tile("s", [8, 8]), [8, 0], tensor("t", [16, 16], [8, 16])),
], ids=["tensor.assemble", "tile.assemble", "tile.store"])
def test_an_l_shaped_union_is_an_error(build) -> None:
    with pytest.raises(ir.IRValueError, match=r"writing \[8, 8\] at offsets \[8, 0\] into a target valid in "
                       r"\[8, 16\] would make the valid region L-shaped") as err:
        build()
    assert "in order from the origin" in err.value.hint


@pytest.mark.parametrize("build", [
    lambda: T.assemble(tensor("t", [16, 16], [4, 16]), tensor("s", [8, 16]), [8, 0]),
    lambda: L.assemble(tile("t", [16, 16], [4, 16]), tile("s", [8, 16]), [8, 0]),
    lambda: L.store(tile("s", [8, 16]), [8, 0], tensor("t", [16, 16], [4, 16])),
], ids=["tensor.assemble", "tile.assemble", "tile.store"])
def test_a_gap_is_an_error(build) -> None:
    with pytest.raises(ir.IRValueError, match="leaves a gap after the target's valid region"):
        build()


@pytest.mark.parametrize("build", [
    lambda: T.assemble(tensor("t", [16, 16]), tensor("s", [8, 16]), [-1, 0]),
    lambda: L.assemble(tile("t", [16, 16]), tile("s", [8, 16]), [0, -8]),
    lambda: L.store(tile("s", [8, 16]), [-2, 0], tensor("t", [16, 16])),
], ids=["tensor.assemble", "tile.assemble", "tile.store"])
def test_a_negative_offset_is_an_error(build) -> None:
    with pytest.raises(ir.IRValueError, match="is negative"):
        build()


def test_only_the_sources_valid_part_must_fit() -> None:
    source = tensor("s", [16, 16], [8, 16])
    assert printed(T.assemble(tensor("t", [16, 16]), source, [8, 0])) == "pl.Tensor[[16, 16], pl.FP32]"
    assert printed(L.assemble(tile("t", [16, 16]), tile("s", [16, 16], [8, 16]), [8, 0])) == \
        "pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec]"
    assert printed(L.store(tile("s", [16, 16], [8, 16]), [8, 0], tensor("t", [16, 16]))) == \
        "pl.Tensor[[16, 16], pl.FP32]"
    with pytest.raises(ir.IRValueError, match=r"with shape \[9, 16\] writes past the target shape \[16, 16\]"):
        T.assemble(tensor("t", [16, 16]), tensor("s", [16, 16], [9, 16]), [8, 0])
    with pytest.raises(ir.IRValueError, match=r"with shape \[9, 16\] writes past the target shape \[16, 16\]"):
        L.assemble(tile("t", [16, 16]), tile("s", [16, 16], [9, 16]), [8, 0])
