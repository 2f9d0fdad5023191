"""Tile op semantics, each checked against numpy written independently here."""

from __future__ import annotations

from typing import Any, Callable

import ml_dtypes
import numpy as np
import pytest
from interp_ir import SP, f32, i32, idx, op_function, scalar_t, tile_t, tup

import pypto.language as pl
from pypto import ir
from pypto.interp import run
from pypto.interp.errors import InterpreterError
from pypto.ir import DataType as D

RNG = np.random.default_rng(7)
V = ir.MemorySpace.Vec


def rand(shape: tuple[int, ...], dtype: Any = np.float32, lo: float = -4, hi: float = 4) -> np.ndarray:
    return RNG.uniform(lo, hi, size=shape).astype(dtype)


def run_op(
    op: str, operands: list[Any], inputs: list[Any], kwargs: dict[str, Any] | None = None, result: ir.Type | None = None
) -> Any:
    return run(op_function(op, operands, kwargs, result), *inputs).value


T88 = tile_t([8, 8])


@pytest.mark.parametrize(
    ("op", "ref"),
    [
        ("tile.add", np.add),
        ("tile.sub", np.subtract),
        ("tile.mul", np.multiply),
        ("tile.div", np.divide),
        ("tile.maximum", np.maximum),
        ("tile.minimum", np.minimum),
        ("tile.fmod", np.fmod),
    ],
)
def test_tile_binary_fp32(op: str, ref: Callable[..., np.ndarray]) -> None:
    a, b = rand((8, 8)), rand((8, 8), lo=0.5, hi=3)
    np.testing.assert_array_equal(run_op(op, [T88, T88], [a, b], result=T88), ref(a, b).astype(np.float32))


def test_tile_binary_broadcasts_and_promotes() -> None:
    a = rand((4, 8))
    b = np.arange(8, dtype=np.int32).reshape(1, 8)
    got = run_op("tile.add", [tile_t([4, 8]), tile_t([1, 8], D.INT32)], [a, b])
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, a + b.astype(np.float32))


def test_tile_fp16_rounds_once_per_op() -> None:
    a = rand((8, 8), np.float16)
    b = rand((8, 8), np.float16)
    t = tile_t([8, 8], D.FP16)
    got = run_op("tile.mul", [t, t], [a, b], result=t)
    np.testing.assert_array_equal(got, (a.astype(np.float32) * b.astype(np.float32)).astype(np.float16))


def test_tile_bf16() -> None:
    a = rand((8, 8), ml_dtypes.bfloat16)
    t = tile_t([8, 8], D.BF16)
    got = run_op("tile.exp", [t], [a], result=t)
    assert got.dtype == np.dtype(ml_dtypes.bfloat16)
    np.testing.assert_array_equal(got, np.exp(a.astype(np.float32)).astype(ml_dtypes.bfloat16))


def test_tile_int_division_truncates() -> None:
    t = tile_t([1, 4], D.INT32)
    a = np.array([[7, -7, 7, -7]], np.int32)
    b = np.array([[2, 2, -2, -2]], np.int32)
    np.testing.assert_array_equal(run_op("tile.div", [t, t], [a, b], result=t), [[3, -3, -3, 3]])


def test_tile_scalar_ops_keep_the_tile_dtype() -> None:
    t = tile_t([2, 4], D.INT16)
    a = np.arange(8, dtype=np.int16).reshape(2, 4)
    got = run_op("tile.muls", [t, ir.ConstInt(3, D.INT16, SP)], [a])
    assert got.dtype == np.int16
    np.testing.assert_array_equal(got, a * 3)
    np.testing.assert_array_equal(run_op("tile.shls", [t, ir.ConstInt(2, D.INT16, SP)], [a]), a << 2)
    np.testing.assert_array_equal(run_op("tile.maximums", [t, ir.ConstInt(5, D.INT16, SP)], [a]), np.maximum(a, 5))


def test_tile_bitwise() -> None:
    t = tile_t([2, 4], D.UINT16)
    a = np.arange(8, dtype=np.uint16).reshape(2, 4) * 37
    b = np.arange(8, dtype=np.uint16).reshape(2, 4) * 11
    np.testing.assert_array_equal(run_op("tile.and", [t, t], [a, b]), a & b)
    np.testing.assert_array_equal(run_op("tile.or", [t, t], [a, b]), a | b)
    np.testing.assert_array_equal(run_op("tile.xor", [t, t, t], [a, b, a]), a ^ b)
    np.testing.assert_array_equal(run_op("tile.not", [t], [a]), ~a)


