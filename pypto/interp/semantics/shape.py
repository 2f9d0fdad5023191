"""Shape and view ops: ``slice``, ``reshape``, ``view``, ``reinterpret_view``, ``transpose``,
``concat``, ``assemble``, ``fillpad*`` and ``set_validshape``.

Tensor ``slice``/``reshape``/``view`` are zero-copy views of the parent buffer (a kernel writing a
slice writes its parent, as in GM); ``tensor.assemble`` writes the target in place and returns it.
Tile results are fresh values (tiles are values until memory planning gives them addresses).
Valid regions follow docs/ops.md: a slice's valid region is the requested one intersected with the
source's; ``fillpad`` fills everything outside the valid region with the pad value and makes the
whole tile valid.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from pypto.ir.datatype import DataType
from pypto.ir.enums import AtomicType, PadValue, TensorLayout
from pypto.ir.types import ShapedType

from pypto.ir.numpy_dtypes import numpy_dtype
from pypto.ir.ops.regions import RegionError, written_union
from ..errors import OpError
from ..values import ArrayValue, TensorValue, TileValue
from .common import as_ints, cast_data, check_in_bounds, like, pad_scalar, read, window
from .elementwise import convert
from .table import OpContext, register


def _declared_shape(ctx: OpContext) -> tuple[int, ...] | None:
    t = ctx.result_type
    if not isinstance(t, ShapedType):
        return None
    dims = [getattr(d, "value", None) for d in t.shape]
    return None if None in dims else tuple(dims)


def _view(ctx: OpContext, src: ArrayValue, data: np.ndarray, valid: tuple[int, ...], written: Any = None) -> ArrayValue:
    """A value of ``src``'s kind sharing ``data`` (no copy, no cast)."""
    if isinstance(src, TensorValue):
        return TensorValue(data, src.dtype, valid, written)
    return like(ctx, src, data, src.dtype, valid)


def _valid_box(mask: np.ndarray) -> tuple[int, ...]:
    """The valid region encoded by a boolean mask; ``OpError`` if it is not a leading box."""
    if not mask.any():
        return (0,) * mask.ndim
    box = tuple(int(n) for n in np.max(np.nonzero(mask), axis=1) + 1)
    if not mask[tuple(slice(0, b) for b in box)].all() or mask.sum() != math.prod(box):
        raise OpError("the valid region is not representable after this reshape")
    return box


def _mask(value: ArrayValue) -> np.ndarray:
    mask = np.zeros(value.data.shape, dtype=bool)
    mask[tuple(slice(0, v) for v in value.valid)] = True
    return mask


@register("tensor.slice", "tile.slice")
def _slice(
    ctx: OpContext, src: ArrayValue, shape: Any, offset: Any, valid_shape: Any = None, drop_dims: Any = None
) -> ArrayValue:
    dims = as_ints(shape, "shape")
    offs = as_ints(offset, "offset")
    valid = as_ints(valid_shape, "valid_shape") if valid_shape not in (None, ()) else dims
    data = src.data
    if not len(dims) == len(offs) == len(valid) == data.ndim:  # the builders write every window in full rank
        raise OpError(f"slice shape {list(dims)}, offset {list(offs)} and valid shape {list(valid)} must each have "
                      f"the source's rank {data.ndim}")
    clamp = bool(ctx.kwarg("clamp", False))
    # Only the valid region is read, so a tail block's window may reach past the source's end.
    overhang = valid != dims and any(o + d > n for o, d, n in zip(offs, dims, data.shape))
    if clamp or overhang:
        if clamp:
            keep = tuple(max(0, min(d, n - o)) for d, n, o in zip(dims, data.shape, offs))
        else:
            check_in_bounds(offs, valid, data.shape, "slice")
            keep = valid
        padded = np.zeros(dims, dtype=data.dtype)
        padded[tuple(slice(0, k) for k in keep)] = data[window(offs, keep)]
        valid = tuple(min(v, k) for v, k in zip(valid, keep))
        view, written = padded, None
    else:
        check_in_bounds(offs, dims, data.shape, "slice")
        view = data[window(offs, dims)]
        written = src.written[window(offs, dims)] if isinstance(src, TensorValue) and src.written is not None else None
    valid = tuple(max(0, min(v, sv - o)) for v, sv, o in zip(valid, src.valid, offs))
    if drop_dims not in (None, ()):
        axes = tuple(a % len(dims) for a in as_ints(drop_dims, "drop_dims"))
        if any(dims[a] != 1 for a in axes):
            raise OpError(f"drop_dims {list(axes)} must name unit dims of the slice shape {list(dims)}")
        view = view.squeeze(axes)
        written = written.squeeze(axes) if written is not None else None
        valid = tuple(v for i, v in enumerate(valid) if i not in axes)
    declared = _declared_shape(ctx)
    if isinstance(src, TileValue) and declared is not None and declared != view.shape:
        if math.prod(declared) != view.size:
            raise OpError(f"slice of shape {list(view.shape)} cannot have the declared shape {list(declared)}")
        valid = _valid_box(_mask(TileValue(view, src.dtype, valid)).reshape(declared))
        view = view.reshape(declared)
    return _view(ctx, src, view, valid, written)


