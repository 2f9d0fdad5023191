"""Shared pieces of type deduction: dtype promotion, broadcasting, valid regions, result types.

Every helper that can fail takes the ``CallInfo`` so the error names the op (docs/ops.md#arguments).
"""

from __future__ import annotations

import math
from typing import Any, Callable, Iterable

from ..affine import provably_equal, simplify_index
from ..datatype import DataType
from ..enums import MemorySpace, PadValue, TensorLayout, TileLayout
from ..expr import Add, ConstInt, Expr, MakeTuple, Mul, Sub
from ..op_registry import CallInfo, describe_type, format_dims
from ..scalar_ops import add as scalar_add
from ..scalar_ops import min_ as scalar_min
from ..scalar_ops import mul as scalar_mul
from ..scalar_ops import sub as scalar_sub
from ..type_base import ScalarType, Type
from ..types import TensorType, TensorView, TileType, TileView, effective_valid_shape, implicit_layout

D = DataType
# The on-chip block (pto-isa's TileConfig::alignedSize): vector instructions address buffers in whole
# blocks, and a plain tile's lines are a whole number of them.
BLOCK_BYTES = 32


def block_elements(dtype: DataType) -> int:
    """How many ``dtype`` elements fill one on-chip block (8 FP32, 16 FP16, 32 INT8)."""
    return BLOCK_BYTES * 8 // dtype.get_bit()


FLOAT_16_32 = (D.FP16, D.FP32)
INT_16 = (D.INT16, D.UINT16)
# pto-isa's TABS takes signed and float elements only (the abs of an unsigned value is itself).
ABS_DTYPES = (D.INT8, D.INT16, D.INT32, D.FP16, D.BF16, D.FP32)
# TEXP/TSQRT/TRSQRT/TRECIP take half and float (pto/npu/a2a3/TUnaryOp.hpp TunaryCheck, pto/cpu/TRSqrt.hpp;
# the CPU model casts ints through double); TRECIP's integer form, TDIVS(1, x), is 0 for |x| > 1.
FLOAT_MATH_DTYPES = FLOAT_16_32
# pto-isa's TPART* ops (pto/cpu/TPartOp.hpp TPartCheck): no unsigned types wider than 8 bits.
PART_DTYPES = (D.INT8, D.UINT8, D.INT16, D.INT32, D.FP16, D.BF16, D.FP32)
CI_DTYPES = (D.INT16, D.INT32, D.UINT16, D.UINT32)
ATOMIC_ADD_DTYPES = (D.FP32, D.BF16, D.FP16, D.INT32, D.INT16, D.INT8)
# Element dtypes of the vector unit's data-movement and select instructions.
VECTOR_DTYPES = (D.INT8, D.UINT8, D.INT16, D.UINT16, D.INT32, D.UINT32, D.FP16, D.BF16, D.FP32)
# Scalars a tensor/tile-scalar op takes (no BOOL, TASK_ID or sub-16-bit floats; INDEX constants
# are retyped before they get here).
SCALAR_OPERAND_DTYPES = (D.INT8, D.INT16, D.INT32, D.INT64, D.UINT8, D.UINT16, D.UINT32, D.UINT64,
                         D.INDEX, D.FP16, D.BF16, D.FP32)


def names(dtypes: Iterable[DataType]) -> str:
    return ", ".join(d.name for d in dtypes)


# ---------------------------------------------------------------- dtypes


def promote(a: DataType, b: DataType) -> DataType:
    """PromoteDataTypes: equal -> same; float beats int; more bits wins; same bits -> signed wins; else left."""
    if a == b:
        return a
    if a.is_float() != b.is_float():
        return a if a.is_float() else b
    if a.get_bit() != b.get_bit():
        return a if a.get_bit() > b.get_bit() else b
    if a.is_signed_int() != b.is_signed_int() and (a.is_int() and b.is_int()):
        return a if a.is_signed_int() else b
    return a


