"""Shape arithmetic shared by tensor and tile view ops: slice, reshape, transpose, concat, ...

Each function returns dims / valid regions; the family module wraps them in its result type.
"""

from __future__ import annotations

from ..datatype import DataType
from ..enums import PadValue, TensorLayout
from ..expr import Call, Expr, MakeTuple
from ..op_registry import CallInfo
from ..scalar_ops import mul as scalar_mul
from ..types import TensorType, TensorView, TileType
from .common import (
    axis_value,
    clip_window,
    const_value,
    dim_add,
    dim_equal,
    dims_equal,
    elements,
    format_dims,
    index,
    is_fully_valid,
    normalize_axis,
    product,
    valid_shape,
)
from .regions import RegionError, reshaped_box, written_union

Shaped = TensorType | TileType

D = DataType
REINTERPRET_DTYPES = (
    D.INT8, D.INT16, D.INT32, D.INT64, D.UINT8, D.UINT16, D.UINT32, D.UINT64, D.FP16, D.BF16, D.FP32,
)


def full_rank_window(ci: CallInfo) -> list[Expr] | None:
    """``slice(src, shape, offset[, valid_shape])`` with a ``shape`` of fewer axes than ``src`` as the
    IR's full-rank form (docs/ops.md#lower-rank-windows), or None when ``shape`` is not of lower rank.

    The window covers the source's trailing axes; each leading axis is a unit axis at its offset,
    listed in ``drop_dims``: a ``[64]`` window of a ``[4, 16, 64]`` tensor at ``[i, j, 0]`` is
    ``slice(t, [1, 1, 64], [i, j, 0], [], [0, 1])``.
    """
    rank, dims = len(ci.args[0].type.shape), elements(ci, "shape")
    if not 0 < len(dims) < rank:
        return None
    lead = rank - len(dims)
    offs = elements(ci, "offset")
    example = format_dims([index(0)] * lead + offs[-len(dims):] if len(offs) >= len(dims) else [index(0)] * rank)
    if len(offs) != rank:
        ci.fail(f"'offset' must have {rank} elements (the source rank), got {len(offs)}",
                hint=f"a {format_dims(dims)} window covers the source's trailing "
                f"{'axis' if len(dims) == 1 else f'{len(dims)} axes'} and starts at an offset on every axis, "
                f"e.g. {example}")
    if ci["drop_dims"] is not None and elements(ci, "drop_dims"):
        ci.fail(f"'drop_dims' needs a 'shape' of the source rank {rank}, got {format_dims(dims)}",
                hint=f"write the window as {format_dims([index(1)] * lead + dims)} and list every axis to drop")
    valid = elements(ci, "valid_shape") if ci["valid_shape"] is not None else []
    if valid and len(valid) != len(dims):
        ci.fail(f"'valid_shape' must have {len(dims)} elements (the window rank), got {len(valid)}")
    units, span = [index(1)] * lead, ci["shape"].span
    return [ci.args[0], MakeTuple(units + dims, span), ci["offset"], MakeTuple(units + valid if valid else [], span),
            MakeTuple([index(axis) for axis in range(lead)], span)]


def slice_result(ci: CallInfo, src: Shaped, clamp: bool) -> tuple[list[Expr], list[Expr]]:
    """``(dims, valid)`` of ``slice(src, shape, offset[, valid_shape[, drop_dims]])``.

    The valid region is the requested one intersected with the source's; dropped axes (static unit
    dims) are removed from both.
    """
    rank = len(src.shape)
    dims, offs = elements(ci, "shape"), elements(ci, "offset")
    for name, lst in (("shape", dims), ("offset", offs)):
        if len(lst) != rank:
            ci.fail(f"'{name}' must have {rank} elements (the source rank), got {len(lst)}")
    for axis, off in enumerate(offs):
        value = const_value(off)
        if value is not None and value < 0:
            ci.fail(f"'offset' must not be negative; axis {axis} has offset {value}")
    requested = elements(ci, "valid_shape") if ci["valid_shape"] is not None else []
    if not requested:
        requested = dims
    elif len(requested) != rank:
        ci.fail(f"'valid_shape' must have {rank} elements, got {len(requested)}")
    valid = clip_window(ci, src, offs, dims, requested, clamp)
    dropped: set[int] = set()
    if ci["drop_dims"] is not None:
        for e in elements(ci, "drop_dims"):
            axis = const_value(e)
            if axis is None:
                ci.fail("'drop_dims' must hold constant axes")
            axis = normalize_axis(ci, "drop_dims axis", axis, rank)
            if axis in dropped:
                ci.fail(f"'drop_dims' names axis {axis} twice")
            if const_value(dims[axis]) != 1:
                ci.fail(f"can only drop static unit dims; axis {axis} has extent {format_dims([dims[axis]])}")
            dropped.add(axis)
    keep = [i for i in range(rank) if i not in dropped]
    return [dims[i] for i in keep], [valid[i] for i in keep]