@pytest.mark.parametrize(
    ("op", "ref"),
    [
        ("tile.exp", np.exp),
        ("tile.log", np.log),
        ("tile.sqrt", np.sqrt),
        ("tile.rsqrt", lambda x: 1 / np.sqrt(x)),
        ("tile.recip", lambda x: 1 / x),
        ("tile.neg", np.negative),
        ("tile.abs", np.abs),
        ("tile.relu", lambda x: np.maximum(x, 0)),
        ("tile.sin", np.sin),
        ("tile.cos", np.cos),
    ],
)
def test_tile_unary(op: str, ref: Callable[..., np.ndarray]) -> None:
    a = rand((8, 8), lo=0.1, hi=5) if op in ("tile.log", "tile.sqrt", "tile.rsqrt") else rand((8, 8))
    np.testing.assert_allclose(run_op(op, [T88], [a], result=T88), ref(a.astype(np.float64)), rtol=1e-6)


def test_tile_lrelu_prelu() -> None:
    a = rand((8, 8))
    np.testing.assert_allclose(run_op("tile.lrelu", [T88, f32(0.1)], [a]), np.where(a > 0, a, a * np.float32(0.1)))
    s = rand((8, 8))
    np.testing.assert_allclose(run_op("tile.prelu", [T88, T88, T88], [a, s, a]), np.where(a > 0, a, a * s))


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        ("rint", [2, -2, 2, 4]),
        ("round", [3, -3, 2, 4]),
        ("floor", [2, -3, 1, 3]),
        ("ceil", [3, -2, 2, 4]),
        ("trunc", [2, -2, 1, 3]),
        ("odd", [3, -3, 1, 3]),
    ],
)
def test_tile_cast_modes(mode: str, expected: list[int]) -> None:
    codes = {"none": 0, "rint": 1, "round": 2, "floor": 3, "ceil": 4, "trunc": 5, "odd": 6}
    a = np.array([[2.5, -2.5, 1.5, 3.5]], np.float32)
    got = run_op(
        "tile.cast", [tile_t([1, 4])], [a], {"target_type": D.INT32, "mode": codes[mode]}, tile_t([1, 4], D.INT32)
    )
    np.testing.assert_array_equal(got, [expected])


def test_tile_cast_saturates_and_narrows_floats() -> None:
    a = np.array([[1e6, -1e6, 0.1, 65504.0]], np.float32)
    got = run_op("tile.cast", [tile_t([1, 4])], [a], {"target_type": D.INT8, "mode": 2})
    np.testing.assert_array_equal(got, [[127, -128, 0, 127]])
    half = run_op("tile.cast", [tile_t([1, 4])], [a], {"target_type": D.FP16, "mode": 2})
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(half, a.astype(np.float16))


@pytest.mark.parametrize(
    ("mode", "expected"),
    [  # 1 + 2**-11 is halfway between the FP16 neighbours 1 and 1 + 2**-10; 2.99999 lies just below 3.
        (1, [1.0, 3.0, -3.0]),
        (2, [1 + 2**-10, 3.0, -3.0]),
        (3, [1.0, 3 - 2**-9, -3.0]),
        (4, [1 + 2**-10, 3.0, -3 + 2**-9]),
        (5, [1.0, 3 - 2**-9, -3 + 2**-9]),
        (6, [1 + 2**-10, 3 - 2**-9, -3 + 2**-9]),
    ],
)
def test_a_narrowing_float_cast_rounds_by_its_mode(mode: int, expected: list[float]) -> None:
    a = np.array([[1 + 2**-11, 2.99999, -2.99999]], np.float32)
    got = run_op("tile.cast", [tile_t([1, 3])], [a], {"target_type": D.FP16, "mode": mode}, tile_t([1, 3], D.FP16))
    np.testing.assert_array_equal(got.astype(np.float64), [expected])


