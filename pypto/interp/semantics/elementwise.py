"""Elementwise ops on tensors and tiles: arithmetic, bitwise, compare, select, unary math, cast.

Tensor-tensor and tile-tile ops broadcast NumPy-style and promote dtypes; tile ops with a scalar keep
the tile's dtype, tensor ops with a scalar promote with the scalar's IR dtype. Narrow floats (FP16,
BF16, FP8) are computed in float32 and rounded once per op. Integer division truncates toward zero
and fails on a zero divisor. ``tile.cmp``/``tile.cmps`` produce the packed predicate mask of the
hardware (one bit per column, little-endian within a byte, UINT8, last dim padded to a multiple of
32 bytes); ``tile.sel``/``tile.sels`` consume it. Scratch (``tmp``) operands are ignored.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from pypto.ir.datatype import DataType
from pypto.ir.ops.common import promote

from pypto.ir.numpy_dtypes import numpy_dtype
from ..errors import OpError
from ..values import ArrayValue
from .common import cast_data, compute_dtype, like, read, result_dtype, scalar_array
from .table import OpContext, register

Fn = Callable[[np.ndarray, np.ndarray, DataType], np.ndarray]


def _int_div(a: np.ndarray, b: np.ndarray, dt: DataType) -> np.ndarray:
    if dt.is_float():
        return a / b
    if np.any(b == 0):
        raise OpError("integer division by zero")
    q = np.abs(a) // np.abs(b)
    return np.where((a < 0) != (b < 0), -q, q)


def _fmod(a: np.ndarray, b: np.ndarray, dt: DataType) -> np.ndarray:
    if not dt.is_float() and np.any(b == 0):
        raise OpError("integer modulo by zero")
    return np.fmod(a, b)


def _rem(a: np.ndarray, b: np.ndarray, dt: DataType) -> np.ndarray:
    if not dt.is_float() and np.any(b == 0):
        raise OpError("integer modulo by zero")
    return np.remainder(a, b)


def _require_int(dt: DataType, what: str) -> None:
    if not (dt.is_int() or dt.is_bool()):
        raise OpError(f"{what} needs integer operands, got {dt}")


def _shift_left(a: np.ndarray, b: np.ndarray, dt: DataType) -> np.ndarray:
    _require_int(dt, "shift")
    if np.any(b < 0):
        raise OpError("negative shift count")
    return np.left_shift(a, b.astype(a.dtype))


def _shift_right(a: np.ndarray, b: np.ndarray, dt: DataType) -> np.ndarray:
    _require_int(dt, "shift")
    if np.any(b < 0):
        raise OpError("negative shift count")
    return np.right_shift(a, b.astype(a.dtype))


def _bitwise(fn: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> Fn:
    def apply(a: np.ndarray, b: np.ndarray, dt: DataType) -> np.ndarray:
        _require_int(dt, "bitwise op")
        return fn(a, b)

    return apply


_BINARY: dict[str, Fn] = {
    "add": lambda a, b, dt: a + b,
    "sub": lambda a, b, dt: a - b,
    "mul": lambda a, b, dt: a * b,
    "div": _int_div,
    "fmod": _fmod,
    "rem": _rem,
    "maximum": lambda a, b, dt: np.maximum(a, b),
    "minimum": lambda a, b, dt: np.minimum(a, b),
    "and": _bitwise(np.bitwise_and),
    "or": _bitwise(np.bitwise_or),
    "xor": _bitwise(np.bitwise_xor),
    "shl": _shift_left,
    "shr": _shift_right,
}


def _compute(fn: Fn, a: np.ndarray, b: np.ndarray, dt: DataType) -> np.ndarray:
    """Apply ``fn`` with both operands in the compute type of ``dt``; result in ``dt``'s numpy type."""
    ct = compute_dtype(dt)
    with np.errstate(all="ignore"):
        out = fn(cast_data(a, dt).astype(ct, copy=False), cast_data(b, dt).astype(ct, copy=False), dt)
    return cast_data(np.asarray(out), dt)