def written_valid(ci: CallInfo, target: Shaped, offsets: list[Expr], sizes: list[Expr]) -> list[Expr]:
    """The target's valid region after writing a window of ``sizes`` at ``offsets``: the union of the two
    (:func:`regions.written_union`). With run-time extents the region is widened axis by axis where the
    constants allow and kept otherwise; a fully valid target stays fully valid."""
    valid = valid_shape(target)
    if is_fully_valid(target):
        return valid
    known = [const_value(e) for e in valid + offsets + sizes]
    if None not in known:
        rank = len(valid)
        try:
            return [index(n) for n in written_union(known[:rank], known[rank:2 * rank], known[2 * rank:])]
        except RegionError as err:
            ci.fail(str(err), hint="write the windows in order from the origin, or set the target's valid region "
                    "with set_validshape first")
    out = []
    for v, off, size, dim in zip(valid, offsets, sizes, target.shape):
        cv, co, cs, cd = const_value(v), const_value(off), const_value(size), const_value(dim)
        out.append(v if None in (cv, co, cs, cd) else index(min(cd, max(cv, co + cs))))
    return out


def reshape_valid(ci: CallInfo, src: Shaped, dims: list[Expr], drop: bool = False) -> list[Expr] | None:
    """The valid region carried through a reshape (None = fully valid); static counts must match.

    With static extents the region maps exactly (:func:`regions.reshaped_box`: unit axes added or
    removed, an empty region, a row prefix that ends on a row of the new shape). With run-time ones a
    row prefix over the same trailing axes is carried. A distributed region (narrowing more than the
    leading axis) with no box image is dropped when ``drop`` (tensors, as the established API does);
    any other region without one is an error.
    """
    old, new = product(list(src.shape)), product(dims)
    if old is not None and new is not None and old != new:
        ci.fail(f"cannot reshape tensor of size {old} into shape {format_dims(dims)} (size {new})")
    if is_fully_valid(src):
        return None
    valid, shape = valid_shape(src), list(src.shape)
    known = [const_value(e) for e in valid + shape + dims]
    if None not in known:
        rank = len(valid)
        box = reshaped_box(known[:rank], known[rank:2 * rank], known[2 * rank:])
        if box is not None:
            return [index(n) for n in box]
    elif dims_equal(valid[1:], shape[1:]) and len(dims) == len(shape) and dims_equal(dims[1:], shape[1:]):
        return [valid[0]] + dims[1:]
    if drop and is_distributed(src):
        return None
    ci.fail(
        f"cannot carry the valid region {format_dims(valid)} of {format_dims(shape)} "
        f"into shape {format_dims(dims)}; pass valid_shape explicitly"
    )


def is_distributed(src: Shaped) -> bool:
    """Does the valid region narrow more than the leading axis?"""
    return not dims_equal(valid_shape(src)[1:], list(src.shape)[1:])


def transposed_view(src: TensorType, dims: list[Expr], a1: int, a2: int, given: list[Expr]) -> TensorType:
    """``tensor.transpose``'s result: a strided view of the same data, its strides swapped (row-major
    ones when the source has none); swapping the last two axes flips the layout ND <-> DN. The valid
    region is swapped too, except a distributed one, which is dropped (as the established API does)."""
    view = src.tensor_view
    strides = list(view.stride) if view is not None and view.stride else row_major_strides(list(src.shape))
    layout = view.layout if view is not None else TensorLayout.ND
    if {a1, a2} == {len(dims) - 2, len(dims) - 1}:
        layout = {TensorLayout.ND: TensorLayout.DN, TensorLayout.DN: TensorLayout.ND}.get(layout, layout)
    valid = given or ([] if is_distributed(src) else swapped(valid_shape(src), a1, a2))
    valid = [] if dims_equal(valid, dims) else valid
    pad = view.pad if view is not None else PadValue.null
    strides = swapped(strides, a1, a2)
    if layout == TensorLayout.ND and dims_equal(strides, row_major_strides(dims)):
        strides = []  # back to contiguous (a transpose undone): the plain type
    if not strides and layout == TensorLayout.ND and not valid and pad == PadValue.null:
        return TensorType(dims, src.dtype)
    return TensorType(dims, src.dtype, None, TensorView(stride=strides, layout=layout, valid_shape=valid, pad=pad))


