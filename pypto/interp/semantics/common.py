"""Helpers shared by the op families: result construction, regions, pad values.

Dtype promotion is the op registry's own ``promote`` (``pypto.ir.ops.common``): one rule for type
deduction and execution.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pypto.ir.datatype import DataType
from pypto.ir.enums import MemorySpace, PadValue
from pypto.ir.types import ShapedType, TileType

from pypto.ir.numpy_dtypes import numpy_dtype
from ..errors import OpError
from ..values import ArrayValue, TensorValue, TileValue
from .table import OpContext


def result_dtype(ctx: OpContext, default: DataType) -> DataType:
    """The dtype the call's type declares, else ``default``."""
    t = ctx.result_type
    return t.dtype if isinstance(t, ShapedType) else default


def result_space(ctx: OpContext, default: MemorySpace | None) -> MemorySpace | None:
    """The memory space the call's type declares, else ``default``."""
    t = ctx.result_type
    if isinstance(t, TileType) and t.memory_space is not None:
        return t.memory_space
    return default


def cast_data(data: np.ndarray, dtype: DataType) -> np.ndarray:
    """``data`` converted to the numpy type of ``dtype`` (no copy when already of that type)."""
    target = numpy_dtype(dtype)
    if data.dtype == target:
        return data
    with np.errstate(all="ignore"):
        return data.astype(target)


def like(
    ctx: OpContext,
    proto: ArrayValue,
    data: np.ndarray,
    dtype: DataType | None = None,
    valid: tuple[int, ...] | None = None,
) -> ArrayValue:
    """A fresh value of the same kind as ``proto`` (tensor or tile) holding ``data``.

    The dtype is the call's declared dtype, else ``dtype``, else ``proto``'s. The valid region is
    ``valid``, else ``proto``'s when the shape is unchanged, else the whole shape.
    """
    dt = result_dtype(ctx, dtype if dtype is not None else proto.dtype)
    data = cast_data(np.asarray(data), dt)
    if valid is None:
        valid = proto.valid if data.shape == proto.data.shape else tuple(data.shape)
    if isinstance(proto, TileValue):
        return TileValue(data, dt, valid, result_space(ctx, MemorySpace.Vec))
    return TensorValue(data, dt, valid)


def read(value: Any, what: str = "operand") -> np.ndarray:
    """The data of a tensor/tile operand, checking that a tensor was written."""
    if isinstance(value, TensorValue):
        value.check_written(what=what)
        return value.data
    if isinstance(value, TileValue):
        return value.data
    raise OpError(f"{what} must be a tensor or tile, got {type(value).__name__}")


def window(offsets: tuple[int, ...], sizes: tuple[int, ...]) -> tuple[slice, ...]:
    """The index tuple selecting ``sizes`` elements from ``offsets``."""
    return tuple(slice(o, o + s) for o, s in zip(offsets, sizes))


def check_in_bounds(offsets: tuple[int, ...], sizes: tuple[int, ...], shape: tuple[int, ...], what: str) -> None:
    """``OpError`` if the window ``offsets + sizes`` leaves ``shape``."""
    if len(offsets) != len(shape) or len(sizes) != len(shape):
        raise OpError(
            f"{what}: {len(offsets)} offsets and {len(sizes)} sizes for a rank-{len(shape)} operand {list(shape)}"
        )
    for o, s, d in zip(offsets, sizes, shape):
        if o < 0 or s < 0 or o + s > d:
            raise OpError(
                f"{what}: window at offsets {list(offsets)} of size {list(sizes)} "
                f"is out of bounds of shape {list(shape)}"
            )


def pad_scalar(pad: int, dtype: DataType) -> Any:
    """The fill value of ``PadValue`` ``pad`` for ``dtype`` (max/min are the type's extremes)."""
    pad = PadValue(pad)
    if pad in (PadValue.zero, PadValue.null):
        return 0
    if dtype.is_float():
        return np.inf if pad == PadValue.max else -np.inf
    info = np.iinfo(numpy_dtype(dtype)) if not dtype.is_bool() else None
    if info is None:
        return pad == PadValue.max
    return int(info.max) if pad == PadValue.max else int(info.min)


def as_ints(value: Any, what: str) -> tuple[int, ...]:
    """A shape/offset argument (tuple of ints, or a single int) as a tuple of ints."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return (int(value),)
    if isinstance(value, tuple) and all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in value):
        return tuple(int(v) for v in value)
    raise OpError(f"{what} must be a tuple of integers, got {value!r}")


def scalar_array(value: Any, dtype: DataType) -> np.ndarray:
    """A 0-d array of ``dtype`` holding the scalar ``value``."""
    with np.errstate(all="ignore"):
        return np.asarray(value).astype(numpy_dtype(dtype))


def compute_dtype(dtype: DataType) -> np.dtype:
    """The numpy type arithmetic on ``dtype`` is carried out in (narrow floats widen to float32)."""
    if dtype.is_float() and dtype.get_bit() < 32:
        return np.dtype(np.float32)
    return numpy_dtype(dtype)