def _reshape(src: ArrayValue, dims: tuple[int, ...], valid_shape: Any) -> tuple[np.ndarray, tuple[int, ...], Any]:
    if math.prod(dims) != src.data.size:
        raise OpError(f"cannot reshape tensor of size {src.data.size} into shape {list(dims)}")
    data = src.data.reshape(dims)
    written = src.written.reshape(dims) if isinstance(src, TensorValue) and src.written is not None else None
    if valid_shape not in (None, ()):
        valid = as_ints(valid_shape, "valid_shape")
    elif src.valid == src.data.shape:
        valid = dims
    else:
        valid = _valid_box(_mask(src).reshape(dims))
    return data, valid, written


@register("tensor.reshape", "tile.reshape")
def _reshape_op(ctx: OpContext, src: ArrayValue, shape: Any, valid_shape: Any = None) -> ArrayValue:
    data, valid, written = _reshape(src, as_ints(shape, "shape"), valid_shape)
    return _view(ctx, src, data, valid, written)


@register("tensor.view")
def _tensor_view(ctx: OpContext, src: ArrayValue, shape: Any = None, valid_shape: Any = None) -> ArrayValue:
    if shape is None:
        return _view(ctx, src, src.data, src.valid, src.written if isinstance(src, TensorValue) else None)
    data, valid, written = _reshape(src, as_ints(shape, "shape"), valid_shape)
    return _view(ctx, src, data, valid, written)


@register("tensor.reinterpret_view", "tile.reinterpret_view")
def _reinterpret(ctx: OpContext, src: ArrayValue, shape: Any = None) -> ArrayValue:
    dt = DataType(ctx.kwarg("dtype"))
    data = read(src, "operand")
    target = numpy_dtype(dt)
    view = getattr(ctx.call.args[0].type, "tensor_view", None)
    # A DN tensor's bytes run down its columns: reinterpret them in that order.
    dn = view is not None and view.layout == TensorLayout.DN and shape is None and data.ndim >= 2
    if dn:
        data = np.swapaxes(data, -1, -2)
    if data.dtype.itemsize != target.itemsize and data.shape[-1] * data.dtype.itemsize % target.itemsize:
        raise OpError(f"last dim of {list(data.shape)} {src.dtype} is not a whole number of {dt} elements")
    out = np.ascontiguousarray(data).view(target)
    if dn:
        data, out = np.swapaxes(data, -1, -2), np.swapaxes(out, -1, -2)
    dims = as_ints(shape, "shape") if shape is not None else _declared_shape(ctx)
    if dims is not None:
        if math.prod(dims) != out.size:
            raise OpError(f"reinterpreted data of {out.size} elements cannot have shape {list(dims)}")
        out = out.reshape(dims)
    scale = data.dtype.itemsize / target.itemsize
    axis = data.ndim - 2 if dn else data.ndim - 1
    valid = tuple(int(v * scale) if i == axis else v for i, v in enumerate(src.valid)) \
        if out.ndim == data.ndim else tuple(out.shape)
    value = like(ctx, src, out, dt, valid)
    if isinstance(value, TensorValue) and isinstance(src, TensorValue) and src.written is not None:
        src.check_written(what="the reinterpreted tensor")
    return value


@register("tensor.transpose", "tile.transpose")
def _transpose(ctx: OpContext, src: ArrayValue, axis1: Any, axis2: Any, *extra: Any) -> ArrayValue:
    data = read(src, "operand")
    a1, a2 = int(axis1), int(axis2)
    if not (-data.ndim <= a1 < data.ndim and -data.ndim <= a2 < data.ndim) or a1 % data.ndim == a2 % data.ndim:
        raise OpError(f"transpose axes {a1}, {a2} invalid for rank {data.ndim}")
    valid = list(src.valid)
    valid[a1], valid[a2] = valid[a2], valid[a1]
    return like(ctx, src, np.swapaxes(data, a1, a2).copy(), src.dtype, tuple(valid))


