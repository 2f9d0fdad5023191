"""Issue 33 item 7: argument forms and type rules of the established gather/scatter, gemv, view and assemble ops."""

from __future__ import annotations

import numpy as np
import pytest
from pypto.interp import run
from pypto.interp.errors import InterpreterError

import pypto.language as pl
from pypto import ir
from pypto.ir.op import tensor as T
from pypto.ir.op import tile as L

D, Mem = ir.DataType, ir.MemorySpace


def tensor(name: str, shape: list[int], dtype: ir.DataType = D.FP32) -> ir.Var:
    return ir.Var(name, ir.TensorType(shape, dtype))


def tile(name: str, shape: list[int], dtype: ir.DataType = D.FP32, space: ir.MemorySpace = Mem.Vec) -> ir.Var:
    return ir.Var(name, ir.TileType(shape, dtype, None, None, space))


# ---------------------------------------------------------------- scatter_update argument orders


@pytest.mark.parametrize("ns, make", [(T, tensor), (L, tile)])
def test_scatter_update_takes_dim_first_or_as_keyword(ns, make) -> None:
    x, ix, rows = make("x", [16, 64]), make("ix", [4, 1], D.INT32), make("rows", [4, 64])
    leaf = "tensor" if ns is T else "tile"
    want = f"pl.{leaf}.scatter_update(x, ix, rows, dim=-2)"
    assert str(ns.scatter_update(x, -2, ix, rows)) == want
    assert str(ns.scatter_update(x, ix, rows, dim=-2)) == want
    assert str(ns.scatter_update(x, ix, rows)) == want
    with pytest.raises(TypeError, match="dim given both positionally and as dim="):
        ns.scatter_update(x, -2, ix, rows, dim=-2)


SCATTER_UPDATE = """
@pl.program
class P:
    @pl.function(type=pl.FunctionType.Opaque)
    def main(self, x: pl.Tensor[[16, 64], pl.FP32], i: pl.Tensor[[4, 1], pl.INT32],
             s: pl.Tensor[[4, 64], pl.FP32]) -> pl.Tensor[[16, 64], pl.FP32]:
        y = pl.scatter_update(x, -2, i, s)
        return y
"""


def test_scatter_update_dim_first_parses_and_writes_the_indexed_rows() -> None:
    prog = pl.parse(SCATTER_UPDATE)
    assert "pl.tensor.scatter_update(x, i, s, dim=-2)" in str(prog)
    x = np.zeros((16, 64), np.float32)
    i = np.array([[3], [1], [7], [0]], np.int32)
    s = np.arange(4 * 64, dtype=np.float32).reshape(4, 64) + 1
    (got,) = run(prog, x, i, s).returns
    want = x.copy()
    want[i[:, 0]] = s
    np.testing.assert_array_equal(got, want)


# ---------------------------------------------------------------- gather / scatter with mask_pattern


def test_tensor_gather_and_scatter_with_a_mask_pattern_pick_the_mask_ops() -> None:
    x, d = tensor("x", [16, 64]), tensor("d", [16, 64])
    g = pl.tensor.gather(x, mask_pattern=ir.MaskPattern.P0100)
    assert str(g.unwrap()) == "pl.tensor.gather_mask(x, mask_pattern=5)"
    assert str(g.unwrap().type) == "pl.Tensor[[16, 16], pl.FP32]"
    s = pl.tensor.scatter(g, mask_pattern=ir.MaskPattern.P0100, dst=d)
    assert str(s.unwrap().type) == "pl.Tensor[[16, 64], pl.FP32]"
    as_int = T.gather_mask(x, mask_pattern=5, output_dtype=D.INT32)
    assert str(as_int.type) == "pl.Tensor[[16, 16], pl.INT32]"


def test_mask_ops_check_widths_and_shapes() -> None:
    x = tensor("x", [16, 64])
    with pytest.raises(ValueError, match="output_dtype FP16 must have the 32-bit width of the source dtype FP32"):
        T.gather_mask(x, mask_pattern=1, output_dtype=D.FP16)
    with pytest.raises(ValueError, match=r"'input' \[16, 16\] must be \[16, 32\]: the rows of 'dst' and its columns "
                                         "kept by mask pattern P1010"):
        T.scatter_mask(tensor("s", [16, 16]), x, mask_pattern=2)
    with pytest.raises(ValueError, match="a mask scatter moves 16- or 32-bit elements, got INT8"):
        T.scatter_mask(tensor("s", [16, 32], D.INT8), tensor("d", [16, 64], D.INT8), mask_pattern=1)
    partial = ir.Var("p", ir.TileType([16, 64], D.FP32, None, ir.TileView(valid_shape=[16, 40]), Mem.Vec))
    with pytest.raises(ValueError, match=r"'src' must be valid over all its \[64\] columns for a mask pattern"):
        L.gather_mask(partial, 1)
    with pytest.raises(ValueError, match="a mask scatter writes the whole 'dst'"):
        L.scatter_mask(partial, tile("s", [16, 32]), 1)


