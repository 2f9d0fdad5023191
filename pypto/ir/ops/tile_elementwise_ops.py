"""Tile elementwise operators (docs/ops.md#tile-ops): vector-core ops whose results go to Vec.

Tile-tile forms broadcast and promote; tile-scalar forms keep the tile's dtype; results keep the
lhs valid region and (vector-side) layout.
"""

from __future__ import annotations

import functools
from typing import Any, Callable

from ..datatype import DataType
from ..expr import ConstFloat, Expr
from ..op_registry import CallInfo
from ..type_base import ScalarType, Type
from ..types import TileType
from . import kwtypes as K
from .common import (
    ABS_DTYPES,
    FLOAT_16_32,
    FLOAT_MATH_DTYPES,
    PART_DTYPES,
    INT_16,
    VECTOR_DTYPES,
    broadcast,
    check_binary_operands,
    check_dtype,
    const_value,
    dims_equal,
    format_dims,
    index,
    like_tile,
    promote,
    result_space,
    tile_type,
    unary_rule,
    valid_shape,
)
from .decl import SCRATCH, VECTOR, define, kw, scalar, tile, vec
from .normalize import element_dtype, retype_scalar
from .tensor_ops import check_cast

D = DataType
Rule = Callable[[CallInfo], Type]
DIV_DTYPES = (D.INT16, D.INT32, D.FP16, D.FP32)
SUBS_DTYPES = (D.INT8, D.INT16, D.INT32, D.FP16, D.FP32, D.BF16)


def binary_rule(*, bitwise: bool = False, shift: bool = False, div: bool = False,
                allowed_scalar: tuple[DataType, ...] | None = None) -> Rule:
    """Tile-tile: broadcast, promoted dtype (div: equal dtypes and shapes); tile-scalar: keeps lhs dtype."""

    def deduce(ci: CallInfo) -> Type:
        lt, rt = ci["lhs"].type, ci["rhs"].type
        check_binary_operands(ci, bitwise=bitwise, shift=shift)
        if isinstance(rt, ScalarType):
            if allowed_scalar is not None:
                check_dtype(ci, "lhs", lt.dtype, allowed_scalar)
            return like_tile(lt, space=result_space(ci))
        if div:
            check_dtype(ci, "div", lt.dtype, DIV_DTYPES)
            if lt.dtype != rt.dtype:
                ci.fail(f"requires equal dtypes, got {lt.dtype.name} and {rt.dtype.name}")
            if not dims_equal(list(lt.shape), list(rt.shape)) or not dims_equal(valid_shape(lt), valid_shape(rt)):
                ci.fail(f"requires equal physical and valid shapes, got {format_dims(lt.shape)} "
                        f"(valid {format_dims(valid_shape(lt))}) and {format_dims(rt.shape)} "
                        f"(valid {format_dims(valid_shape(rt))})")
        dims = broadcast(ci, list(lt.shape), list(rt.shape))
        return like_tile(lt, shape=dims, dtype=lt.dtype if shift else promote(lt.dtype, rt.dtype),
                         space=result_space(ci))

    deduce.__doc__ = "Tile-tile: broadcast shape, promoted dtype; tile-scalar: the lhs type" + (
        " (integers only)" if bitwise else "") + "."
    return deduce


ARITH = binary_rule()
BITWISE = binary_rule(bitwise=True)
SHIFT = binary_rule(bitwise=True, shift=True)
HP = kw("high_precision", K.BOOL, False, always=False)

# Each has a tile-tile form and a tile-scalar form (name + "s").
for _name in ("add", "sub", "mul", "div", "maximum", "minimum", "fmod"):
    define(f"tile.{_name}", [tile("lhs"), tile("rhs")], binary_rule(div=_name == "div"), placement=VECTOR,
           memory=vec(0, 1), kwargs=[HP] if _name == "div" else [])
    define(f"tile.{_name}s", [tile("lhs"), scalar("rhs", pair="lhs")],
           binary_rule(allowed_scalar=SUBS_DTYPES if _name == "sub" else None), placement=VECTOR,
           memory=vec(0))