def row_major_strides(shape: list[Expr]) -> list[Expr]:
    """Element strides of a contiguous row-major tensor of ``shape``."""
    out: list[Expr] = [index(1)]
    for dim in reversed(shape[1:]):
        a, b = const_value(out[0]), const_value(dim)
        out.insert(0, index(a * b) if a is not None and b is not None else scalar_mul(out[0], dim))
    return out


def transpose_axes(ci: CallInfo, rank: int) -> tuple[int, int]:
    if rank < 2:
        ci.fail(f"requires rank >= 2, got rank {rank}")
    a1 = normalize_axis(ci, "axis1", axis_value(ci, "axis1"), rank)
    a2 = normalize_axis(ci, "axis2", axis_value(ci, "axis2"), rank)
    if a1 == a2:
        ci.fail(f"axes must differ, got {a1} and {a2}")
    return a1, a2


def swapped(lst: list[Expr], a1: int, a2: int) -> list[Expr]:
    out = list(lst)
    out[a1], out[a2] = out[a2], out[a1]
    return out


def concat_dims(ci: CallInfo, a: Shaped, b: Shaped) -> list[Expr]:
    """``[M, Na + Nb]`` of two 2-D operands with equal dtype and rows."""
    if len(a.shape) != 2 or len(b.shape) != 2:
        ci.fail(f"requires 2-D operands, got {format_dims(a.shape)} and {format_dims(b.shape)}")
    if a.dtype != b.dtype:
        ci.fail(f"requires equal dtypes, got {a.dtype.name} and {b.dtype.name}")
    ra, rb = const_value(a.shape[0]), const_value(b.shape[0])
    if not dim_equal(a.shape[0], b.shape[0]) and not (ra is None or rb is None):
        ci.fail(f"requires equal row counts, got {ra} and {rb}")
    return [a.shape[0], dim_add(a.shape[1], b.shape[1])]


def set_valid(ci: CallInfo, src: Shaped) -> list[Expr]:
    """``[rows, cols]`` for ``set_validshape``: 2-D source, integer values, constants within the shape."""
    if len(src.shape) != 2:
        ci.fail(f"requires a 2-D operand, got {format_dims(src.shape)}")
    out = []
    for name, dim in (("valid_rows", src.shape[0]), ("valid_cols", src.shape[1])):
        e = ci[name]
        if not e.type.dtype.is_int():
            ci.fail(f"'{name}' must be an integer scalar, got {e.type.dtype.name}")
        v, d = const_value(e), const_value(dim)
        if v is not None and (v < 0 or (d is not None and v > d)):
            ci.fail(f"'{name}' {v} is outside [0, {format_dims([dim])[1:-1]}]")
        out.append(e)
    return out


def expand_dims(ci: CallInfo, src: Shaped) -> list[Expr]:
    """The static target shape of ``fillpad_expand``: same rank, each dim >= the source's."""
    dims = elements(ci, "shape")
    if len(dims) != len(src.shape):
        ci.fail(f"'shape' must have rank {len(src.shape)}, got {format_dims(dims)}")
    for d, s in zip(dims, src.shape):
        dv, sv = const_value(d), const_value(s)
        if dv is None:
            ci.fail(f"'shape' must be static, got {format_dims(dims)}")
        if sv is not None and dv < sv:
            ci.fail(f"'shape' {format_dims(dims)} must be >= the source shape {format_dims(src.shape)}")
    return dims


def check_pad(ci: CallInfo) -> None:
    if ci.kw("pad_value") == PadValue.null:
        ci.fail("pad_value must not be PadValue.null")


def pad_without_effect(call: Call) -> str | None:
    """A slice's ``pad_value`` is read only where the window is partly invalid: say so when it is fully valid."""
    pad = call.kwargs.get("pad_value")
    t = call.type
    view = t.tensor_view if isinstance(t, TensorType) else t.tile_view if isinstance(t, TileType) else None
    if pad is None or pad == PadValue.null or view is None or view.valid_shape:
        return None
    return (f"{call.op.name}: pad_value={pad.name} has no effect: the window is fully valid, so no padding is "
            "read; give valid_shape (smaller than shape) to pad the rest, or drop pad_value")


