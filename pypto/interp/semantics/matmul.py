"""Matrix products: ``tensor.matmul[_acc]``, ``tile.matmul[_acc|_bias]``, batched and gemv forms.

Float operands are multiplied in float32 (float64 for FP32 inputs, then rounded once), integer
operands in int64; the result is converted to the declared dtype (FP32 / INT32 accumulators for
tiles). Tile products use the operands' valid regions: ``lhs[:m, :k] @ rhs[:k, :n]``, so padding
outside the valid K range never contributes. ``init_cond`` true makes ``*_acc`` ignore the
accumulator. ``tile.transpose_view`` is the zero-copy transposed view.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pypto.ir.datatype import DataType
from pypto.ir.ops.common import promote

from ..errors import OpError
from ..values import ArrayValue
from .common import cast_data, like, read, result_dtype
from .table import OpContext, register


def _acc_dtype(a: DataType, b: DataType) -> DataType:
    return DataType.FP32 if a.is_float() or b.is_float() else DataType.INT32


def _wide(x: np.ndarray, dt: DataType) -> np.ndarray:
    return cast_data(x, dt).astype(np.float64 if dt.is_float() else np.int64)


def _product(a: np.ndarray, adt: DataType, b: np.ndarray, bdt: DataType) -> np.ndarray:
    try:
        return np.matmul(_wide(a, adt), _wide(b, bdt))
    except ValueError as e:
        raise OpError(f"matmul operand shapes {list(a.shape)} and {list(b.shape)} do not match") from e


def _maybe_t(x: np.ndarray, flag: Any, what: str) -> np.ndarray:
    if not flag:
        return x
    if x.ndim < 2:
        raise OpError(f"{what}: transpose flag on a 1-D operand")
    return np.swapaxes(x, -1, -2)


@register("tensor.matmul")
def _tensor_matmul(ctx: OpContext, lhs: ArrayValue, rhs: ArrayValue) -> ArrayValue:
    a = _maybe_t(read(lhs, "lhs"), ctx.kwarg("a_trans", False), "a_trans")
    b = _maybe_t(read(rhs, "rhs"), ctx.kwarg("b_trans", False), "b_trans")
    out_dtype = ctx.kwarg("out_dtype")
    dt = result_dtype(ctx, DataType(out_dtype) if out_dtype is not None else promote(lhs.dtype, rhs.dtype))
    return like(ctx, lhs, cast_data(_product(a, lhs.dtype, b, rhs.dtype), dt), dt)


def _accumulate(ctx: OpContext, acc: ArrayValue, product: np.ndarray, init_cond: Any) -> ArrayValue:
    dt = result_dtype(ctx, acc.dtype)
    if init_cond is not None and bool(init_cond):
        total = product
    else:
        base = read(acc, "acc")
        if base.shape != product.shape:
            raise OpError(f"accumulator shape {list(base.shape)} does not match product shape {list(product.shape)}")
        total = _wide(base, acc.dtype) + product
    return like(ctx, acc, cast_data(total, dt), dt, acc.valid)


@register("tensor.matmul_acc")
def _tensor_matmul_acc(
    ctx: OpContext, acc: ArrayValue, lhs: ArrayValue, rhs: ArrayValue, init_cond: Any = None
) -> ArrayValue:
    a = _maybe_t(read(lhs, "lhs"), ctx.kwarg("a_trans", False), "a_trans")
    b = _maybe_t(read(rhs, "rhs"), ctx.kwarg("b_trans", False), "b_trans")
    return _accumulate(ctx, acc, _product(a, lhs.dtype, b, rhs.dtype), init_cond)


def _tile_product(lhs: ArrayValue, rhs: ArrayValue) -> tuple[np.ndarray, tuple[int, ...]]:
    """``lhs @ rhs`` over the valid regions, padded to the physical ``[..., M, N]``; and its valid region."""
    a, b = read(lhs, "lhs"), read(rhs, "rhs")
    if a.ndim < 2 or b.ndim < 2:
        raise OpError(f"tile matmul needs rank >= 2 operands, got {list(a.shape)} and {list(b.shape)}")
    if a.shape[-1] != b.shape[-2]:
        raise OpError(
            f"tile matmul requires matching physical inner dimensions, got {list(a.shape)} and {list(b.shape)}"
        )
    m, k = lhs.valid[-2], lhs.valid[-1]
    kb, n = rhs.valid[-2], rhs.valid[-1]
    if kb < k:
        raise OpError(f"rhs valid K ({kb}) does not cover lhs valid K ({k})")
    prod = _product(a[..., :m, :k], lhs.dtype, b[..., :k, :n], rhs.dtype)
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    full = np.zeros(batch + (a.shape[-2], b.shape[-1]), dtype=prod.dtype)
    full[..., :m, :n] = prod
    return full, batch + (m, n)


@register("tile.matmul", "tile.batch_matmul", "tile.gemv")
def _tile_matmul(ctx: OpContext, lhs: ArrayValue, rhs: ArrayValue) -> ArrayValue:
    prod, valid = _tile_product(lhs, rhs)
    dt = result_dtype(ctx, _acc_dtype(lhs.dtype, rhs.dtype))
    return like(ctx, lhs, cast_data(prod, dt), dt, valid)


@register("tile.matmul_acc", "tile.batch_matmul_acc", "tile.gemv_acc")
def _tile_matmul_acc(
    ctx: OpContext, acc: ArrayValue, lhs: ArrayValue, rhs: ArrayValue, init_cond: Any = None
) -> ArrayValue:
    prod, _ = _tile_product(lhs, rhs)
    if ctx.name == "tile.gemv_acc" and prod.shape[-2] < acc.data.shape[-2]:
        # A [1, K] lhs into a taller accumulator valid over [1, N]: the rows below add nothing.
        prod = np.pad(prod, [(0, 0)] * (prod.ndim - 2) + [(0, acc.data.shape[-2] - prod.shape[-2]), (0, 0)])
    return _accumulate(ctx, acc, prod, init_cond)


@register("tile.matmul_bias", "tile.gemv_bias")
def _tile_matmul_bias(ctx: OpContext, lhs: ArrayValue, rhs: ArrayValue, bias: ArrayValue) -> ArrayValue:
    prod, valid = _tile_product(lhs, rhs)
    bias_data = read(bias, "bias")
    if bias_data.shape[-1] != prod.shape[-1]:
        raise OpError(f"bias shape {list(bias_data.shape)} does not match the product's N ({prod.shape[-1]})")
    dt = result_dtype(ctx, _acc_dtype(lhs.dtype, rhs.dtype))
    return like(ctx, lhs, cast_data(prod + _wide(bias_data, bias.dtype), dt), dt, valid)


@register("tile.transpose_view")
def _transpose_view(ctx: OpContext, src: ArrayValue) -> ArrayValue:
    data = read(src, "operand")
    if data.ndim < 2:
        raise OpError(f"transpose_view needs a tile of rank >= 2, got {list(data.shape)}")
    valid = (*src.valid[:-2], src.valid[-1], src.valid[-2])
    return like(ctx, src, np.swapaxes(data, -1, -2), src.dtype, valid)
