"""Issue 33 item 8: tile layouts the type rules deduce (transpose_view, move, extract) and the checks of
row_min and matmul_bias."""

from __future__ import annotations

import pytest

from pypto import ir

L, M = ir.op.tile, ir.Mem
RM, CM, NB = ir.TileLayout.row_major, ir.TileLayout.col_major, ir.TileLayout.none_box


def tile(shape: list, dtype: ir.DataType = ir.FP16, space: ir.MemorySpace = M.Mat, **view) -> ir.Var:
    return ir.Var("t", ir.TileType(shape, dtype, None, ir.TileView(**view) if view else None, space))


def layout(e: ir.Expr) -> tuple:
    v = e.type.get_effective_tile_view()
    return v.blayout, v.slayout, v.fractal


@pytest.mark.parametrize("space", [M.Mat, M.Left, M.Right, M.Vec, M.Acc])
def test_transpose_view_is_its_own_inverse(space: ir.MemorySpace) -> None:
    t = tile([16, 32], ir.FP32 if space is M.Acc else ir.FP16, space, valid_shape=[8, 32], **_implicit(space))
    once = L.transpose_view(t)
    twice = L.transpose_view(ir.Var("u", once.type))
    assert twice.type == t.type
    assert ir.python_print_type(once.type).startswith("pl.Tile[[32, 16], ")
    assert "valid_shape=[32, 8]" in ir.python_print_type(once.type)


def _implicit(space: ir.MemorySpace) -> dict:
    """The implicit layout of a [16, 32] tile in ``space``, to give a view with a valid region."""
    view = ir.TileType([16, 32], ir.FP16, None, None, space).get_effective_tile_view()
    return {"blayout": view.blayout, "slayout": view.slayout, "fractal": view.fractal}


def test_transpose_view_swaps_nz_and_zn_and_flips_a_plain_layout() -> None:
    assert layout(L.transpose_view(tile([16, 32], space=M.Mat)))[:2] == (RM, CM)  # NZ -> ZN
    assert layout(L.transpose_view(tile([16, 32], space=M.Vec)))[:2] == (CM, NB)  # row-major -> col-major


@pytest.mark.parametrize(("space", "want"), [
    (M.Left, (CM, RM, 512)),
    (M.Right, (RM, CM, 512)),  # Right is ZN: its blayout is row-major
    (M.Vec, (RM, NB, 512)),
    (M.Mat, (CM, RM, 512)),
])
def test_move_and_extract_take_the_destinations_layout(space: ir.MemorySpace, want: tuple) -> None:
    assert layout(L.move(tile([16, 32]), target_memory=space)) == want
    assert layout(L.extract(tile([32, 32]), 0, 16, [16, 16], target_memory=space)) == want


def test_an_explicit_move_layout_wins() -> None:
    moved = L.move(tile([16, 32], space=M.Vec), target_memory=M.Vec, blayout=CM)
    assert layout(moved) == (CM, NB, 512)


def test_move_keeps_the_valid_region_and_pad() -> None:
    moved = L.move(tile([16, 32], space=M.Vec, valid_shape=[8, 32], pad=ir.PadValue.zero), target_memory=M.Mat)
    assert ir.python_print_type(moved.type) == (
        "pl.Tile[[16, 32], pl.FP16, pl.Mem.Mat, pl.TileView(valid_shape=[8, 32], pad=pl.PadValue.zero)]")


@pytest.mark.parametrize("dtype", [ir.INT8, ir.BF16, ir.UINT32])
def test_row_min_refuses_other_dtypes(dtype: ir.DataType) -> None:
    with pytest.raises(ir.IRValueError, match=f"tile dtype must be one of INT16, INT32, FP16, FP32, got {dtype.name}"):
        L.row_min(tile([16, 32], dtype, M.Vec), tile([16, 32], dtype, M.Vec))


def test_row_min_keeps_rows() -> None:
    out = L.row_min(tile([16, 32], ir.FP32, M.Vec), tile([16, 32], ir.FP32, M.Vec))
    assert ir.python_print_type(out.type) == "pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec]"


LHS, RHS = tile([16, 32], space=M.Left), tile([32, 64], space=M.Right)


@pytest.mark.parametrize(("bias", "message"), [
    (tile([1, 32], ir.FP32, M.Bias), r"bias \[1, 32\] must have the result's 64 columns \(N of rhs \[32, 64\]\)"),
    (tile([2, 64], ir.FP32, M.Bias), r"bias must be \[1, N\], got \[2, 64\]"),
    (tile([64], ir.FP32, M.Bias), r"bias must be \[1, N\], got \[64\]"),
    (tile([1, 64], ir.FP16, M.Bias), "bias dtype must be FP32, got FP16"),
    (tile([1, 64], ir.FP32, M.Bias, blayout=CM), "bias must be a row-major tile"),
])
def test_matmul_bias_checks_the_bias(bias: ir.Var, message: str) -> None:
    with pytest.raises(ir.IRValueError, match=message):
        L.matmul_bias(LHS, RHS, bias)


def test_matmul_bias_result() -> None:
    out = L.matmul_bias(LHS, RHS, tile([1, 64], ir.FP32, M.Bias))
    assert ir.python_print_type(out.type) == "pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc]"