def test_a_cast_without_a_native_pair_rounds_at_each_step_of_its_chain() -> None:
    """FP32 -> INT8 runs as FP32 -> FP16 -> INT8 (LegalizeTileCast's chain): 2.4999 becomes the FP16
    2.5 first, which rounds half away to 3, where one rounding would give 2."""
    a = np.array([[2.4999, -2.4999, 2.25, 100.7]], np.float32)
    got = run_op("tile.cast", [tile_t([1, 4])], [a], {"target_type": D.INT8, "mode": 2}, tile_t([1, 4], D.INT8))
    np.testing.assert_array_equal(got, [[3, -3, 2, 101]])


def test_tile_cmp_packs_a_predicate_mask_and_sel_consumes_it() -> None:
    a, b = rand((2, 16)), rand((2, 16))
    mask = run_op("tile.cmp", [tile_t([2, 16]), tile_t([2, 16])], [a, b], {"cmp_type": 4})
    assert mask.dtype == np.uint8 and mask.shape == (2, 32)
    bits = a > b
    expected = np.zeros((2, 32), np.uint8)
    for r in range(2):
        for c in range(16):
            expected[r, c // 8] |= int(bits[r, c]) << (c % 8)
    np.testing.assert_array_equal(mask, expected)
    m = tile_t([2, 32], D.UINT8)
    t = tile_t([2, 16])
    np.testing.assert_array_equal(run_op("tile.sel", [m, t, t, t], [mask, a, b, a]), np.maximum(a, b))
    np.testing.assert_array_equal(run_op("tile.sels", [m, t, t, f32(0.0)], [mask, a, a]), np.where(bits, a, 0))


def test_tile_cmps_le() -> None:
    a = np.arange(8, dtype=np.float32).reshape(1, 8)
    mask = run_op("tile.cmps", [tile_t([1, 8]), f32(3.0)], [a], {"cmp_type": 3})
    assert mask[0, 0] == 0b00001111 and not mask[0, 1:].any()


@pytest.mark.parametrize("call", ["pl.tile.cmps(x, 0.0, cmp_type=0)", "pl.tile.cmp(x, x, cmp_type=0)"])
def test_tile_cmp_of_a_partial_tile_zeroes_bits_outside_its_valid_region(call: str) -> None:
    """As pto-isa's TCMP/TCMPS: only valid elements are compared, and the mask is valid in whole packed
    rows (16 columns: 2 bytes), so its store writes 2 bytes of each valid row."""
    text = (
        "import pypto.language as pl\n\n\n@pl.program\nclass P:\n"
        "    @pl.function(type=pl.FunctionType.InCore)\n"
        "    def k(self, a: pl.Tensor[[4, 16], pl.FP32], out: pl.Out[pl.Tensor[[4, 32], pl.UINT8]])"
        " -> pl.Tensor[[4, 32], pl.UINT8]:\n"
        "        x = pl.load(a, [0, 0], [4, 16], valid_shape=[3, 11])\n"
        f"        m = {call}\n"
        "        out = pl.store(m, [0, 0], out)\n"
        "        return out\n"
    )
    got = run(pl.parse(text), np.zeros((4, 16), np.float32), np.full((4, 32), 9, np.uint8), entry="k").outputs["out"]
    want = np.full((4, 32), 9, np.uint8)
    want[:3, :2] = [0xFF, 0x07]
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize(
    ("op", "ref"),
    [
        ("tile.row_sum", lambda x: x.sum(axis=1, keepdims=True)),
        ("tile.row_max", lambda x: x.max(axis=1, keepdims=True)),
        ("tile.row_min", lambda x: x.min(axis=1, keepdims=True)),
        ("tile.row_prod", lambda x: x.prod(axis=1, keepdims=True)),
        ("tile.col_sum", lambda x: x.sum(axis=0, keepdims=True)),
        ("tile.col_max", lambda x: x.max(axis=0, keepdims=True)),
        ("tile.col_min", lambda x: x.min(axis=0, keepdims=True)),
        ("tile.col_prod", lambda x: x.prod(axis=0, keepdims=True)),
    ],
)
def test_tile_reductions(op: str, ref: Callable[..., np.ndarray]) -> None:
    a = rand((4, 8), lo=0.5, hi=1.5)
    got = run_op(op, [tile_t([4, 8]), tile_t([4, 8])], [a, a])
    np.testing.assert_allclose(got, ref(a.astype(np.float64)), rtol=1e-6)


def _in_order(x: np.ndarray, axis: int, step: np.ufunc, acc: Any) -> np.ndarray:
    """``x`` reduced along ``axis`` one element after the other, rounding each step to ``acc``."""
    rows = np.moveaxis(x.astype(acc), axis, 0)
    out = rows[0]
    for r in rows[1:]:
        out = step(out, r).astype(acc)
    return np.expand_dims(out, axis)


@pytest.mark.parametrize(
    ("op", "axis", "step", "acc"),
    [
        # pto-isa: TCOLSUM/TCOLPROD add or multiply row by row in the element type, TROWSUM sums in FP32.
        ("tile.col_sum", 0, np.add, np.float16),
        ("tile.col_prod", 0, np.multiply, np.float16),
        ("tile.row_prod", 1, np.multiply, np.float16),
        ("tile.row_sum", 1, np.add, np.float32),
    ],
)
def test_fp16_sums_and_products_accumulate_in_order_in_pto_isa_types(
    op: str, axis: int, step: np.ufunc, acc: Any
) -> None:
    a = rand((32, 64), np.float16, lo=0.9, hi=1.1)
    got = run_op(op, [tile_t([32, 64], D.FP16), tile_t([32, 64], D.FP16)], [a, a])
    np.testing.assert_array_equal(got, _in_order(a, axis, step, acc).astype(np.float16))


def test_fp16_col_sum_is_not_a_float32_sum() -> None:
    a = rand((32, 64), np.float16, lo=0, hi=8)
    got = run_op("tile.col_sum", [tile_t([32, 64], D.FP16), tile_t([32, 64], D.FP16)], [a, a])
    assert not np.array_equal(got, a.astype(np.float32).sum(axis=0, keepdims=True).astype(np.float16))


def test_tile_arg_reductions_give_int32() -> None:
    a = rand((4, 8))
    got = run_op("tile.row_argmax", [tile_t([4, 8]), tile_t([4, 8])], [a, a])
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, a.argmax(axis=1).reshape(4, 1))
    np.testing.assert_array_equal(
        run_op("tile.col_argmin", [tile_t([4, 8]), tile_t([4, 8])], [a, a]), a.argmin(axis=0).reshape(1, 8)
    )