@register("tensor.concat", "tile.concat")
def _concat(ctx: OpContext, a: ArrayValue, b: ArrayValue) -> ArrayValue:
    x, y = read(a, "lhs"), read(b, "rhs")
    if x.ndim != 2 or y.ndim != 2 or x.shape[0] != y.shape[0]:
        raise OpError(f"concat needs 2-D operands with equal rows, got {list(x.shape)} and {list(y.shape)}")
    if a.valid[0] != b.valid[0]:
        raise OpError(f"concat needs equal valid rows, got {a.valid[0]} and {b.valid[0]}")
    # rhs's valid columns follow lhs's valid ones, as TCONCAT packs them
    out = np.zeros((x.shape[0], x.shape[1] + y.shape[1]), dtype=x.dtype)
    ca, cb = a.valid[1], b.valid[1]
    out[:, :ca] = x[:, :ca]
    out[:, ca:ca + cb] = cast_data(y[:, :cb], a.dtype)
    return like(ctx, a, out, a.dtype, (a.valid[0], ca + cb))


@register("tensor.assemble", "tile.assemble")
def _assemble(ctx: OpContext, target: ArrayValue, source: ArrayValue, offset: Any) -> ArrayValue:
    offs = as_ints(offset, "offset")
    src = source.valid_data()
    if isinstance(source, TensorValue):
        source.check_written(tuple(slice(0, v) for v in source.valid), "the assembled source")
    if src.ndim != target.data.ndim:
        raise OpError(f"assemble of a rank-{src.ndim} source into a rank-{target.data.ndim} target")
    check_in_bounds(offs, src.shape, target.data.shape, "assemble")
    region = window(offs, src.shape)
    try:
        valid = written_union(target.valid, offs, src.shape)
    except RegionError as err:
        raise OpError(str(err)) from None
    atomic = int(ctx.kwarg("atomic", AtomicType.None_)) == AtomicType.Add
    if isinstance(target, TensorValue):
        out = target
    else:
        out = like(ctx, target, target.data.copy(), target.dtype, valid)
    if atomic:
        if isinstance(target, TensorValue):
            target.check_written(region, "the atomically updated tensor")
        with np.errstate(all="ignore"):
            summed = out.data[region].astype(np.float64 if out.dtype.is_float() else np.int64) + src
        out.data[region] = cast_data(summed, out.dtype)
    else:
        out.data[region] = convert(src, source.dtype, out.dtype) if source.dtype != out.dtype else src
    if isinstance(out, TensorValue):
        out.mark_written(region)
    out.valid = valid
    return out


def _pad_value(ctx: OpContext) -> int:
    pad = int(ctx.kwarg("pad_value", PadValue.zero))
    if pad == PadValue.null:
        raise OpError("fillpad needs a pad value other than PadValue.null")
    return pad


@register("tile.fillpad", "tile.fillpad_inplace", "tensor.fillpad")
def _fillpad(ctx: OpContext, src: ArrayValue) -> ArrayValue:
    data = read(src, "operand")
    fill = pad_scalar(_pad_value(ctx), src.dtype)
    out = np.where(_mask(src), data, np.asarray(fill).astype(data.dtype))
    return like(ctx, src, out, src.dtype, tuple(data.shape))


@register("tile.fillpad_expand", "tensor.fillpad_expand")
def _fillpad_expand(ctx: OpContext, src: ArrayValue, shape: Any) -> ArrayValue:
    dims = as_ints(shape, "shape")
    data = read(src, "operand")
    if len(dims) != data.ndim or any(d < s for d, s in zip(dims, data.shape)):
        raise OpError(f"fillpad_expand shape {list(dims)} must cover the source shape {list(data.shape)}")
    fill = pad_scalar(_pad_value(ctx), src.dtype)
    out = np.full(dims, np.asarray(fill).astype(data.dtype), dtype=data.dtype)
    out[tuple(slice(0, v) for v in src.valid)] = src.valid_data()
    return like(ctx, src, out, src.dtype, dims)


@register("tile.set_validshape", "tensor.set_validshape")
def _set_validshape(ctx: OpContext, src: ArrayValue, rows: Any, cols: Any) -> ArrayValue:
    data = src.data
    if data.ndim != 2:
        raise OpError(f"set_validshape needs a 2-D operand, got {list(data.shape)}")
    valid = (int(rows), int(cols))
    if not (0 <= valid[0] <= data.shape[0] and 0 <= valid[1] <= data.shape[1]):
        raise OpError(f"valid shape {list(valid)} outside the physical shape {list(data.shape)}")
    return _view(ctx, src, data, valid, src.written if isinstance(src, TensorValue) else None)