for _name, _rule in (("and", BITWISE), ("or", BITWISE), ("shl", SHIFT), ("shr", SHIFT)):
    define(f"tile.{_name}", [tile("lhs"), tile("rhs")], _rule, placement=VECTOR, memory=vec(0, 1))
    define(f"tile.{_name}s", [tile("lhs"), scalar("rhs", pair="lhs", bitwise=True)], _rule, placement=VECTOR,
           memory=vec(0))

TMP = tile("tmp", effect=SCRATCH)
define("tile.xor", [tile("lhs"), tile("rhs"), TMP], BITWISE, placement=VECTOR, memory=vec(0, 1, 2))
define("tile.xors", [tile("lhs"), scalar("rhs", pair="lhs", bitwise=True), TMP], BITWISE, placement=VECTOR,
       memory=vec(0, 2))
define("tile.rem", [tile("lhs"), tile("rhs"), TMP], ARITH, placement=VECTOR, memory=vec(0, 1, 2))
define("tile.rems", [tile("lhs"), scalar("rhs", pair="lhs"), TMP], ARITH, placement=VECTOR, memory=vec(0, 2))


def _part(ci: CallInfo) -> Type:
    """Partial op over the union of two tiles: each dim the larger of the two; promoted dtype."""
    lt, rt = ci["lhs"].type, ci["rhs"].type
    if len(lt.shape) != len(rt.shape):
        ci.fail(f"requires equal ranks, but got {format_dims(lt.shape)} and {format_dims(rt.shape)}")
    dims = []
    for a, b in zip(lt.shape, rt.shape):
        ca, cb = const_value(a), const_value(b)
        if ca is None or cb is None:
            ci.fail(f"requires static shapes, got {format_dims(lt.shape)} and {format_dims(rt.shape)}")
        dims.append(index(max(ca, cb)))
    dtype = promote(lt.dtype, rt.dtype)
    check_dtype(ci, "'lhs'", dtype, PART_DTYPES)
    return tile_type(dims, dtype)


for _name in ("add", "mul", "max", "min"):
    define(f"tile.part_{_name}", [tile("lhs"), tile("rhs")], _part, placement=VECTOR, memory=vec(0, 1))