def test_row_reduction_reads_only_the_valid_region() -> None:
    x = ir.Var("x", ir.TensorType([4, 8], D.FP32), SP)
    t = tile_t([4, 8])
    tl = ir.Var("t", t, SP)
    r = ir.Var("r", tile_t([4, 1]), SP)
    body = ir.SeqStmts(
        [
            ir.AssignStmt(
                tl, ir.Call(ir.Op("tile.load"), [x, tup(0, 0), tup(4, 8), tup(4, 5)], {"target_memory": V}, t, SP), SP
            ),
            ir.AssignStmt(r, ir.Call(ir.Op("tile.row_max"), [tl, tl], SP), SP),
            ir.ReturnStmt([r], SP),
        ],
        SP,
    )
    a = rand((4, 8))
    got = run(ir.Function("f", [x], [r.type], body, SP), a).value
    np.testing.assert_array_equal(got, a[:, :5].max(axis=1, keepdims=True))


@pytest.mark.parametrize(
    ("op", "ref"),
    [
        ("tile.row_expand_add", np.add),
        ("tile.row_expand_sub", np.subtract),
        ("tile.row_expand_mul", np.multiply),
        ("tile.row_expand_div", np.divide),
        ("tile.row_expand_max", np.maximum),
        ("tile.row_expand_min", np.minimum),
        ("tile.row_expand_expdif", lambda a, b: np.exp(a - b)),
    ],
)
def test_row_expand_family(op: str, ref: Callable[..., np.ndarray]) -> None:
    a, v = rand((4, 8)), rand((4, 1), lo=0.5, hi=2)
    got = run_op(op, [tile_t([4, 8]), tile_t([4, 1])], [a, v])
    np.testing.assert_allclose(got, ref(a.astype(np.float64), v.astype(np.float64)), rtol=1e-6)
    col_op = op.replace("row_", "col_")
    w = rand((1, 8), lo=0.5, hi=2)
    got = run_op(col_op, [tile_t([4, 8]), tile_t([1, 8])], [a, w])
    np.testing.assert_allclose(got, ref(a.astype(np.float64), w.astype(np.float64)), rtol=1e-6)