def accumulator_dtype(d: DataType) -> DataType:
    """Matmul accumulator: FP32 for float inputs, INT32 otherwise."""
    return D.FP32 if d.is_float() else D.INT32


def check_dtype(ci: CallInfo, what: str, dtype: DataType, allowed: Iterable[DataType]) -> None:
    allowed = tuple(allowed)
    if dtype not in allowed:
        ci.fail(f"{what} dtype must be one of {names(allowed)}, got {dtype.name}")


def check_int(ci: CallInfo, what: str, dtype: DataType) -> None:
    if not dtype.is_int():
        ci.fail(f"{what} requires an integer dtype, got {dtype.name}")


def check_binary_operands(ci: CallInfo, *, bitwise: bool, shift: bool) -> None:
    """Checks shared by the tensor and tile binary ops: integer operands for bitwise ops,
    ``high_precision`` only with a tensor/tile rhs of FP16/FP32, a non-negative constant shift count,
    a scalar rhs of a numeric dtype."""
    lt, rt = ci["lhs"].type, ci["rhs"].type
    if isinstance(rt, ScalarType):
        check_dtype(ci, "scalar operand 'rhs'", rt.dtype, SCALAR_OPERAND_DTYPES)
    if bitwise:
        check_int(ci, "'lhs'", lt.dtype)
        check_int(ci, "'rhs'", rt.dtype)
    if ci.kw("high_precision"):
        if isinstance(rt, ScalarType):
            ci.type_fail("high_precision=True is not supported with a scalar rhs")
        check_dtype(ci, "high_precision", lt.dtype, FLOAT_16_32)
    if shift and isinstance(rt, ScalarType):
        count = const_value(ci["rhs"])
        if count is not None and count < 0:
            ci.fail(f"shift count must be >= 0, got {count}")


# ---------------------------------------------------------------- dims


def const_value(e: Expr) -> int | None:
    """The value of an integer constant, else None."""
    return e.value if isinstance(e, ConstInt) else None


def dim_equal(a: Expr, b: Expr) -> bool:
    """Provably equal: the same expression, equal constants or equal affine forms (``c + 128 - (c + 64)``
    equals 64)."""
    return a is b or provably_equal(a, b)


def canonical_dims(dims: list[Expr]) -> list[Expr]:
    """``dims`` with each index expression in its canonical affine form where that is smaller."""
    return [simplify_index(d) if isinstance(d, Expr) else d for d in dims]


def known_multiple(e: Expr, k: int) -> bool:
    """Whether ``e`` is a multiple of ``k`` whatever its variables hold: a constant multiple, a sum or
    difference of such, or a product with one."""
    c = const_value(e)
    if c is not None:
        return c % k == 0
    if isinstance(e, (Add, Sub)):
        return known_multiple(e.left, k) and known_multiple(e.right, k)
    if isinstance(e, Mul):
        return known_multiple(e.left, k) or known_multiple(e.right, k)
    return False


def dims_equal(a: list[Expr], b: list[Expr]) -> bool:
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if x is not y and not dim_equal(x, y):
            return False
    return True


def index(v: int) -> ConstInt:
    return ConstInt(v, D.INDEX)


def dim_add(a: Expr, b: Expr) -> Expr:
    ca, cb = const_value(a), const_value(b)
    if ca is not None and cb is not None:
        return index(ca + cb)
    return scalar_add(a, b)


def dim_sub(a: Expr, b: Expr) -> Expr:
    ca, cb = const_value(a), const_value(b)
    if ca is not None and cb is not None:
        return index(ca - cb)
    if cb == 0:
        return a
    return scalar_sub(a, b)


def dim_min(a: Expr, b: Expr) -> Expr:
    if dim_equal(a, b):
        return a
    ca, cb = const_value(a), const_value(b)
    if ca is not None and cb is not None:
        return index(min(ca, cb))
    return scalar_min(a, b)