MASKS = """
@pl.program
class P:
    @pl.function(type=pl.FunctionType.Opaque)
    def main(self, x: pl.Tensor[[4, 16], pl.INT32], d: pl.InOut[pl.Tensor[[4, 16], pl.INT32]]
             ) -> tuple[pl.Tensor[[4, 4], pl.INT32], pl.Tensor[[4, 16], pl.INT32]]:
        g = pl.tensor.gather(x, mask_pattern=pl.MaskPattern.P1000)
        s = pl.tensor.scatter(g, mask_pattern=pl.MaskPattern.P0010, dst=d)
        return g, s
"""


def test_mask_gather_keeps_the_pattern_columns_and_mask_scatter_zeroes_the_others() -> None:
    x = np.arange(64, dtype=np.int32).reshape(4, 16)
    g, s = run(pl.parse(MASKS), x, np.full((4, 16), 7, np.int32)).returns
    np.testing.assert_array_equal(g, x[:, 3::4])
    want = np.zeros((4, 16), np.int32)
    want[:, 1::4] = x[:, 3::4]
    np.testing.assert_array_equal(s, want)


# ---------------------------------------------------------------- tile.mgather


def test_mgather_takes_coalesce_and_gather_oob_as_pto_isa_enum_numbers() -> None:
    mem, idx = tensor("m", [64, 32]), tile("i", [1, 16], D.INT32)
    got = L.mgather(mem, idx, 1, gather_oob=2)
    assert str(got) == "pl.tile.mgather(m, i, coalesce='elem', gather_oob='wrap', target_memory=pl.Mem.Vec)"
    assert str(L.mgather(mem, idx, 0, gather_oob=3)).endswith("coalesce='row', gather_oob='zero', "
                                                               "target_memory=pl.Mem.Vec)")
    assert str(L.mgather(mem, idx, "row", gather_oob=1).type) == "pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec]"
    with pytest.raises(ValueError, match=r"must be one of 'undefined', 'clamp', 'wrap', 'zero' or its number 0-3"):
        L.mgather(mem, idx, gather_oob=4)


def test_mgather_takes_a_gm_scratch_for_an_nz_mat_gather() -> None:
    mem, idx = tensor("m", [1024, 64], D.FP16), tensor("i", [32], D.INT32)
    got = L.mgather(mem, idx, target_memory=Mem.Mat, scratch=tensor("ws", [32, 64], D.FP16))
    assert str(got) == ("pl.tile.mgather(m, i, coalesce='row', gather_oob='undefined', target_memory=pl.Mem.Mat, "
                        "scratch=ws)")
    assert str(got.type) == "pl.Tile[[32, 64], pl.FP16, pl.Mem.Mat]"


def test_mgather_checks_indices_table_and_destination() -> None:
    mem = tensor("m", [64, 32])
    with pytest.raises(ValueError, match="'idx' dtype must be one of INT32, UINT32, got INT16"):
        L.mgather(mem, tile("i", [1, 16], D.INT16))
    with pytest.raises(ValueError, match=r"a row gather takes one index per row: 'idx' must be 1-D, \[1, R\] or "
                                         r"\[R, 1\], got \[4, 4\]"):
        L.mgather(mem, tile("i", [4, 4], D.INT32))
    with pytest.raises(ValueError, match=r"an element gather takes a 2-D 'idx'"):
        L.mgather(mem, tensor("i", [16], D.INT32), "elem")
    with pytest.raises(ValueError, match="target_memory must be Vec or Mat, got Left"):
        L.mgather(mem, tile("i", [1, 16], D.INT32), target_memory=Mem.Left)
    with pytest.raises(ValueError, match=r"an NZ Mat destination needs a multiple of 16 rows .*got \[8, 32\]"):
        L.mgather(mem, tensor("i", [8], D.INT32), target_memory=Mem.Mat)
    with pytest.raises(ValueError, match="'mem' dtype must be one of"):
        L.mgather(tensor("m64", [64, 32], D.INT64), tile("i", [1, 16], D.INT32))


