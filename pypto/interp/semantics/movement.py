"""Creation and data movement: ``create``/``full``/``ci``/``tri``, ``load``/``store``, ``move``,
``extract``, element ``read``/``write``, ``alloc`` and ``dim``.

``tile.load`` reads the requested valid window of a tensor (out-of-bounds is an error unless
``clamp=True``, which shrinks the valid region) into a tile of the requested physical shape whose
invalid part is zero. ``tile.store`` writes the tile's valid region into the tensor *in place* and
returns the same tensor; with a 4th ``shapes`` operand (after FlattenTileNdTo2D) the 2-D tile is
reshaped to that ND partition first. ``tensor.write`` is in place too; ``tile.write`` returns a new
tile. A fresh ``tensor.create`` (without ``init_value``) is unwritten until something stores to it.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from pypto.ir.datatype import DataType
from pypto.ir.enums import AtomicType, MemorySpace
from pypto.ir.types import ShapedType

from pypto.ir.numpy_dtypes import numpy_dtype
from ..errors import OpError
from ..values import ArrayValue, PtrValue, TensorValue, TileValue
from .common import (
    as_ints,
    cast_data,
    check_in_bounds,
    like,
    read,
    result_dtype,
    result_space,
    scalar_array,
    window,
)
from .table import OpContext, register


def _dtype_kwarg(ctx: OpContext) -> DataType:
    dt = ctx.kwarg("dtype")
    if dt is None:
        t = ctx.result_type
        if isinstance(t, ShapedType):
            return t.dtype
        raise OpError("needs a 'dtype' kwarg")
    return DataType(dt)


def _tile(ctx: OpContext, data: np.ndarray, dtype: DataType, valid: tuple[int, ...] | None = None) -> TileValue:
    space = ctx.kwarg("target_memory", MemorySpace.Vec)
    return TileValue(cast_data(data, dtype), dtype, valid, result_space(ctx, MemorySpace(space)))


def to_scalar(x: Any, dtype: DataType) -> Any:
    """A numpy element as a Python scalar of ``dtype``."""
    if dtype.is_bool():
        return bool(x)
    if dtype.is_float():
        return float(x)
    return int(x)


@register("tensor.create")
def _tensor_create(ctx: OpContext, shape: Any) -> TensorValue:
    dt = _dtype_kwarg(ctx)
    dims = as_ints(shape, "shape")
    init = ctx.kwarg("init_value")
    if init is not None:
        return TensorValue(np.full(dims, scalar_array(init, dt)), dt)
    return TensorValue(np.zeros(dims, dtype=numpy_dtype(dt)), dt, written=np.zeros(dims, dtype=bool))


@register("tile.create")
def _tile_create(ctx: OpContext, shape: Any) -> TileValue:
    dt = _dtype_kwarg(ctx)
    return _tile(ctx, np.zeros(as_ints(shape, "shape"), dtype=numpy_dtype(dt)), dt)


@register("tensor.full", "tile.full")
def _full(ctx: OpContext, shape: Any, value: Any) -> ArrayValue:
    dt = _dtype_kwarg(ctx)
    data = np.full(as_ints(shape, "shape"), scalar_array(value, dt))
    if ctx.name == "tensor.full":
        return TensorValue(data, dt)
    return _tile(ctx, data, dt)


def _ci_data(ctx: OpContext, start: Any, shape: Any) -> tuple[np.ndarray, DataType]:
    dt = DataType(ctx.kwarg("dtype", DataType.INT32))
    dims = as_ints(shape, "shape")
    step = -1 if ctx.kwarg("descending", False) else 1
    row = int(start) + step * np.arange(dims[-1], dtype=np.int64)
    return cast_data(np.broadcast_to(row, dims).copy(), dt), dt


@register("tensor.ci")
def _tensor_ci(ctx: OpContext, start: Any, shape: Any) -> TensorValue:
    data, dt = _ci_data(ctx, start, shape)
    return TensorValue(data, dt)


@register("tile.ci")
def _tile_ci(ctx: OpContext, start: Any, shape: Any) -> TileValue:
    data, dt = _ci_data(ctx, start, shape)
    return _tile(ctx, data, dt)


@register("tile.tri")
def _tri(ctx: OpContext, diagonal: Any, shape: Any, valid_shape: Any = None) -> TileValue:
    """Ones on and below (``upper=False``) / above the ``diagonal``-th diagonal, zeros elsewhere."""
    dt = DataType(ctx.kwarg("dtype", DataType.INT32))
    dims = as_ints(shape, "shape")
    ones = np.ones(dims, dtype=np.int64)
    data = np.triu(ones, int(diagonal)) if ctx.kwarg("upper", False) else np.tril(ones, int(diagonal))
    valid = as_ints(valid_shape, "valid_shape") if valid_shape is not None else None
    return _tile(ctx, data, dt, valid)


def _reshape_to_type(ctx: OpContext, data: np.ndarray, valid: tuple[int, ...]) -> tuple[np.ndarray, tuple[int, ...]]:
    """Merge leading dims when the declared result has lower rank than the window (2-D tiles of ND loads)."""
    t = ctx.result_type
    if not isinstance(t, ShapedType) or len(t.shape) == data.ndim:
        return data, valid
    dims = [getattr(d, "value", None) for d in t.shape]
    if len(dims) != 2 or None in dims or math.prod(dims) != data.size:
        raise OpError(f"cannot view a loaded window of shape {list(data.shape)} as {t}")
    # The valid rows stay a prefix of the merged rows only when every inner leading axis is whole.
    if any(v != s for v, s in zip(valid[1:-1], data.shape[1:-1])):
        raise OpError(f"the valid window {list(valid)} of a loaded {list(data.shape)} window is not whole merged rows")
    merged_valid = (valid[0] * math.prod(data.shape[1:-1]), valid[-1])
    return data.reshape(dims), merged_valid


@register("tile.load")
def _load(ctx: OpContext, tensor: ArrayValue, offsets: Any, shapes: Any, valid_shape: Any = None) -> TileValue:
    if not isinstance(tensor, TensorValue):
        raise OpError(f"load source must be a tensor, got {type(tensor).__name__}")
    offs = as_ints(offsets, "offsets")
    shp = as_ints(shapes, "shapes")
    valid = as_ints(valid_shape, "valid_shape") if valid_shape is not None else shp
    if not (len(offs) == len(shp) == len(valid) == tensor.data.ndim):
        raise OpError(
            f"load of a rank-{tensor.data.ndim} tensor with {len(offs)} offsets, {len(shp)} shapes, "
            f"{len(valid)} valid dims"
        )
    if any(v > s for v, s in zip(valid, shp)):
        raise OpError(f"valid_shape {list(valid)} exceeds the tile shape {list(shp)}")
    if ctx.kwarg("clamp", False):
        valid = tuple(max(0, min(v, d - o)) for v, d, o in zip(valid, tensor.data.shape, offs))
    else:
        check_in_bounds(offs, valid, tensor.data.shape, "load")
    valid = tuple(max(0, min(v, sv - o)) for v, sv, o in zip(valid, tensor.valid, offs))
    region = window(offs, valid)
    tensor.check_written(region, "the loaded tensor")
    if valid == shp:
        data = tensor.data[region].copy()
    else:
        data = np.zeros(shp, dtype=tensor.data.dtype)
        data[tuple(slice(0, v) for v in valid)] = tensor.data[region]
    data, valid = _reshape_to_type(ctx, data, valid)
    dt = result_dtype(ctx, tensor.dtype)
    return _tile(ctx, data, dt, valid)


@register("tile.store")
def _store(ctx: OpContext, tile: ArrayValue, offsets: Any, output: ArrayValue, shapes: Any = None) -> ArrayValue:
    if not isinstance(output, TensorValue):
        raise OpError(f"store target must be a tensor, got {type(output).__name__}")
    offs = as_ints(offsets, "offsets")
    src = tile.data
    if shapes is None and tile.valid == src.shape and int(ctx.kwarg("atomic", AtomicType.None_)) != AtomicType.Add:
        check_in_bounds(offs, src.shape, output.data.shape, "store")
        region = window(offs, src.shape)
        output.data[region] = cast_data(src, output.dtype)
        output.mark_written(region)
        return output
    mask = np.zeros(src.shape, dtype=bool)
    mask[tuple(slice(0, v) for v in tile.valid)] = True
    if shapes is not None:
        part = as_ints(shapes, "shapes")
        if math.prod(part) != src.size:
            raise OpError(f"store partition shape {list(part)} does not hold a tile of shape {list(src.shape)}")
        src, mask = src.reshape(part), mask.reshape(part)
    if src.ndim != output.data.ndim:
        raise OpError(f"store of a rank-{src.ndim} tile into a rank-{output.data.ndim} tensor")
    sizes = tuple(int(n) for n in (np.max(np.nonzero(mask), axis=1) + 1 if mask.any() else np.zeros(src.ndim, int)))
    check_in_bounds(offs, sizes, output.data.shape, "store")
    src, mask = src[tuple(slice(0, s) for s in sizes)], mask[tuple(slice(0, s) for s in sizes)]
    region = window(offs, sizes)
    dst = output.data[region]
    values = cast_data(src, output.dtype)
    if int(ctx.kwarg("atomic", AtomicType.None_)) == AtomicType.Add:
        output.check_written(region, "the atomically updated tensor")
        with np.errstate(all="ignore"):
            values = cast_data(dst.astype(np.float64 if output.dtype.is_float() else np.int64) + src, output.dtype)
    np.copyto(dst, values, where=mask)
    if output.written is not None:
        output.written[region] |= mask
    return output


@register("tile.move")
def _move(ctx: OpContext, src: ArrayValue) -> TileValue:
    dt = result_dtype(ctx, src.dtype)
    return _tile(ctx, read(src).copy(), dt, src.valid)


@register("tile.extract")
def _extract(ctx: OpContext, src: ArrayValue, row: Any, col: Any, shape: Any) -> TileValue:
    dims = as_ints(shape, "shape")
    data = read(src)
    if data.ndim != 2 or len(dims) != 2:
        raise OpError(f"extract needs a 2-D source and shape, got {list(data.shape)} and {list(dims)}")
    offs = (int(row), int(col))
    check_in_bounds(offs, dims, data.shape, "extract")
    valid = tuple(max(0, min(d, v - o)) for d, v, o in zip(dims, src.valid, offs))
    return _tile(ctx, data[window(offs, dims)].copy(), result_dtype(ctx, src.dtype), valid)


def _element(value: ArrayValue, indices: Any) -> tuple[int, ...]:
    idx = as_ints(indices, "indices")
    shape = value.data.shape
    if len(idx) != len(shape):
        raise OpError(f"{len(idx)} indices for a rank-{len(shape)} operand")
    for i, d in zip(idx, shape):
        if not 0 <= i < d:
            raise OpError(f"index {list(idx)} is out of bounds of shape {list(shape)}")
    return idx


@register("tensor.read", "tile.read")
def _read(ctx: OpContext, value: ArrayValue, indices: Any) -> Any:
    idx = _element(value, indices)
    if isinstance(value, TensorValue):
        value.check_written(tuple(slice(i, i + 1) for i in idx), "the read tensor")
    return to_scalar(value.data[idx], value.dtype)


@register("tensor.write")
def _tensor_write(ctx: OpContext, value: ArrayValue, indices: Any, scalar: Any) -> ArrayValue:
    idx = _element(value, indices)
    value.data[idx] = scalar_array(scalar, value.dtype)
    if isinstance(value, TensorValue) and value.written is not None:
        value.written[idx] = True
    return value


@register("tile.write")
def _tile_write(ctx: OpContext, value: ArrayValue, indices: Any, scalar: Any) -> ArrayValue:
    # In place, as the kernel's SetValue: the result shares the tile's buffer (its MemRef), so an
    # unbound write and later reads of the written tile see the element too.
    value.data[_element(value, indices)] = scalar_array(scalar, value.dtype)
    return value


@register("tile.alloc", "tensor.alloc")
def _alloc(ctx: OpContext, space: Any, size: Any) -> PtrValue:
    return PtrValue(MemorySpace(int(space)), int(size))


@register("tensor.dim")
def _dim(ctx: OpContext, value: ArrayValue, axis: Any) -> int:
    shape = value.data.shape
    a = int(axis)
    if not -len(shape) <= a < len(shape):
        raise OpError(f"axis {a} out of range for a rank-{len(shape)} tensor")
    return int(shape[a])