def product(dims: list[Expr]) -> int | None:
    """The element count when every dim is constant."""
    n = 1
    for d in dims:
        c = const_value(d)
        if c is None:
            return None
        n *= c
    return n


def broadcast(ci: CallInfo, a: list[Expr], b: list[Expr]) -> list[Expr]:
    """NumPy broadcasting, right-aligned (docs/ops.md#arguments)."""
    if dims_equal(a, b):
        return list(a)
    out: list[Expr] = []
    for i in range(1, max(len(a), len(b)) + 1):
        x = a[-i] if i <= len(a) else None
        y = b[-i] if i <= len(b) else None
        if x is None or y is None:
            out.append(x if y is None else y)
        elif dim_equal(x, y):
            out.append(x)
        elif const_value(x) == 1:
            out.append(y)
        elif const_value(y) == 1:
            out.append(x)
        else:
            ci.fail(f"requires compatible shapes, but got {format_dims(a)} and {format_dims(b)}")
    return list(reversed(out))


def normalize_axis(ci: CallInfo, what: str, axis: int, rank: int) -> int:
    if not -rank <= axis < rank:
        ci.fail(f"{what} {axis} is out of range for rank {rank}")
    return axis % rank


def axis_value(ci: CallInfo, name: str) -> int:
    """The constant int of argument ``name``."""
    v = const_value(ci[name])
    if v is None:
        ci.fail(f"argument '{name}' must be a constant integer")
    return v


# ---------------------------------------------------------------- argument accessors


def elements(ci: CallInfo, name: str, integer: bool = True) -> list[Expr]:
    """The element expressions of a list argument (a ``MakeTuple``); integer scalars when ``integer``."""
    e = ci[name]
    if not isinstance(e, MakeTuple):
        ci.type_fail(f"argument '{name}' must be a literal list ([a, b, ...]), got {describe_type(e.type)}")
    if integer:
        for x in e.elements:
            if not isinstance(x.type, ScalarType) or not x.type.dtype.is_int():
                ci.fail(f"argument '{name}' elements must be integer scalars, got {describe_type(x.type)}")
    return list(e.elements)


def static_elements(ci: CallInfo, name: str, positive: bool = True) -> list[int]:
    """A list argument whose elements must all be constants (> 0 when ``positive``)."""
    vals = []
    for x in elements(ci, name):
        v = const_value(x)
        if v is None or (positive and v <= 0):
            ci.fail(f"argument '{name}' must hold static positive integers, got {format_dims(elements(ci, name))}")
        vals.append(v)
    return vals


def check_rank(ci: CallInfo, name: str, rank: int | None = None, min_rank: int | None = None) -> None:
    r = len(ci[name].type.shape)
    if rank is not None and r != rank:
        ci.fail(f"argument '{name}' must be {rank}-D, got rank {r}")
    if min_rank is not None and r < min_rank:
        ci.fail(f"argument '{name}' must have rank >= {min_rank}, got rank {r}")


# ---------------------------------------------------------------- valid regions and results


def valid_shape(t: TensorType | TileType) -> list[Expr]:
    """The effective valid region (the shape when the view does not narrow it)."""
    if isinstance(t, TileType):
        return list(effective_valid_shape(t))
    view = t.tensor_view
    return list(view.valid_shape) if view is not None and view.valid_shape else list(t.shape)


def is_fully_valid(t: TensorType | TileType) -> bool:
    return dims_equal(valid_shape(t), list(t.shape))


def tensor_type(shape: list[Expr], dtype: DataType, valid: list[Expr] | None = None,
                layout: TensorLayout = TensorLayout.ND, pad: PadValue | None = None) -> TensorType:
    """A plain tensor type; a view only when the valid region, layout or pad needs one."""
    pad = PadValue.null if pad is None else pad
    shape = canonical_dims(shape)
    valid = [] if valid is None or dims_equal(valid, shape) else canonical_dims(valid)
    if not valid and layout == TensorLayout.ND and pad == PadValue.null:
        return TensorType(shape, dtype)
    return TensorType(shape, dtype, None, TensorView(stride=[], layout=layout, valid_shape=valid, pad=pad))