MGATHER = """
@pl.program
class P:
    @pl.function(type=pl.FunctionType.Opaque)
    def main(self, m: pl.Tensor[[8, 16], pl.FP32], i: pl.Tensor[[1, 4], pl.INT32], e: pl.Tensor[[2, 8], pl.INT32]
             ) -> tuple[pl.Tensor[[4, 16], pl.FP32], pl.Tensor[[2, 8], pl.FP32]]:
        it = pl.load(i, [0, 0], [1, 4])
        et = pl.load(e, [0, 0], [2, 8])
        r = pl.mgather(m, it, 0, gather_oob=MODE)
        q = pl.mgather(m, et, 1, gather_oob=MODE)
        o1 = pl.create_tensor([4, 16], dtype=pl.FP32)
        o2 = pl.create_tensor([2, 8], dtype=pl.FP32)
        o1 = pl.store(r, [0, 0], o1)
        o2 = pl.store(q, [0, 0], o2)
        return o1, o2
"""
ROWS = np.array([[1, 9, -1, 3]], np.int32)
ELEMS = np.arange(-3, 13, dtype=np.int32).reshape(2, 8) * 9


@pytest.mark.parametrize("mode, rows, first", [
    ("'wrap'", [1, 1, 7, 3], [101, 110, 119]),  # indices as size_t: -1 wraps to the last row
    ("1", [1, 7, 7, 3], [127, 127, 127]),  # clamp: a negative index is huge, so the last
    ("'zero'", [1, None, None, 3], [0, 0, 0]),
])
def test_mgather_out_of_range_modes_follow_the_cpu_model(mode: str, rows: list, first: list) -> None:
    m = np.arange(128, dtype=np.float32).reshape(8, 16)
    r, q = run(pl.parse(MGATHER.replace("MODE", mode)), m, ROWS, ELEMS).returns
    want = np.stack([m[k] if k is not None else np.zeros(16, np.float32) for k in rows])
    np.testing.assert_array_equal(r, want)
    np.testing.assert_array_equal(q.reshape(-1)[:3], first)
    np.testing.assert_array_equal(q.reshape(-1)[3:], m.reshape(-1)[ELEMS.reshape(-1)[3:]])


def test_mgather_undefined_mode_refuses_an_index_out_of_range() -> None:
    m = np.arange(128, dtype=np.float32).reshape(8, 16)
    with pytest.raises(InterpreterError, match=r"idx\[1\] = 9 is outside the 8 rows of 'mem'"):
        run(pl.parse(MGATHER.replace("MODE", "'undefined'")), m, ROWS, ELEMS)


# ---------------------------------------------------------------- reinterpret_view


def _viewed(shape: list[int], view: ir.TensorView) -> ir.Var:
    return ir.Var("x", ir.TensorType(shape, D.FP32, None, view))


def test_reinterpret_view_scales_the_contiguous_axis_with_its_valid_extent_and_the_strides() -> None:
    nd = _viewed([4, 64], ir.TensorView(stride=[256, 1], layout=ir.TensorLayout.ND, valid_shape=[3, 40],
                                        pad=ir.PadValue.zero))
    assert str(T.reinterpret_view(nd, D.INT16).type) == (
        "pl.Tensor[[4, 128], pl.INT16, pl.TensorView(valid_shape=[3, 80], stride=[512, 1], "
        "layout=pl.TensorLayout.ND, pad=pl.PadValue.zero)]")
    dn = _viewed([64, 4], ir.TensorView(stride=[1, 64], layout=ir.TensorLayout.DN, valid_shape=[40, 3],
                                        pad=ir.PadValue.max))
    # A max pad means nothing as INT16 bits: it is dropped; the DN layout stays.
    assert str(T.reinterpret_view(dn, D.INT16).type) == (
        "pl.Tensor[[128, 4], pl.INT16, pl.TensorView(valid_shape=[80, 3], stride=[1, 128], "
        "layout=pl.TensorLayout.DN)]")
    t = ir.Var("t", ir.TileType([4, 64], D.FP32, None, ir.TileView(valid_shape=[4, 40], pad=ir.PadValue.min),
                                Mem.Vec))
    assert str(L.reinterpret_view(t, D.INT16).type) == ("pl.Tile[[4, 128], pl.INT16, pl.Mem.Vec, "
                                                        "pl.TileView(valid_shape=[4, 80])]")