def reinterpret_dims(ci: CallInfo, src: Shaped, dn: bool) -> list[Expr]:
    """Dims after reinterpreting the bytes as ``dtype``: the last (ND) or penultimate (DN) axis scales."""
    dtype = ci.kw("dtype")
    for what, d in (("source", src.dtype), ("target", dtype)):
        if d not in REINTERPRET_DTYPES:
            ci.fail(f"{what} dtype {d.name} cannot be reinterpreted (8/16/32/64-bit ints, FP16, BF16, FP32)")
    if dtype == src.dtype:
        ci.fail(f"dtype must differ from the source dtype {dtype.name}")
    if ci["shape"] is not None:
        dims = elements(ci, "shape")
        old, new = product(list(src.shape)), product(dims)
        if old is not None and new is not None and old * src.dtype.get_byte() != new * dtype.get_byte():
            ci.fail(f"shape {format_dims(dims)} of {dtype.name} does not cover the same bytes as the source")
        return dims
    dims = list(src.shape)
    axis = scaled_axis(dims, dn)
    dims[axis] = _scaled(ci, dims[axis], src.dtype, dtype, "axis")
    return dims


def scaled_axis(dims: list[Expr], dn: bool) -> int:
    """The axis a reinterpretation scales: the contiguous one, last (ND) or penultimate (DN)."""
    return -2 if dn and len(dims) >= 2 else -1


def _scaled(ci: CallInfo, extent: Expr, old: DataType, new: DataType, what: str) -> Expr:
    """``extent`` elements of ``old`` counted as ``new`` elements (static, a whole number of them)."""
    n = const_value(extent)
    if n is None:
        ci.fail(f"the scaled {what} must be static; pass shape explicitly")
    if n * old.get_byte() % new.get_byte():
        ci.fail(f"{what} of {n} {old.name} does not divide into {new.name} elements")
    return index(n * old.get_byte() // new.get_byte())


def reinterpret_view(ci: CallInfo, src: Shaped, dn: bool, dims: list[Expr]) -> tuple[list[Expr], list[Expr], PadValue]:
    """The valid region, strides and pad of a reinterpreted view: the scaled axis's valid extent and the
    other axes' strides (in elements) scale by the width ratio; a zero pad stays zero, any other pad means
    nothing in the new dtype and is dropped. The scaled axis must be contiguous (stride 1)."""
    view = src.tensor_view if isinstance(src, TensorType) else src.tile_view
    new = ci.kw("dtype")
    if view is None or ci["shape"] is not None:
        return [], [], PadValue.null
    axis = scaled_axis(list(src.shape), dn)
    strides = list(view.stride)
    if strides and const_value(strides[axis]) != 1:
        ci.fail(f"a strided view (stride {format_dims(strides)}) cannot be reinterpreted: its "
                f"{'penultimate' if dn else 'last'} axis is not contiguous", hint="copy it to a packed tensor first")
    strides = [d if i == len(strides) + axis else _scaled(ci, d, src.dtype, new, "stride")
               for i, d in enumerate(strides)]
    valid = list(view.valid_shape)
    if valid:
        valid[axis] = _scaled(ci, valid[axis], src.dtype, new, "valid extent")
    return valid, strides, view.pad if view.pad == PadValue.zero else PadValue.null


def split_dims(ci: CallInfo, dims: list[Expr], gather: bool) -> list[Expr]:
    """Dims after ``aiv_shard`` (split axis halved) or ``aic_gather`` (doubled).

    Split 1/3 act on rows (axis -2), 2/4 on columns (axis -1); 3/4 allow an odd extent (ceil half).
    """
    split = ci.kw("split")
    if split == 0:
        return list(dims)
    if len(dims) < 2:
        ci.fail(f"split {split} requires rank >= 2, got {format_dims(dims)}")
    axis = -2 if split in (1, 3) else -1
    extent = const_value(dims[axis])
    out = list(dims)
    if gather:
        if split in (3, 4):
            ci.fail(f"split {split} (odd extent) cannot be gathered")
        out[axis] = index(extent * 2) if extent is not None else dim_add(dims[axis], dims[axis])
        return out
    if extent is None:
        ci.fail("the split axis must be static")
    if split in (1, 2) and extent % 2:
        ci.fail(f"split {split} needs an even extent, got {extent} (use split {split + 2} for odd extents)")
    out[axis] = index((extent + 1) // 2)
    return out