def test_row_and_col_expand() -> None:
    v, w = rand((4, 1)), rand((1, 8))
    np.testing.assert_array_equal(
        run_op("tile.row_expand", [tile_t([4, 8]), tile_t([4, 1])], [rand((4, 8)), v]), np.repeat(v, 8, axis=1)
    )
    np.testing.assert_array_equal(
        run_op("tile.col_expand", [tile_t([4, 8]), tile_t([1, 8])], [rand((4, 8)), w]), np.repeat(w, 4, axis=0)
    )


def test_tile_matmul_family() -> None:
    a = rand((16, 8), np.float16)
    b = rand((8, 32), np.float16)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    left, right = tile_t([16, 8], D.FP16, ir.MemorySpace.Left), tile_t([8, 32], D.FP16, ir.MemorySpace.Right)
    acc_t = tile_t([16, 32], D.FP32, ir.MemorySpace.Acc)
    got = run_op("tile.matmul", [left, right], [a, b], result=acc_t)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, ref, rtol=1e-6)
    c = rand((16, 32))
    np.testing.assert_allclose(run_op("tile.matmul_acc", [acc_t, left, right], [c, a, b]), c + ref, rtol=1e-6)
    init = ir.ConstBool(True, SP)
    np.testing.assert_allclose(run_op("tile.matmul_acc", [acc_t, left, right, init], [c, a, b]), ref, rtol=1e-6)
    bias = rand((1, 32))
    np.testing.assert_allclose(
        run_op("tile.matmul_bias", [left, right, tile_t([1, 32], D.FP32, ir.MemorySpace.Bias)], [a, b, bias]),
        ref + bias,
        rtol=1e-6,
    )


def test_tile_matmul_int8_accumulates_in_int32() -> None:
    a = RNG.integers(-128, 127, (4, 64), dtype=np.int8)
    b = RNG.integers(-128, 127, (64, 4), dtype=np.int8)
    got = run_op(
        "tile.matmul",
        [tile_t([4, 64], D.INT8, ir.MemorySpace.Left), tile_t([64, 4], D.INT8, ir.MemorySpace.Right)],
        [a, b],
    )
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, a.astype(np.int64) @ b.astype(np.int64))


def test_transpose_view_and_transpose() -> None:
    a = rand((4, 8))
    np.testing.assert_array_equal(run_op("tile.transpose_view", [tile_t([4, 8], D.FP32, ir.MemorySpace.Mat)], [a]), a.T)
    b = rand((2, 4, 8))
    got = run_op("tile.transpose_view", [tile_t([2, 4, 8], D.FP32, ir.MemorySpace.Mat)], [b])
    np.testing.assert_array_equal(got, b.transpose(0, 2, 1))  # each batch transposed
    np.testing.assert_array_equal(run_op("tile.transpose", [tile_t([4, 8]), idx(0), idx(1)], [a]), a.T)


def test_create_full_ci_tri() -> None:
    np.testing.assert_array_equal(
        run_op("tile.create", [tup(2, 3)], [], {"dtype": D.FP32, "target_memory": V}), np.zeros((2, 3))
    )
    full = run_op("tile.full", [tup(2, 3), i32(7)], [], {"dtype": D.INT32})
    assert full.dtype == np.int32
    np.testing.assert_array_equal(full, np.full((2, 3), 7))
    np.testing.assert_array_equal(
        run_op("tile.ci", [i32(5), tup(1, 4)], [], {"dtype": D.INT32, "descending": True}), [[5, 4, 3, 2]]
    )
    tri = run_op("tile.tri", [i32(0), tup(3, 3)], [], {"dtype": D.INT32, "upper": False})
    np.testing.assert_array_equal(tri, np.tril(np.ones((3, 3), np.int32)))


def test_slice_reshape_concat_extract_move() -> None:
    a = rand((8, 8))
    np.testing.assert_array_equal(
        run_op("tile.slice", [T88, tup(4, 4), tup(2, 4)], [a], result=tile_t([4, 4])), a[2:6, 4:8]
    )
    np.testing.assert_array_equal(run_op("tile.reshape", [T88, tup(4, 16)], [a]), a.reshape(4, 16))
    b = rand((8, 4))
    np.testing.assert_array_equal(run_op("tile.concat", [T88, tile_t([8, 4])], [a, b]), np.concatenate([a, b], axis=1))
    np.testing.assert_array_equal(
        run_op("tile.extract", [T88, idx(4), idx(0), tup(4, 8)], [a], {"target_memory": ir.MemorySpace.Left}), a[4:]
    )
    np.testing.assert_array_equal(run_op("tile.move", [T88], [a], {"target_memory": ir.MemorySpace.Mat}), a)