def _tensor_tensor(fn: Fn) -> Callable[..., ArrayValue]:
    def impl(ctx: OpContext, lhs: ArrayValue, rhs: ArrayValue, *scratch: Any) -> ArrayValue:
        a, b = read(lhs, "lhs"), read(rhs, "rhs")
        dt = result_dtype(ctx, promote(lhs.dtype, rhs.dtype))
        try:
            out = _compute(fn, a, b, dt)
        except ValueError as e:
            raise OpError(f"operand shapes {list(a.shape)} and {list(b.shape)} do not broadcast") from e
        return like(ctx, lhs, out, dt)

    return impl


def _with_scalar(fn: Fn, keep_dtype: bool) -> Callable[..., ArrayValue]:
    """``lhs op rhs`` where ``rhs`` is a tensor/tile (broadcast, promote) or a scalar.

    With a scalar the result keeps ``lhs``'s dtype when ``keep_dtype`` (tile ops), else promotes with
    the scalar's IR dtype (tensor ops).
    """
    tensor_tensor = _tensor_tensor(fn)

    def impl(ctx: OpContext, lhs: ArrayValue, rhs: Any, *scratch: Any) -> ArrayValue:
        if isinstance(rhs, ArrayValue):
            return tensor_tensor(ctx, lhs, rhs)
        sdt = ctx.arg_dtype(1)
        dt = lhs.dtype if keep_dtype or sdt is None else promote(lhs.dtype, sdt)
        dt = result_dtype(ctx, dt)
        return like(ctx, lhs, _compute(fn, read(lhs, "lhs"), scalar_array(rhs, dt), dt), dt)

    return impl


for _name, _fn in _BINARY.items():
    register(f"tile.{_name}", f"tile.{_name}s")(_with_scalar(_fn, keep_dtype=True))
    if _name in ("maximum", "minimum"):
        register(f"tensor.{_name}")(_with_scalar(_fn, keep_dtype=False))
    elif _name != "rem":
        register(f"tensor.{_name}", f"tensor.{_name}s")(_with_scalar(_fn, keep_dtype=False))


_PART: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "part_add": np.add,
    "part_mul": np.multiply,
    "part_max": np.maximum,
    "part_min": np.minimum,
}


@register(*(f"{ns}.{p}" for ns in ("tile", "tensor") for p in _PART))
def _partial(ctx: OpContext, lhs: ArrayValue, rhs: ArrayValue) -> ArrayValue:
    """Combine where both operands are valid; elsewhere take the operand that is valid there."""
    a, b = read(lhs, "lhs"), read(rhs, "rhs")
    if a.shape != b.shape:
        raise OpError(f"partial ops need equal physical shapes, got {list(a.shape)} and {list(b.shape)}")
    dt = result_dtype(ctx, promote(lhs.dtype, rhs.dtype))
    fn = _PART[ctx.name.split(".", 1)[1]]
    ct = compute_dtype(dt)
    a, b = cast_data(a, dt).astype(ct), cast_data(b, dt).astype(ct)
    in_a = _valid_mask(lhs)
    in_b = _valid_mask(rhs)
    with np.errstate(all="ignore"):
        out = np.where(in_a & in_b, fn(a, b), np.where(in_a, a, b))
    valid = tuple(max(x, y) for x, y in zip(lhs.valid, rhs.valid))
    return like(ctx, lhs, cast_data(out, dt), dt, valid)


def _valid_mask(value: ArrayValue) -> np.ndarray:
    mask = np.zeros(value.data.shape, dtype=bool)
    mask[tuple(slice(0, v) for v in value.valid)] = True
    return mask


_CMP: dict[int, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    0: np.equal,
    1: np.not_equal,
    2: np.less,
    3: np.less_equal,
    4: np.greater,
    5: np.greater_equal,
}


def _compare(ctx: OpContext, lhs: ArrayValue, rhs: Any) -> np.ndarray:
    mode = int(ctx.kwarg("cmp_type", 0))
    if mode not in _CMP:
        raise OpError(f"unknown cmp_type {mode}")
    a = _comparable(read(lhs, "lhs"))
    b = _comparable(read(rhs, "rhs")) if isinstance(rhs, ArrayValue) else rhs
    with np.errstate(all="ignore"):
        return _CMP[mode](a, b)


def _comparable(x: np.ndarray) -> np.ndarray:
    """Narrow ml_dtypes floats compare through float64."""
    return x.astype(np.float64) if x.dtype.kind == "V" or x.dtype.itemsize < 4 and x.dtype.kind == "f" else x