def tile_type(shape: list[Expr], dtype: DataType, valid: list[Expr] | None = None,
              blayout: TileLayout | None = None, slayout: TileLayout | None = None,
              fractal: int | None = None, pad: PadValue | None = None,
              space: MemorySpace | None = None) -> TileType:
    """A tile type with an explicit view built from the given parts (canonicalised by TileType).

    Layout parts left None come from the implicit view of (shape, space); the registry stamps the
    memory space afterwards when ``space`` is None.
    """
    shape = canonical_dims(shape)
    ib, isl, ifr = implicit_layout(shape, space)
    valid = [] if valid is None or dims_equal(valid, shape) else canonical_dims(valid)
    blayout = ib if blayout is None else blayout
    slayout = isl if slayout is None else slayout
    fractal = ifr if fractal is None else fractal
    pad = PadValue.null if pad is None else pad
    if (not valid and blayout == ib and slayout == isl and fractal == ifr and pad == PadValue.null
            and all(isinstance(d, Expr) for d in shape)):
        return TileType(shape, dtype, None, None, space)  # the view TileType would drop as implicit
    view = TileView(valid_shape=valid, blayout=blayout, slayout=slayout, fractal=fractal, pad=pad)
    return TileType(shape, dtype, None, view, space)


def merged_2d(t: TileType) -> TileType:
    """``t`` with its leading axes merged into rows: ``[d0, ..., dk-2, dk-1]`` -> ``[d0 * ... * dk-2, dk-1]``.

    The caller checks that the leading axes are static and that the valid region is partial only
    along the first axis and the last one (so the valid rows are a prefix of the merged rows).
    """
    lead = [const_value(d) for d in t.shape[:-1]]
    shape = [index(math.prod(lead)), t.shape[-1]]
    valid = valid_shape(t)
    merged = None
    if not all(v is d or const_value(v) == const_value(d) for v, d in zip(valid, t.shape)):
        inner, first = math.prod(lead[1:]), valid[0]
        rows = first if inner == 1 else scalar_mul(first, index(inner))
        if const_value(first) is not None:
            rows = index(const_value(first) * inner)
        merged = [rows, valid[-1]]
    return tile_type(shape, t.dtype, merged, pad=t.get_effective_tile_view().pad, space=t.memory_space)


def like_tile(src: TileType, shape: list[Expr] | None = None, dtype: DataType | None = None,
              valid: list[Expr] | None = None, space: MemorySpace | None = None) -> TileType:
    """A result shaped like ``src``: keeps its valid region (when the shape is unchanged) and, for
    vector-side sources, its row/col-major layout. ``space`` None leaves the space to the registry."""
    same_shape = shape is None or dims_equal(shape, list(src.shape))
    if (same_shape and valid is None and src.memory_space is space and src.tile_view is None
            and src.memref is None and (dtype is None or dtype == src.dtype)):
        return src  # the result would equal src: share the (immutable) type
    shape = list(src.shape) if shape is None else shape
    if valid is None and same_shape:
        valid = valid_shape(src)
    blayout = None
    if same_shape and src.memory_space in (None, MemorySpace.Vec) and space in (None, MemorySpace.Vec):
        # The stored view's layout; without one, the implicit layout of (shape, None or Vec), which
        # tile_type fills in when blayout is None.
        view = src.tile_view
        if view is not None:
            blayout = view.blayout
    return tile_type(shape, src.dtype if dtype is None else dtype, valid, blayout=blayout, space=space)