def test_assemble_and_element_access() -> None:
    a, b = rand((8, 8)), rand((2, 4))
    expected = a.copy()
    expected[3:5, 2:6] = b
    np.testing.assert_array_equal(run_op("tile.assemble", [T88, tile_t([2, 4]), tup(3, 2)], [a, b]), expected)
    assert run_op("tile.read", [T88, tup(3, 5)], [a], result=scalar_t(D.FP32)) == float(a[3, 5])
    written = run_op("tile.write", [T88, tup(0, 1), f32(2.5)], [a])
    assert written[0, 1] == 2.5 and np.array_equal(np.delete(written.ravel(), 1), np.delete(a.ravel(), 1))


@pytest.mark.parametrize(("pad", "fill"), [(1, 0.0), (2, np.inf), (3, -np.inf)])
def test_fillpad_fills_outside_the_valid_region(pad: int, fill: float) -> None:
    x = ir.Var("x", ir.TensorType([4, 8], D.FP32), SP)
    t = tile_t([4, 8])
    tl = ir.Var("t", t, SP)
    r = ir.Var("r", t, SP)
    body = ir.SeqStmts(
        [
            ir.AssignStmt(
                tl, ir.Call(ir.Op("tile.load"), [x, tup(0, 0), tup(4, 8), tup(3, 5)], {"target_memory": V}, t, SP), SP
            ),
            ir.AssignStmt(r, ir.Call(ir.Op("tile.fillpad"), [tl], {"pad_value": ir.PadValue(pad)}, t, SP), SP),
            ir.ReturnStmt([r], SP),
        ],
        SP,
    )
    a = rand((4, 8))
    expected = np.full((4, 8), fill, np.float32)
    expected[:3, :5] = a[:3, :5]
    np.testing.assert_array_equal(run(ir.Function("f", [x], [t], body, SP), a).value, expected)


def test_three_operand_forms() -> None:
    """subc is ``a - b + c``, as pto-isa's TSUBC (docs/isa/TSUBC.md) and TSUBSC compute it."""
    a, b, c = rand((8, 8)), rand((8, 8)), rand((8, 8))
    np.testing.assert_allclose(run_op("tile.addc", [T88, T88, T88], [a, b, c]), a + b + c, rtol=1e-6)
    np.testing.assert_allclose(run_op("tile.subc", [T88, T88, T88], [a, b, c]), a - b + c, rtol=1e-6)
    np.testing.assert_allclose(run_op("tile.addsc", [T88, f32(2.0), T88], [a, c]), a + 2 + c, rtol=1e-6)
    np.testing.assert_allclose(run_op("tile.subsc", [T88, f32(2.0), T88], [a, c]), a - 2 + c, rtol=1e-6)


def test_three_operand_forms_round_narrow_floats_once() -> None:
    """FP16 ``2048 + 1 - 2048`` is 1, not 0: pto-isa computes the whole expression in float (clang's
    ``_Float16`` excess precision) and rounds once, where rounding ``2048 + 1`` first would give 2048."""
    t, s = tile_t([8, 8], D.FP16), scalar_t(D.FP16)
    a, b, c = (np.full((8, 8), v, dtype=np.float16) for v in (2048, 1, -2048))
    assert (run_op("tile.addc", [t, t, t], [a, b, c], result=t) == 1).all()
    assert (run_op("tile.subc", [t, t, t], [a, -b, c], result=t) == 1).all()
    assert (run_op("tile.addsc", [t, s, t], [a, 1.0, c], result=t) == 1).all()