def test_reinterpret_view_refuses_a_strided_or_nz_input() -> None:
    strided = _viewed([4, 64], ir.TensorView(stride=[1, 4], layout=ir.TensorLayout.ND))
    with pytest.raises(ValueError, match=r"a strided view \(stride \[1, 4\]\) cannot be reinterpreted: its last axis "
                                         "is not contiguous"):
        T.reinterpret_view(strided, D.INT16)
    with pytest.raises(ValueError, match="an NZ tensor cannot be reinterpreted"):
        T.reinterpret_view(_viewed([16, 16], ir.TensorView(layout=ir.TensorLayout.NZ)), D.INT16)
    with pytest.raises(ValueError, match="valid extent of 3 FP32 does not divide into INT64 elements"):
        T.reinterpret_view(_viewed([4, 64], ir.TensorView(layout=ir.TensorLayout.ND, valid_shape=[4, 3])), D.INT64)


REINTERPRET_DN = """
@pl.program
class P:
    @pl.function(type=pl.FunctionType.Opaque)
    def main(self, x: pl.Tensor[[4, 2], pl.FP32, pl.DN]) -> pl.Tensor[[8, 2], pl.FP16, pl.DN]:
        y = pl.tensor.reinterpret_view(x, pl.FP16)
        return y
"""


def test_reinterpret_view_of_a_dn_tensor_reads_its_bytes_down_the_columns() -> None:
    x = np.arange(8, dtype=np.float32).reshape(4, 2) + 1
    (y,) = run(pl.parse(REINTERPRET_DN), x).returns
    assert y.shape == (8, 2)
    for c in range(2):
        np.testing.assert_array_equal(y[:, c], x[:, c].copy().view(np.float16))


# ---------------------------------------------------------------- assemble across dtypes


def test_tensor_assemble_of_another_dtype_gives_the_target_type() -> None:
    target = tensor("o", [32, 64], D.BF16)
    assert str(T.assemble(target, tensor("s", [16, 64]), [16, 0]).type) == "pl.Tensor[[32, 64], pl.BF16]"
    with pytest.raises(ValueError, match="a BOOL source cannot be cast to the BF16 target"):
        T.assemble(target, tensor("m", [16, 64], D.BOOL), [0, 0])


ASSEMBLE_CAST = """
@pl.program
class P:
    @pl.function(type=pl.FunctionType.Opaque)
    def main(self, x: pl.Tensor[[2, 4], pl.FP32], o: pl.Out[pl.Tensor[[4, 4], pl.INT32]]
             ) -> pl.Tensor[[4, 4], pl.INT32]:
        o = pl.assemble(o, x, [2, 0])
        return o
"""


def test_tensor_assemble_of_another_dtype_casts_as_tensor_cast_does() -> None:
    x = np.array([[0.5, 1.5, -2.5, 2.7], [-0.4, 3.49, 7.5, -7.5]], np.float32)
    (o,) = run(pl.parse(ASSEMBLE_CAST), x, np.zeros((4, 4), np.int32)).returns
    # cast mode 'round' (the default): to nearest, halves away from zero.
    np.testing.assert_array_equal(o[2:], np.copysign(np.floor(np.abs(x) + 0.5), x).astype(np.int32))


# ---------------------------------------------------------------- gemv on a 16-row fractal


def test_gemv_family_takes_a_16_row_accumulator_valid_over_one_row() -> None:
    rhs = tile("r", [64, 32], D.FP16, Mem.Right)
    tall = ir.Var("l", ir.TileType([16, 64], D.FP16, None, ir.TileView(valid_shape=[1, 64]), Mem.Left))
    want = "pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc, pl.TileView(valid_shape=[1, 32])]"
    assert str(L.gemv(tall, rhs).type) == want
    acc = ir.Var("acc", L.gemv(tall, rhs).type)
    assert str(L.gemv_acc(acc, tile("l1", [1, 64], D.FP16, Mem.Left), rhs).type) == want
    assert str(L.gemv_acc(acc, tall, rhs).type) == want
    with pytest.raises(ValueError, match=r"acc must be \[1, N\] or valid over \[1, N\], got \[16, 32\] valid "
                                         r"\[16, 32\]"):
        L.gemv_acc(tile("full", [16, 32], D.FP32, Mem.Acc), tall, rhs)
    with pytest.raises(ValueError, match=r"lhs must be \[1, K\] or valid over \[1, K\], got \[16, 64\]"):
        L.gemv(tile("l16", [16, 64], D.FP16, Mem.Left), rhs)