def result_space(ci: CallInfo) -> MemorySpace | None:
    """``Vec`` when the op's memory rule puts its tile result in Vec, else None (the registry stamps it).

    A rule may build its result in Vec directly: Vec's implicit layout is the one of no space, so
    the type is the one the registry would make by stamping Vec on it, without a second TileType.
    """
    memory = ci.entry.memory
    return MemorySpace.Vec if memory is not None and memory.output is MemorySpace.Vec else None


def like_tensor(src: TensorType, shape: list[Expr] | None = None, dtype: DataType | None = None,
                keep_valid: bool = True) -> TensorType:
    """A plain tensor result; keeps ``src``'s valid region when asked and the shape is unchanged."""
    shape = list(src.shape) if shape is None else shape
    valid = valid_shape(src) if keep_valid and dims_equal(shape, list(src.shape)) else None
    return tensor_type(shape, src.dtype if dtype is None else dtype, valid)


def unary_rule(param: str, like: Callable[..., Type], allowed: tuple[DataType, ...] | None = None,
               hp_allowed: tuple[DataType, ...] | None = None, *, tile: bool = False) -> Callable[[CallInfo], Type]:
    """Rule of a one-operand elementwise op on parameter ``param``: the operand's type (``like``),
    with its dtype checked against ``allowed`` and, under ``high_precision=True``, ``hp_allowed``.
    ``tile``: ``like`` is :func:`like_tile`, given the :func:`result_space`."""

    def deduce(ci: CallInfo) -> Type:
        t = ci[param].type
        if allowed is not None:
            check_dtype(ci, param, t.dtype, allowed)
        if hp_allowed is not None and ci.kw("high_precision"):
            check_dtype(ci, "high_precision", t.dtype, hp_allowed)
        return like(t, space=result_space(ci)) if tile else like(t)

    deduce.__doc__ = "Same shape and dtype" + (f" ({names(allowed)} only)" if allowed else "") + "."
    return deduce


def check_window(ci: CallInfo, src: TensorType | TileType, offsets: list[Expr], sizes: list[Expr],
                 verb: str = "reads", what: str = "source", clamp: bool | None = False) -> None:
    """Fail for a constant negative offset, and (unless ``clamp``) for a window of constant offset and
    size provably past the constant extent of ``src`` (``clamp=None``: the op has no ``clamp``); run-time values are guarded at run time
    (docs/simulator.md#bounds)."""
    for axis, off in enumerate(offsets):
        o = const_value(off)
        if o is not None and o < 0:
            ci.fail(f"offset {o} on axis {axis} is negative: the window at offsets {format_dims(offsets)} "
                    f"{verb} before the start of the tensor")
    for off, size, dim in zip(offsets, sizes, src.shape):
        o, s, d = const_value(off), const_value(size), const_value(dim)
        if o is not None and s is not None and d is not None and o + s > d and not clamp:
            ci.fail(
                f"window at offsets {format_dims(offsets)} with shape {format_dims(sizes)} {verb} past "
                f"the {what} shape {format_dims(list(src.shape))}" + ("" if clamp is None else " (pass clamp=True to allow it)")
            )


def clip_window(ci: CallInfo, src: TensorType | TileType, offsets: list[Expr], sizes: list[Expr],
                requested: list[Expr], clamp: bool) -> list[Expr]:
    """Valid extent of a window of ``sizes`` at ``offsets`` in ``src``: ``requested`` ∩ source valid region.

    A window provably past the source's physical edge is an error unless ``clamp``; a constant
    negative offset always is.
    """
    check_window(ci, src, offsets, sizes, clamp=clamp)
    out = []
    for off, size, req, dim, v in zip(offsets, sizes, requested, src.shape, valid_shape(src)):
        if dim_equal(v, dim) and not clamp:
            out.append(req)
            continue
        avail = dim_sub(v, off)
        ca, cr = const_value(avail), const_value(req)
        out.append(index(max(0, min(ca, cr))) if ca is not None and cr is not None else dim_min(req, avail))
    return out