def _structs(out: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The scores and uint32 indices of a row of 8-byte (score, index) structs."""
    raw = np.ascontiguousarray(out).view(np.uint8).reshape(-1, 8)
    size = out.dtype.itemsize
    return raw[:, :size].copy().view(out.dtype).reshape(-1), raw[:, 4:].copy().view(np.uint32).reshape(-1)


@pytest.mark.parametrize("dtype", [D.FP32, D.FP16])
def test_sort32_sorts_each_block_descending_ties_by_index(dtype: D) -> None:
    """TSORT32: per 32-element block, (score, index) structs by descending score, equal scores by index."""
    nd = np.float32 if dtype == D.FP32 else np.float16
    scores = np.tile(np.array([1, 3, 2, 3], dtype=nd), 16).reshape(1, 64)
    idx = np.arange(64, dtype=np.uint32).reshape(1, 64)
    width = 2 if dtype == D.FP32 else 4
    out = run_op("tile.sort32", [tile_t([1, 64], dtype), tile_t([1, 64], D.UINT32)], [scores, idx],
                 result=tile_t([1, 64 * width], dtype))
    got_scores, got_idx = _structs(out)
    assert got_scores[:32].tolist() == [3] * 16 + [2] * 8 + [1] * 8
    assert got_idx[:16].tolist() == [1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31]
    assert got_idx[32:48].tolist() == list(range(33, 64, 2))
    if dtype == D.FP16:  # the two bytes between an FP16 score and its index are zero
        assert not np.ascontiguousarray(out).view(np.uint8).reshape(-1, 8)[:, 2:4].any()


def test_mrgsort_merges_four_blocks_taking_the_lowest_block_on_ties() -> None:
    """TMRGSORT format 1: block_len=64 FP32 elements are 32 structs; four blocks merge head by head."""
    blocks = [np.array([9 - b] * 16 + [0] * 16, dtype=np.float32) for b in range(4)]
    scores = np.concatenate(blocks)
    idx = np.arange(128, dtype=np.uint32)
    row = np.empty(256, dtype=np.float32)
    row[0::2], row[1::2] = scores, idx.view(np.float32)
    out = run_op("tile.mrgsort_format1", [tile_t([1, 256])], [row.reshape(1, 256)], {"block_len": 64})
    got_scores, got_idx = _structs(out)
    assert got_scores.tolist() == [9] * 16 + [8] * 16 + [7] * 16 + [6] * 16 + [0] * 64
    assert got_idx[:64].tolist() == list(range(0, 16)) + list(range(32, 48)) + list(range(64, 80)) + list(range(96, 112))
    assert got_idx[64:].tolist() == list(range(16, 32)) + list(range(48, 64)) + list(range(80, 96)) + list(range(112, 128))


def test_concat_packs_the_rhs_valid_columns_after_the_lhs_ones() -> None:
    """TCONCAT: with 3 valid columns on the left and 5 on the right, the result is valid in 8 columns,
    the right operand's starting at column 3 (not at the left tile's width)."""
    program = pl.parse("""
import pypto.language as pl


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, a: pl.Tensor[[4, 8], pl.FP32], b: pl.Tensor[[4, 8], pl.FP32],
             out: pl.Out[pl.Tensor[[4, 16], pl.FP32]]) -> pl.Tensor[[4, 16], pl.FP32]:
        x = pl.load(a, [0, 0], [4, 8], valid_shape=[4, 3])
        y = pl.load(b, [0, 0], [4, 8], valid_shape=[4, 5])
        out = pl.store(pl.tile.concat(x, y), [0, 0], out)
        return out
""")
    a, b = rand((4, 8)), rand((4, 8))
    out = run(program, a, b, np.zeros((4, 16), dtype=np.float32)).outputs["out"]
    np.testing.assert_array_equal(np.asarray(out), np.concatenate([a[:, :3], b[:, :5], np.zeros((4, 8), np.float32)], axis=1))


L_SHAPED = """
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 16], pl.FP32], r: pl.Scalar[pl.INDEX],
          out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t = pl.load(x, [0, 0], [16, 16], valid_shape=[8, 16])
        s = pl.load(x, [0, 0], [8, 8])
        u = pl.assemble(t, s, [r, 0])
        out = pl.store(u, [0, 0], out)
        return out
"""


def test_assemble_refuses_an_l_shaped_valid_region() -> None:
    # A run-time offset passes the type rule; the interpreter applies the same union rule.
    program = pl.program_from_string(L_SHAPED)
    with pytest.raises(InterpreterError, match=r"<string>:9:9: tile.assemble: writing \[8, 8\] at offsets \[8, 0\] into a target valid in "
                       r"\[8, 16\] would make the valid region L-shaped"):
        run(program, rand((16, 16)), 8, np.zeros((16, 16), np.float32))