def packed_mask(ci: CallInfo, src: TileType, dims: list[Expr]) -> Type:
    """UINT8 predicate mask: 8 results per byte, rows padded to 32 bytes. Its valid columns are the
    bytes of a whole source row (bits of invalid source columns are 0): pto-isa's CPU TCMPS packs rows
    ``cols / 8`` bytes apart and lays them out by the mask's valid columns, so fewer would misplace rows."""
    cols = const_value(dims[-1])
    if cols is None:
        ci.fail(f"requires a static last dimension, got {format_dims(dims)}")
    packed = ((cols + 7) // 8 + 31) // 32 * 32
    valid = valid_shape(src) if dims_equal(dims, list(src.shape)) else list(dims)
    return tile_type(list(dims[:-1]) + [index(packed)], D.UINT8, list(valid[:-1]) + [index((cols + 7) // 8)])


# pto-isa's TCMP writes a UINT8 mask from these element types only (docs/isa/TCMP.md, A2A3).
CMP_DTYPES = (D.INT32, D.FP16, D.FP32)


def _cmp(ci: CallInfo) -> Type:
    """Packed predicate mask of ``lhs <cmp_type> rhs``: UINT8, last dim roundup(ceil(cols/8), 32)."""
    lt, rt = ci["lhs"].type, ci["rhs"].type
    if isinstance(rt, TileType):
        check_dtype(ci, "lhs", lt.dtype, CMP_DTYPES)
    dims = list(lt.shape) if isinstance(rt, ScalarType) else broadcast(ci, list(lt.shape), list(rt.shape))
    return packed_mask(ci, lt, dims)


CMP_TYPE = kw("cmp_type", K.IntKw(0, 5), 0)
define("tile.cmp", [tile("lhs"), tile("rhs")], _cmp, placement=VECTOR, memory=vec(0, 1), kwargs=[CMP_TYPE])
define("tile.cmps", [tile("lhs"), scalar("rhs", pair="lhs")], _cmp, placement=VECTOR, memory=vec(0),
       kwargs=[CMP_TYPE])


def _three_operand(ci: CallInfo) -> Type:
    """``a op b op c``: the type of ``a``; tile operands share its dtype."""
    a = ci["lhs"].type
    for name in ("rhs", "third"):
        t = ci[name].type
        if isinstance(t, TileType) and t.dtype != a.dtype:
            ci.fail(f"'{name}' dtype {t.dtype.name} must equal 'lhs' dtype {a.dtype.name}")
    return like_tile(a)


for _name in ("addc", "subc"):
    define(f"tile.{_name}", [tile("lhs"), tile("rhs"), tile("third")], _three_operand, placement=VECTOR,
           memory=vec(0, 1, 2))
for _name in ("addsc", "subsc"):
    define(f"tile.{_name}", [tile("lhs"), scalar("rhs", pair="lhs"), tile("third")], _three_operand,
           placement=VECTOR, memory=vec(0, 2))


_unary = functools.partial(unary_rule, "tile", like_tile, tile=True)
_UNARY = {
    "exp": _unary(FLOAT_MATH_DTYPES),
    "neg": _unary(),
    "abs": _unary(ABS_DTYPES),
    "sqrt": _unary(FLOAT_MATH_DTYPES),
    "relu": _unary(),
    "sin": _unary((D.FP32,)),
    "cos": _unary((D.FP32,)),
    "not": _unary(INT_16),
    "log": _unary(FLOAT_16_32, FLOAT_16_32),
    "recip": _unary(FLOAT_MATH_DTYPES),
}
for _name, _rule in _UNARY.items():
    define(f"tile.{_name}", [tile("tile")], _rule, placement=VECTOR, memory=vec(0),
           kwargs=[HP] if _name in ("log", "recip") else [])


def _rsqrt(ci: CallInfo) -> Type:
    """Same type; the optional scratch tile must match the input's shape and dtype."""
    t = ci["tile"].type
    check_dtype(ci, "tile", t.dtype, FLOAT_MATH_DTYPES)
    tmp = ci["tmp"]
    if tmp is not None and (tmp.type.dtype != t.dtype or not dims_equal(list(tmp.type.shape), list(t.shape))):
        ci.fail("'tmp' must have the input's shape and dtype")
    return like_tile(t)


define("tile.rsqrt", [tile("tile"), tile("tmp", effect=SCRATCH, optional=True)], _rsqrt, placement=VECTOR,
       memory=vec(0, 1))


def _cast(ci: CallInfo) -> Type:
    """Same shape, dtype ``target_type``."""
    t = ci["tile"].type
    return like_tile(t, dtype=check_cast(ci, t.dtype))


# Unlike tensor.cast, the established tile.cast has no default rounding mode: mode= is required.
define("tile.cast", [tile("tile")], _cast, placement=VECTOR, memory=vec(0),
       kwargs=[kw("target_type", K.DTYPE), kw("mode", K.CAST_MODE)])


def _expands(ci: CallInfo) -> Type:
    """``target``'s type, every element set to the scalar."""
    return like_tile(ci["target"].type)


define("tile.expands", [tile("target"), scalar("scalar", pair="target")], _expands, placement=VECTOR,
       memory=vec(0))


def _prelu(ci: CallInfo) -> Type:
    """``x if x > 0 else slope * x``: the input's type."""
    t, slope = ci["tile"].type, ci["slope"].type
    if slope.dtype != t.dtype:
        ci.fail(f"'slope' dtype {slope.dtype.name} must equal the input dtype {t.dtype.name}")
    return like_tile(t)


def _lrelu(ci: CallInfo) -> Type:
    """Leaky relu with a scalar slope: the input's type."""
    return like_tile(ci["tile"].type)


define("tile.prelu", [tile("tile"), tile("slope"), TMP], _prelu, placement=VECTOR, memory=vec(0, 1, 2))
define("tile.lrelu", [tile("tile"), scalar("slope", pair="tile")], _lrelu, placement=VECTOR, memory=vec(0))


# UINT8 only: pto/cpu/TSel.hpp reads 8 bits of each mask element whatever its type, TSelS.hpp all of its
# bits per row, so a wider mask would select differently in the two (and tile.cmp packs UINT8).
MASK_DTYPES = (D.UINT8,)


def check_select(ci: CallInfo, src: str) -> None:
    """A select's ``src`` dtype, and a packed ``mask`` (as ``tile.cmp`` makes) covering ``src``:
    the same rank and leading dims, enough bits per row for its columns."""
    t, m = ci[src].type, ci["mask"].type
    check_dtype(ci, f"'{src}'", t.dtype, VECTOR_DTYPES)
    check_dtype(ci, "'mask'", m.dtype, MASK_DTYPES)
    if len(m.shape) != len(t.shape) or not dims_equal(list(m.shape[:-1]), list(t.shape[:-1])):
        ci.fail(f"'mask' {format_dims(m.shape)} must have the leading dims of '{src}' {format_dims(t.shape)}")
    bits, cols = const_value(m.shape[-1]), const_value(t.shape[-1])
    if bits is not None and cols is not None and bits * m.dtype.get_bit() < cols:
        ci.fail(f"'mask' {format_dims(m.shape)} of {m.dtype.name} has {bits * m.dtype.get_bit()} bits per row, "
                f"fewer than the {cols} columns of '{src}'")
    _check_mask_stream(ci, src, t, m)


def _check_mask_stream(ci: CallInfo, src: str, t: TileType, m: TileType) -> None:
    """pto-isa's TSEL/TSELS (pto/cpu/TSel.hpp) read the mask as one bit stream over the valid
    elements, 8 bits per mask element, moving to the next mask row after its valid columns; that is
    the row-by-row mask ``tile.cmp`` packs only when each mask row holds exactly one row's bits."""
    cols, mask_cols = const_value(valid_shape(t)[-1]), const_value(valid_shape(m)[-1])
    if cols is None or mask_cols is None or cols == 8 * mask_cols:
        return
    need = (f"the mask to have exactly {cols // 8} valid columns" if cols % 8 == 0
            else f"'{src}' to have a multiple of 8 valid columns and the mask an eighth as many")
    ci.fail(f"'mask' has {mask_cols} valid columns but '{src}' has {cols}: the target reads the mask as one bit "
            f"stream, 8 bits per mask element, so it needs {need} "
            "(hint: select over a valid region whose columns are a multiple of 8, with the mask tile.cmp makes)")


def _sel(ci: CallInfo) -> Type:
    """``mask ? lhs : rhs`` elementwise: the lhs type."""
    lt, rt = ci["lhs"].type, ci["rhs"].type
    if lt.dtype != rt.dtype:
        ci.fail(f"'lhs' and 'rhs' dtypes must be equal, got {lt.dtype.name} and {rt.dtype.name}")
    if not dims_equal(list(lt.shape), list(rt.shape)):
        ci.fail(f"'lhs' and 'rhs' shapes must be equal, got {format_dims(lt.shape)} and {format_dims(rt.shape)}")
    check_select(ci, "lhs")
    return like_tile(lt)


SIGNED_TWIN = {D.UINT8: D.INT8, D.UINT16: D.INT16, D.UINT32: D.INT32, D.UINT64: D.INT64}


def _sels(ci: CallInfo) -> Type:
    """``mask ? src : scalar`` elementwise: the src type; the scalar has the src dtype (its signed
    twin for unsigned src), since pto-isa's TSELS takes it as the src element type."""
    check_select(ci, "src")
    src, s = ci["src"].type.dtype, ci["scalar"].type.dtype
    if s not in (src, SIGNED_TWIN.get(src, src)):
        ci.fail(f"scalar dtype {s.name} must be the 'src' dtype {src.name}"
                f" (hint: cast it first, e.g. pl.cast(value, pl.{src.name}))")
    return like_tile(ci["src"].type)


def signed_twin_scalar(value: Any, bound: dict[str, Any]) -> Any:
    """``sels`` scalar: a number is re-typed to the src dtype, unsigned dtypes to their signed twin
    (integers wrap: 255 selects as -1 in an INT8 twin, the same bits); a float number paired with
    an integer src stays FP32 and is refused by the rule."""
    dtype = element_dtype(bound.get("src"))
    target = SIGNED_TWIN.get(dtype, dtype)
    if isinstance(value, float) and target is not None and target.is_float():
        return ConstFloat(value, target)
    return retype_scalar(value, target)


define("tile.sel", [tile("mask"), tile("lhs"), tile("rhs"), TMP], _sel, placement=VECTOR, memory=vec(0, 1, 2, 3))
define("tile.sels", [tile("mask"), tile("src"), TMP, scalar("scalar", norm=signed_twin_scalar)], _sels,
       placement=VECTOR, memory=vec(0, 1, 2))
