"""Tensor op semantics against numpy, and GM buffer behaviour (views, in-place writes)."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest
from interp_ir import assign, call, f32, function, i32, idx, op_function, ret, scalar_t, tensor_t, tup, var

from pypto import ir
from pypto.interp import run
from pypto.ir import DataType as D

RNG = np.random.default_rng(11)


def rand(shape: tuple[int, ...], dtype: Any = np.float32, lo: float = -4, hi: float = 4) -> np.ndarray:
    return RNG.uniform(lo, hi, size=shape).astype(dtype)


def run_op(
    op: str, operands: list[Any], inputs: list[Any], kwargs: dict[str, Any] | None = None, result: ir.Type | None = None
) -> Any:
    return run(op_function(op, operands, kwargs, result), *inputs).value


@pytest.mark.parametrize(
    ("op", "ref"),
    [
        ("tensor.add", np.add),
        ("tensor.sub", np.subtract),
        ("tensor.mul", np.multiply),
        ("tensor.div", np.divide),
        ("tensor.maximum", np.maximum),
    ],
)
def test_tensor_binary_broadcast(op: str, ref: Callable[..., np.ndarray]) -> None:
    a, b = rand((4, 8)), rand((8,), lo=0.5, hi=2)
    np.testing.assert_array_equal(run_op(op, [tensor_t([4, 8]), tensor_t([8])], [a, b]), ref(a, b).astype(np.float32))


def test_tensor_scalar_ops_promote_with_the_scalar_dtype() -> None:
    a = np.arange(6, dtype=np.int32).reshape(2, 3)
    got = run_op("tensor.adds", [tensor_t([2, 3], D.INT32), f32(0.5)], [a])
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, a + np.float32(0.5))
    got = run_op("tensor.muls", [tensor_t([2, 3], D.INT32), i32(3)], [a])
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, a * 3)


def test_tensor_cmp_gives_zero_one_in_the_promoted_dtype() -> None:
    a, b = rand((2, 4)), rand((2, 4))
    got = run_op("tensor.cmp", [tensor_t([2, 4]), tensor_t([2, 4])], [a, b], {"cmp_type": 2})
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, (a < b).astype(np.float32))


def test_tensor_reductions_and_expands() -> None:
    a = rand((3, 5))
    np.testing.assert_allclose(
        run_op("tensor.row_sum", [tensor_t([3, 5])], [a]), a.sum(axis=1, keepdims=True), rtol=1e-6
    )
    np.testing.assert_array_equal(run_op("tensor.col_max", [tensor_t([3, 5])], [a]), a.max(axis=0, keepdims=True))
    v = rand((3, 1))
    np.testing.assert_allclose(run_op("tensor.row_expand_sub", [tensor_t([3, 5]), tensor_t([3, 1])], [a, v]), a - v)
    np.testing.assert_array_equal(
        run_op("tensor.expands", [tensor_t([3, 5]), f32(1.5)], [a]), np.full((3, 5), 1.5, np.float32)
    )


@pytest.mark.parametrize(("a_trans", "b_trans"), [(False, False), (True, False), (False, True), (True, True)])
def test_tensor_matmul_transposes(a_trans: bool, b_trans: bool) -> None:
    a = rand((8, 4) if a_trans else (4, 8))
    b = rand((6, 8) if b_trans else (8, 6))
    kw = {"a_trans": a_trans, "b_trans": b_trans, "c_matrix_nz": False}
    got = run_op("tensor.matmul", [tensor_t(list(a.shape)), tensor_t(list(b.shape))], [a, b], kw)
    ref = (a.T if a_trans else a).astype(np.float64) @ (b.T if b_trans else b).astype(np.float64)
    np.testing.assert_allclose(got, ref, rtol=1e-6)


def test_tensor_matmul_batched_and_out_dtype() -> None:
    a, b = rand((2, 4, 8), np.float16), rand((8, 3), np.float16)
    got = run_op(
        "tensor.matmul", [tensor_t([2, 4, 8], D.FP16), tensor_t([8, 3], D.FP16)], [a, b], {"out_dtype": D.FP32}
    )
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, a.astype(np.float64) @ b.astype(np.float64), rtol=1e-6)


def test_tensor_shape_ops() -> None:
    a = rand((4, 6))
    np.testing.assert_array_equal(run_op("tensor.reshape", [tensor_t([4, 6]), tup(6, 4)], [a]), a.reshape(6, 4))
    np.testing.assert_array_equal(run_op("tensor.transpose", [tensor_t([4, 6]), idx(0), idx(1)], [a]), a.T)
    np.testing.assert_array_equal(run_op("tensor.slice", [tensor_t([4, 6]), tup(2, 3), tup(1, 2)], [a]), a[1:3, 2:5])
    dropped = run_op("tensor.slice", [tensor_t([4, 6]), tup(1, 6), tup(2, 0), tup(), tup(0)], [a])
    np.testing.assert_array_equal(dropped, a[2])
    ints = np.arange(4, dtype=np.int32).reshape(1, 4)
    np.testing.assert_array_equal(
        run_op("tensor.reinterpret_view", [tensor_t([1, 4], D.INT32)], [ints], {"dtype": D.INT16}), ints.view(np.int16)
    )
    assert run_op("tensor.dim", [tensor_t([4, 6]), idx(-1)], [a]) == 6


def test_a_tail_slice_reads_only_its_valid_rows() -> None:
    """A tail block's window may reach past the tensor's end; only its valid region must lie inside."""
    a = rand((4, 6))
    tail = run_op("tensor.slice", [tensor_t([4, 6]), tup(4, 6), tup(2, 0), tup(2, 6)], [a])
    np.testing.assert_array_equal(tail, np.concatenate([a[2:4], np.zeros((2, 6), np.float32)]))
    with pytest.raises(ir.PyptoError, match=r"window at offsets \[2, 0\] of size \[3, 6\] is out of bounds of shape \[4, 6\]"):
        run_op("tensor.slice", [tensor_t([4, 6]), tup(4, 6), tup(2, 0), tup(3, 6)], [a])


def test_a_lower_rank_window_reads_the_trailing_axes_at_its_offsets() -> None:
    a = rand((4, 16, 64))
    src = var("src", tensor_t([4, 16, 64]))
    for shape, offset, valid, want in (
        ([64], [2, 5, 0], None, a[2, 5]),
        ([1, 64], [3, 0, 0], None, a[3, 0:1]),
        ([8, 32], [1, 4, 32], None, a[1, 4:12, 32:64]),
        ([64], [0, 15, 0], [40], a[0, 15, :40]),  # only the valid part is compared
    ):
        window = ir.op.tensor.slice(src, shape, offset, valid)
        r = var("r", window.type)
        got = run(function("f", [src], [r.type], assign(r, window), ret(r)), a).value
        np.testing.assert_array_equal(got[..., :want.shape[-1]], want)


def test_a_slice_not_in_full_rank_form_is_refused() -> None:
    with pytest.raises(ir.PyptoError, match=r"slice shape \[64\], offset \[2, 5, 0\] and valid shape \[64\] must "
                       r"each have the source's rank 3"):
        run_op("tensor.slice", [tensor_t([4, 16, 64]), tup(64), tup(2, 5, 0)], [rand((4, 16, 64))])


def test_tensor_creation() -> None:
    full = run_op("tensor.full", [tup(2, 2), f32(3.0)], [], {"dtype": D.FP32})
    np.testing.assert_array_equal(full, np.full((2, 2), 3.0, np.float32))
    np.testing.assert_array_equal(
        run_op("tensor.ci", [i32(2), tup(1, 5)], [], {"dtype": D.INT32, "descending": False}), [[2, 3, 4, 5, 6]]
    )
    created = run_op(
        "tensor.create", [tup(2, 3)], [], {"dtype": D.FP16, "layout": ir.TensorLayout.ND, "init_value": 1.0}
    )
    np.testing.assert_array_equal(created, np.ones((2, 3), np.float16))


def test_slice_is_a_view_of_its_parent() -> None:
    """Writing a slice writes the parent, as in GM (FuseCreateAssembleToSlice relies on it)."""
    t = tensor_t([4, 4])
    out = var("out", t)
    s = var("s", tensor_t([2, 4]))
    w = var("w", tensor_t([2, 4]))
    f = function(
        "f",
        [(out, ir.ParamDirection.InOut)],
        [t],
        assign(s, call("tensor.slice", [out, tup(2, 4), tup(2, 0)], None, s.type)),
        assign(w, call("tensor.write", [s, tup(1, 3), f32(42.0)], None, s.type)),
        ret(out),
    )
    got = run(f, np.zeros((4, 4), np.float32)).value
    assert got[3, 3] == 42.0 and got.sum() == 42.0


def test_assemble_writes_the_target_in_place() -> None:
    t = tensor_t([4, 4])
    target, src = var("target", t), var("src", tensor_t([2, 2]))
    r = var("r", t)
    f = function(
        "f",
        [(target, ir.ParamDirection.InOut), src],
        [t],
        assign(r, call("tensor.assemble", [target, src, tup(1, 1)], None, t)),
        ret(target),
    )
    a, b = rand((4, 4)), rand((2, 2))
    expected = a.copy()
    expected[1:3, 1:3] = b
    result = run(f, a, b)
    np.testing.assert_array_equal(result.value, expected)
    np.testing.assert_array_equal(result.outputs["target"], expected)


def test_load_store_with_valid_shape_writes_only_the_valid_region() -> None:
    t = tensor_t([8, 8])
    x, out = var("x", t), var("out", t)
    tl = ir.TileType([4, 8], D.FP32, None, None, ir.MemorySpace.Vec)
    a = var("a", tl)
    s = var("s", t)
    f = function(
        "f",
        [x, (out, ir.ParamDirection.InOut)],
        [t],
        assign(a, call("tile.load", [x, tup(2, 0), tup(4, 8), tup(3, 6)], {"target_memory": ir.MemorySpace.Vec}, tl)),
        assign(s, call("tile.store", [a, tup(4, 1), out], None, t)),
        ret(s),
    )
    xs, o = rand((8, 8)), rand((8, 8))
    expected = o.copy()
    expected[4:7, 1:7] = xs[2:5, 0:6]
    np.testing.assert_array_equal(run(f, xs, o).value, expected)


def test_clamped_load_shrinks_the_valid_region() -> None:
    t = tensor_t([6, 6])
    x, out = var("x", t), var("out", tensor_t([4, 4]))
    tl = ir.TileType([4, 4], D.FP32, None, None, ir.MemorySpace.Vec)
    a = var("a", tl)
    s = var("s", out.type)
    f = function(
        "f",
        [x, (out, ir.ParamDirection.InOut)],
        [out.type],
        assign(
            a,
            call(
                "tile.load",
                [x, tup(4, 4), tup(4, 4), tup(4, 4)],
                {"target_memory": ir.MemorySpace.Vec, "clamp": True},
                tl,
            ),
        ),
        assign(s, call("tile.store", [a, tup(0, 0), out], None, out.type)),
        ret(s),
    )
    xs = rand((6, 6))
    got = run(f, xs, np.full((4, 4), -1.0, np.float32)).value
    expected = np.full((4, 4), -1.0, np.float32)
    expected[:2, :2] = xs[4:, 4:]
    np.testing.assert_array_equal(got, expected)


def test_atomic_add_store() -> None:
    t = tensor_t([2, 2])
    x, out = var("x", t), var("out", t)
    tl = ir.TileType([2, 2], D.FP32, None, None, ir.MemorySpace.Vec)
    a, s = var("a", tl), var("s", t)
    f = function(
        "f",
        [x, (out, ir.ParamDirection.InOut)],
        [t],
        assign(a, call("tile.load", [x, tup(0, 0), tup(2, 2), tup(2, 2)], {"target_memory": ir.MemorySpace.Vec}, tl)),
        assign(s, call("tile.store", [a, tup(0, 0), out], {"atomic": ir.AtomicType.Add}, t)),
        ret(s),
    )
    xs, o = rand((2, 2)), rand((2, 2))
    np.testing.assert_allclose(run(f, xs, o).value, o + xs)


def test_array_ops() -> None:
    arr_t = ir.ArrayType(D.INT32, 4)
    arr, arr2 = var("arr", arr_t), var("arr2", arr_t)
    v = var("v", scalar_t(D.INT32))
    f = function(
        "f",
        [],
        [scalar_t(D.INT32)],
        assign(arr, call("array.create", [4], {"dtype": D.INT32}, arr_t)),
        assign(arr2, call("array.update_element", [arr, idx(2), i32(9)], None, arr_t)),
        assign(v, call("array.get_element", [arr2, idx(2)], None, scalar_t(D.INT32))),
        ret(v),
    )
    assert run(f).value == 9


def test_gather_scatter_scatter_update() -> None:
    a = rand((3, 5))
    index = np.array([[4, 0], [1, 1], [3, 2]], np.int32)
    it = tensor_t([3, 2], D.INT32)
    np.testing.assert_array_equal(
        run_op("tensor.gather", [tensor_t([3, 5]), it], [a, index], {"dim": -1}), np.take_along_axis(a, index, axis=1)
    )
    src = rand((3, 2))
    expected = a.copy()
    np.put_along_axis(expected, index, src, axis=1)
    np.testing.assert_array_equal(
        run_op("tensor.scatter", [tensor_t([3, 5]), it, tensor_t([3, 2])], [a, index, src], {"dim": -1}), expected
    )
    rows = rand((2, 5))
    expected = a.copy()
    expected[[2, 0]] = rows
    got = run_op(
        "tensor.scatter_update",
        [tensor_t([3, 5]), tensor_t([2], D.INT32), tensor_t([2, 5])],
        [a, np.array([2, 0], np.int32), rows],
        {"dim": -2},
    )
    np.testing.assert_array_equal(got, expected)
    with pytest.raises(Exception, match=r"index values must lie in \[0, 5\), got \[0, 7\]"):
        run_op("tensor.gather", [tensor_t([3, 5]), it], [a, np.array([[7, 0], [1, 1], [3, 2]], np.int32)])