@register("tensor.cmp")
def _tensor_cmp(ctx: OpContext, lhs: ArrayValue, rhs: Any) -> ArrayValue:
    """0/1 values in the promoted operand dtype."""
    rdt = rhs.dtype if isinstance(rhs, ArrayValue) else (ctx.arg_dtype(1) or lhs.dtype)
    dt = result_dtype(ctx, promote(lhs.dtype, rdt))
    return like(ctx, lhs, cast_data(_compare(ctx, lhs, rhs).astype(np.int8), dt), dt)


def pack_mask(bits: np.ndarray) -> np.ndarray:
    """Pack a boolean array along its last axis: UINT8, bit j of byte k is column 8k+j, padded to 32 bytes."""
    packed = np.packbits(bits, axis=-1, bitorder="little")
    cols = -(-packed.shape[-1] // 32) * 32
    out = np.zeros(bits.shape[:-1] + (cols,), dtype=np.uint8)
    out[..., : packed.shape[-1]] = packed
    return out


def unpack_mask(mask: ArrayValue, shape: tuple[int, ...]) -> np.ndarray:
    """The boolean selection of ``shape`` encoded in a packed predicate mask tile."""
    data = mask.data
    if data.dtype != np.uint8:
        data = data.astype(np.uint8)
    if data.shape[:-1] != shape[:-1] or data.shape[-1] * 8 < shape[-1]:
        raise OpError(f"predicate mask of shape {list(data.shape)} does not cover a tile of shape {list(shape)}")
    return np.unpackbits(data, axis=-1, bitorder="little")[..., : shape[-1]].astype(bool)


@register("tile.cmp", "tile.cmps")
def _tile_cmp(ctx: OpContext, lhs: ArrayValue, rhs: Any) -> ArrayValue:
    """Bits of elements outside ``lhs``'s valid region are 0, as pto-isa's TCMP/TCMPS leave them; the
    mask is valid in whole packed rows (see the type rule)."""
    bits = _compare(ctx, lhs, rhs)
    valid = lhs.valid if bits.shape == lhs.data.shape else bits.shape
    inside = np.zeros(bits.shape, dtype=bool)
    inside[tuple(slice(0, v) for v in valid)] = True
    packed = pack_mask(bits & inside)
    return like(ctx, lhs, packed, DataType.UINT8, tuple(valid[:-1]) + (-(-bits.shape[-1] // 8),))


@register("tile.sel")
def _tile_sel(ctx: OpContext, mask: ArrayValue, lhs: ArrayValue, rhs: ArrayValue, *scratch: Any) -> ArrayValue:
    a, b = read(lhs, "lhs"), read(rhs, "rhs")
    dt = result_dtype(ctx, lhs.dtype)
    sel = unpack_mask(mask, a.shape)
    return like(ctx, lhs, np.where(sel, cast_data(a, dt), cast_data(b, dt)), dt)


@register("tile.sels")
def _tile_sels(ctx: OpContext, mask: ArrayValue, src: ArrayValue, tmp: Any, scalar: Any) -> ArrayValue:
    a = read(src, "src")
    dt = result_dtype(ctx, src.dtype)
    sel = unpack_mask(mask, a.shape)
    return like(ctx, src, np.where(sel, cast_data(a, dt), scalar_array(scalar, dt)), dt)


@register("tile.addc", "tile.addsc", "tile.subc", "tile.subsc")
def _three_operand(ctx: OpContext, a: ArrayValue, b: Any, c: ArrayValue) -> ArrayValue:
    """``a + b + c`` (addc) or ``a - b + c`` (subc: pto-isa's TSUBC/TSUBSC add the third operand);
    ``b`` is a scalar for the ``*sc`` forms. One expression in pto-isa, so narrow floats are rounded
    once, at the end (clang evaluates ``_Float16`` arithmetic in float)."""
    dt = result_dtype(ctx, a.dtype)
    first = _BINARY["sub" if ctx.name.startswith("tile.sub") else "add"]
    bb = read(b, "b") if isinstance(b, ArrayValue) else scalar_array(b, dt)
    ct = compute_dtype(dt)
    x, y, z = (cast_data(v, dt).astype(ct, copy=False) for v in (read(a, "a"), bb, read(c, "c")))
    with np.errstate(all="ignore"):
        out = first(x, y, dt) + z
    return like(ctx, a, cast_data(np.asarray(out), dt), dt)


def _unary(fn: Callable[[np.ndarray], np.ndarray], float_only: bool = False) -> Callable[..., ArrayValue]:
    def impl(ctx: OpContext, src: ArrayValue, *scratch: Any) -> ArrayValue:
        dt = result_dtype(ctx, src.dtype)
        if float_only and not dt.is_float():
            raise OpError(f"needs a floating-point operand, got {dt}")
        x = cast_data(read(src, "operand"), dt).astype(compute_dtype(dt), copy=False)
        with np.errstate(all="ignore"):
            out = fn(x)
        return like(ctx, src, cast_data(np.asarray(out), dt), dt)

    return impl


def _not(x: np.ndarray) -> np.ndarray:
    return np.invert(x)


_UNARY: dict[str, tuple[Callable[[np.ndarray], np.ndarray], bool]] = {
    "exp": (np.exp, True),
    "log": (np.log, True),
    "sin": (np.sin, True),
    "cos": (np.cos, True),
    "sqrt": (np.sqrt, True),
    "rsqrt": (lambda x: 1.0 / np.sqrt(x), True),
    "recip": (lambda x: 1.0 / x, True),
    "neg": (np.negative, False),
    "abs": (np.abs, False),
    "not": (_not, False),
}

for _name, (_fn, _float_only) in _UNARY.items():
    register(f"tile.{_name}", f"tensor.{_name}")(_unary(_fn, _float_only))

register("tile.relu")(_unary(lambda x: np.maximum(x, 0), False))


@register("tile.lrelu")
def _lrelu(ctx: OpContext, src: ArrayValue, slope: Any) -> ArrayValue:
    dt = result_dtype(ctx, src.dtype)
    x = cast_data(read(src), dt).astype(compute_dtype(dt))
    return like(ctx, src, cast_data(np.where(x > 0, x, x * slope), dt), dt)


@register("tile.prelu")
def _prelu(ctx: OpContext, src: ArrayValue, slope: ArrayValue, *scratch: Any) -> ArrayValue:
    dt = result_dtype(ctx, src.dtype)
    x = cast_data(read(src), dt).astype(compute_dtype(dt))
    s = cast_data(read(slope), dt).astype(compute_dtype(dt))
    return like(ctx, src, cast_data(np.where(x > 0, x, x * s), dt), dt)


@register("tile.expands", "tensor.expands")
def _expands(ctx: OpContext, target: ArrayValue, scalar: Any) -> ArrayValue:
    dt = result_dtype(ctx, target.dtype)
    return like(
        ctx, target, np.full(target.data.shape, scalar_array(scalar, dt), dtype=scalar_array(scalar, dt).dtype), dt
    )


@register("tensor.expand_clone")
def _expand_clone(ctx: OpContext, src: ArrayValue, target: ArrayValue) -> ArrayValue:
    try:
        out = np.broadcast_to(read(src, "src"), target.data.shape).copy()
    except ValueError as e:
        raise OpError(f"cannot broadcast {list(src.data.shape)} to {list(target.data.shape)}") from e
    return like(ctx, target, out, src.dtype)


# Cast modes (docs/ops.md#arguments): none, rint, round, floor, ceil, trunc, odd. To an integer
# they round as pto-isa's TCVT does (applyRoundingToIntegral: round is half away from zero, odd is
# nearest with ties to odd).
_ROUND: dict[int, Callable[[np.ndarray], np.ndarray]] = {
    0: np.rint,
    1: np.rint,
    2: lambda x: np.trunc(x + np.copysign(0.5, x)),
    3: np.floor,
    4: np.ceil,
    5: np.trunc,
    6: lambda x: np.where(x - np.floor(x) == 0.5, np.floor(x) + (np.floor(x) % 2 == 0), np.rint(x)),
}


def _int_range(dt: DataType) -> tuple[float, float]:
    if dt.get_bit() == 4:
        return (-8.0, 7.0) if dt.is_signed_int() else (0.0, 15.0)
    info = np.iinfo(numpy_dtype(dt))
    return float(info.min), float(info.max)


def _next_up(v: np.ndarray) -> np.ndarray:
    """The next value of ``v``'s float type towards +inf, by its bit pattern (+inf and NaN stay)."""
    width = f"u{v.dtype.itemsize}"
    bits = v.view(width).astype(np.int64)
    sign = np.int64(1) << (8 * v.dtype.itemsize - 1)
    wide = v.astype(np.float64)
    up = np.where((bits & ~sign) == 0, 1, np.where(bits & sign, bits - 1, bits + 1))
    up = np.where(np.isnan(wide) | (wide == np.inf), bits, up)
    return up.astype(width).view(v.dtype)


def _round_float(x: np.ndarray, dst: DataType, mode: int) -> np.ndarray:
    """``x`` (float64, exact) rounded to the float type ``dst`` by cast ``mode``, as TCVT's
    ``cast_rmode`` specifies (pto-isa docs/isa/TCVT.md): none/rint to nearest even, round to nearest
    with ties away from zero, floor/ceil/trunc directed, odd to the neighbour with an odd last bit."""
    target = numpy_dtype(dst)
    with np.errstate(all="ignore"):
        near = x.astype(target)
    if mode in (0, 1):
        return near
    back = near.astype(np.float64)
    lo = np.where(back > x, -_next_up(-near), near)
    hi = np.where(back < x, _next_up(near), near)
    lo64, hi64 = lo.astype(np.float64), hi.astype(np.float64)
    if mode == 3:
        out = lo
    elif mode == 4:
        out = hi
    elif mode == 5:
        out = np.where(x >= 0, lo, hi)
    elif mode == 2:
        with np.errstate(all="ignore"):
            tie = (lo64 != hi64) & (x - lo64 == hi64 - x)
        out = np.where(tie, np.where(x >= 0, hi, lo), near)
    else:
        odd_hi = (hi.view(f"u{target.itemsize}") & 1) == 1
        out = np.where(lo64 == hi64, near, np.where(odd_hi, hi, lo))
    return np.where(np.isnan(x), near, out).astype(target)


def cast_array(x: np.ndarray, src: DataType, dst: DataType, mode: int) -> np.ndarray:
    """Convert ``x`` from ``src`` to ``dst`` in one native step: float -> int rounds by ``mode`` and
    saturates; an inexact conversion to a float rounds by ``mode`` too."""
    if mode not in _ROUND:
        raise OpError(f"unknown cast mode {mode}")
    if src.is_float() and (dst.is_int() or dst.is_bool()):
        with np.errstate(all="ignore"):
            rounded = _ROUND[mode](x.astype(np.float64))
        if dst.is_bool():
            return rounded != 0
        lo, hi = _int_range(dst)
        rounded = np.nan_to_num(np.clip(rounded, lo, hi), nan=0.0)
        return rounded.astype(np.int64).astype(numpy_dtype(dst))
    if dst.is_float() and not dst.is_bool() and (src.get_bit() >= dst.get_bit() or not src.is_float()):
        return _round_float(x.astype(np.float64), dst, mode)
    return cast_data(x, dst)


def cast_steps(src: DataType, dst: DataType) -> list[DataType]:
    """The dtypes of the native conversions LegalizeTileCast chains for ``src -> dst`` on the pass
    context's platform, as the pass reads it (``[dst]`` when the pair is native or no chain exists:
    the pass reports that)."""
    from pypto.transform.context import PassContext

    return PassContext.current().platform.cast_chain(src, dst) or [dst]


@register("tile.cast", "tensor.cast")
def _cast(ctx: OpContext, src: ArrayValue) -> ArrayValue:
    target = ctx.kwarg("target_type")
    if target is None:
        raise OpError("cast needs the 'target_type' kwarg")
    dst = DataType(target)
    return like(ctx, src, convert(read(src, "operand"), src.dtype, dst, int(ctx.kwarg("mode", 2))), dst)


def convert(data: np.ndarray, src: DataType, dst: DataType, mode: int = 2) -> np.ndarray:
    """``data`` cast from ``src`` to ``dst`` by ``mode`` (default round), as ``tile.cast`` does it."""
    # Each native step rounds, as the chain LegalizeTileCast builds does on the vector unit.
    out, here = data, src
    for step in cast_steps(src, dst):
        out, here = cast_array(out, here, step, mode), step
    return out
