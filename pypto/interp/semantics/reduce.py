"""Row/column reductions and row/column broadcasts of tensors and tiles.

Reductions read only the valid region of their input (data outside it is undefined on the
hardware); ``row_*`` reduce the last axis and ``col_*`` the second-to-last, keeping the rank.
Arg-reductions give INT32 indices.

Float sums and products accumulate as pto-isa does, one element after the other in index order,
rounding after each step to the accumulation type (:data:`_WIDE_ACCUMULATOR`): ``row_sum`` of
FP16/BF16 accumulates in FP32 (``TypeSum`` in the CPU model's TRowSum, rounded to the element type
at the end); ``col_sum``, ``col_prod`` and ``row_prod`` accumulate in the element type, as a2a3
does too (TCOLSUM and TCOLPROD are one ``vadd``/``vmul`` per row into the destination), so a
32-row FP16 ``col_sum`` rounds to FP16 32 times. Integer sums wrap, in any order.

``row_expand_*(t, v)`` combine ``t`` with the ``[..., M, 1]`` vector ``v`` broadcast along rows,
``col_expand_*`` with a ``[..., 1, N]`` vector; ``*_expdif`` is ``exp(t - v)``.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from pypto.ir.datatype import DataType
from pypto.ir.ops.common import promote

from ..errors import OpError
from ..values import ArrayValue
from .common import cast_data, compute_dtype, like, read, result_dtype
from .table import OpContext, register

_REDUCE: dict[str, Callable[..., np.ndarray]] = {
    "sum": np.sum,
    "max": np.max,
    "min": np.min,
    "prod": np.prod,
    "argmax": np.argmax,
    "argmin": np.argmin,
}


# Reductions whose narrow-float (FP16/BF16) accumulator is FP32; the others keep the element type.
_WIDE_ACCUMULATOR = frozenset({"row_sum"})
_STEP: dict[str, np.ufunc] = {"sum": np.add, "prod": np.multiply}


def _accumulate(x: np.ndarray, axis: int, kind: str, acc: np.dtype) -> np.ndarray:
    """``x`` reduced along ``axis`` element by element in index order, in numpy type ``acc``
    (``ufunc.accumulate`` is sequential and rounds each partial result to its dtype)."""
    partial = _STEP[kind].accumulate(x.astype(acc, copy=False), axis=axis)
    return np.take(partial, [x.shape[axis] - 1], axis=axis)


def _reduce(axis: int, kind: str) -> Callable[..., ArrayValue]:
    fn = _REDUCE[kind]
    is_arg = kind.startswith("arg")
    name = f"{'row' if axis == -1 else 'col'}_{kind}"

    def impl(ctx: OpContext, src: ArrayValue, *scratch: Any) -> ArrayValue:
        data = read(src, "operand")
        if data.ndim < 2 and axis == -2:
            raise OpError(f"column reduction needs rank >= 2, got shape {list(data.shape)}")
        if data.ndim < 1:
            raise OpError("reduction of a rank-0 operand")
        region = src.valid_data()
        if region.shape[axis] == 0:
            raise OpError(f"reduction over an empty valid region {list(src.valid)}")
        x = cast_data(region, src.dtype)
        with np.errstate(all="ignore"):
            if kind in _STEP and src.dtype.is_float():
                wide = name in _WIDE_ACCUMULATOR and src.dtype.get_bit() < 32
                out = _accumulate(x, axis, kind, np.dtype(np.float32) if wide else x.dtype)
            else:
                out = fn(x.astype(compute_dtype(src.dtype), copy=False), axis=axis, keepdims=True)
        dt = result_dtype(ctx, DataType.INT32 if is_arg else src.dtype)
        valid = list(src.valid)
        valid[axis] = 1
        full = list(data.shape)
        full[axis] = 1
        result = np.zeros(full, dtype=out.dtype)
        result[tuple(slice(0, v) for v in valid)] = out
        return like(ctx, src, cast_data(result, dt), dt, tuple(valid))

    return impl


for _kind in _REDUCE:
    register(f"tile.row_{_kind}", f"tensor.row_{_kind}")(_reduce(-1, _kind))
    register(f"tile.col_{_kind}", f"tensor.col_{_kind}")(_reduce(-2, _kind))


_EXPAND: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "add": np.add,
    "sub": np.subtract,
    "mul": np.multiply,
    "div": np.divide,
    "max": np.maximum,
    "min": np.minimum,
    "expdif": lambda a, b: np.exp(a - b),
}


def _expand(axis: int, kind: str | None) -> Callable[..., ArrayValue]:
    def impl(ctx: OpContext, target: ArrayValue, vec: ArrayValue, *scratch: Any) -> ArrayValue:
        t, v = read(target, "target"), read(vec, "vector")
        want = list(t.shape)
        want[axis] = 1
        if list(v.shape) != want:
            raise OpError(f"broadcast vector has shape {list(v.shape)}, expected {want} for target {list(t.shape)}")
        if kind is None:
            dt = result_dtype(ctx, target.dtype)
            return like(ctx, target, cast_data(np.broadcast_to(v, t.shape).copy(), dt), dt)
        dt = result_dtype(ctx, promote(target.dtype, vec.dtype))
        ct = compute_dtype(dt)
        with np.errstate(all="ignore"):
            out = _EXPAND[kind](cast_data(t, dt).astype(ct), cast_data(v, dt).astype(ct))
        return like(ctx, target, cast_data(out, dt), dt)

    return impl


for _ns in ("tile", "tensor"):
    register(f"{_ns}.row_expand")(_expand(-1, None))
    register(f"{_ns}.col_expand")(_expand(-2, None))
    for _kind in _EXPAND:
        register(f"{_ns}.row_expand_{_kind}")(_expand(-1, _kind))
        register(f"{_ns}.col_expand_{_kind}")(_expand(-2, _kind))
