"""Unified dispatch (docs/ops.md#dispatch): ``pl.add``, ``pl.exp``, ``pl.matmul``, ... pick the tensor or tile op.

A dispatcher inspects its arguments' kinds and forwards; it adds no semantics. Tensor operands go to
``pl.tensor.*``, Tile operands to ``pl.tile.*`` (the ``*s`` form when the other operand is a
scalar), two scalars build the scalar expression (``ir.add``, ...).
"""

from __future__ import annotations

from typing import Any, Callable

from pypto import ir
from pypto.ir.op_registry import OpTypeError
from pypto.language.typing.values import unwrap, wrap

from . import tensor as T
from . import tile as L
from .binding import as_expr, kind

Fn = Callable[..., Any]


def _mismatch(name: str, *args: Any) -> OpTypeError:
    kinds = ", ".join(kind(a) for a in args)
    if {"Tensor", "Tile"} <= {kind(a) for a in args}:
        return OpTypeError(
            f"pl.{name}: cannot mix Tensor and Tile arguments ({kinds}); load the tensor into a tile first "
            "(pl.load), or make the value a tile (pl.tile.full, pl.tile.create: pl.full and pl.create_tensor "
            "make tensors)", f"pl.{name}")
    return OpTypeError(f"pl.{name}: expected Tensor or Tile operands, got ({kinds})", f"pl.{name}")


def _binary(name: str, tensor_pair: tuple[Fn, Fn] | None, tile_pair: tuple[Fn, Fn] | None,
            scalar_fn: Callable[..., ir.Expr] | None = None) -> Fn:
    """``(lhs, rhs)`` dispatcher: (tensor, tensor-scalar) ops, (tile, tile-scalar) ops, scalar factory."""

    def fn(lhs: Any, rhs: Any, *, span: ir.Span | None = None, **kwargs: Any) -> Any:
        kl, kr = kind(lhs), kind(rhs)
        if kl == "Tensor" and tensor_pair is not None and kr in ("Tensor", "Scalar"):
            return tensor_pair[0 if kr == "Tensor" else 1](lhs, rhs, span=span, **kwargs)
        if kl == "Tile" and tile_pair is not None and kr in ("Tile", "Scalar"):
            return tile_pair[0 if kr == "Tile" else 1](lhs, rhs, span=span, **kwargs)
        if kl == kr == "Scalar" and scalar_fn is not None:
            if kwargs:
                raise OpTypeError(f"pl.{name}: {', '.join(kwargs)} not supported for scalar operands", f"pl.{name}")
            sp = span if span is not None else ir.Span.unknown()
            return wrap(scalar_fn(as_expr(lhs, sp), as_expr(rhs, sp), sp))
        raise _mismatch(name, lhs, rhs)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``pl.{name}(lhs, rhs)``: dispatch to the tensor or tile op by operand kinds (docs/ops.md#dispatch)."
    return fn


def _by_first(name: str, tensor_fn: Fn | None, tile_fn: Fn | None) -> Fn:
    """Dispatch on the first argument: Tensor -> ``tensor_fn``, Tile -> ``tile_fn``."""

    def fn(*args: Any, span: ir.Span | None = None, **kwargs: Any) -> Any:
        k = kind(args[0]) if args else "nothing"
        if k == "Tensor" and tensor_fn is not None:
            return tensor_fn(*args, span=span, **kwargs)
        if k == "Tile" and tile_fn is not None:
            return tile_fn(*args, span=span, **kwargs)
        raise _mismatch(name, *args[:1])

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``pl.{name}``: Tensor -> ``pl.tensor.{name}``, Tile -> ``pl.tile.{name}`` (docs/ops.md#dispatch)."
    return fn


def _fail(name: str, message: str) -> OpTypeError:
    return OpTypeError(f"pl.{name}: {message}", f"pl.{name}")


add = _binary("add", (T.add, T.adds), (L.add, L.adds), ir.add)
sub = _binary("sub", (T.sub, T.subs), (L.sub, L.subs), ir.sub)
mul = _binary("mul", (T.mul, T.muls), (L.mul, L.muls), ir.mul)
fmod = _binary("fmod", (T.fmod, T.fmods), (L.fmod, L.fmods))
maximum = _binary("maximum", (T.maximum, T.maximum), (L.maximum, L.maximums))
minimum = _binary("minimum", (T.minimum, T.minimum), (L.minimum, L.minimums))
cmp = _binary("cmp", (T.cmp, T.cmp), (L.cmp, L.cmps))
and_ = _binary("and_", (T.and_, T.ands), (L.and_, L.ands))
or_ = _binary("or_", (T.or_, T.ors), (L.or_, L.ors))
shl = _binary("shl", (T.shl, T.shls), (L.shl, L.shls))
shr = _binary("shr", (T.shr, T.shrs), (L.shr, L.shrs))
fmods = _binary("fmods", (T.fmods, T.fmods), (L.fmods, L.fmods))
ands = _binary("ands", (T.ands, T.ands), (L.ands, L.ands))
ors = _binary("ors", (T.ors, T.ors), (L.ors, L.ors))
shls = _binary("shls", (T.shls, T.shls), (L.shls, L.shls))
shrs = _binary("shrs", (T.shrs, T.shrs), (L.shrs, L.shrs))
_div = _binary("div", (T.div, T.divs), (L.div, L.divs), ir.truediv)


def div(lhs: Any, rhs: Any, high_precision: bool = False, *, span: ir.Span | None = None) -> Any:
    """``pl.div``: tensor/tile ``div`` (``divs`` for a scalar rhs), ``FloatDiv`` for two scalars."""
    if not high_precision:
        return _div(lhs, rhs, span=span)
    if kind(rhs) == "Scalar":
        raise _fail("div", "high_precision=True is not supported with a scalar rhs")
    return _div(lhs, rhs, high_precision=True, span=span)


def xor(lhs: Any, rhs: Any, tmp: Any = None, *, span: ir.Span | None = None) -> Any:
    """``pl.xor``: ``tensor.xor/xors`` (no tmp) or ``tile.xor/xors`` (scratch tile required)."""
    kl, kr = kind(lhs), kind(rhs)
    if kl == "Tensor" and kr in ("Tensor", "Scalar"):
        if tmp is not None:
            raise _fail("xor", "tmp is only for Tile operands")
        return (T.xor if kr == "Tensor" else T.xors)(lhs, rhs, span=span)
    if kl == "Tile" and kr in ("Tile", "Scalar"):
        if tmp is None:
            raise _fail("xor", "Tile operands require a tmp scratch tile")
        return (L.xor if kr == "Tile" else L.xors)(lhs, rhs, tmp, span=span)
    raise _mismatch("xor", lhs, rhs)


def xors(lhs: Any, rhs: Any, tmp: Any = None, *, span: ir.Span | None = None) -> Any:
    """``pl.xors``: ``tensor.xors`` or ``tile.xors`` (scratch tile required)."""
    if kind(rhs) != "Scalar":
        raise _fail("xors", f"expected a scalar rhs, got {kind(rhs)}")
    return xor(lhs, rhs, tmp, span=span)


# ---------------------------------------------------------------- single-input and other dispatchers

_SAME_NAME = (
    "exp", "sin", "cos", "neg", "abs", "sqrt", "not_", "reshape", "reinterpret_view", "transpose", "concat",
    "fillpad", "fillpad_expand", "expands", "set_validshape", "read", "write", "gather_row", "scatter_update",
    "sort32", "mrgsort", "part_add", "part_mul", "part_max", "part_min", "log", "recip",
    "row_expand", "col_expand",
    *(f"{k}_expand_{f}" for k in ("row", "col") for f in ("sub", "mul", "div", "max", "min", "expdif")),
    "col_expand_add", "col_max", "col_min", "col_prod",
)
_DISPATCH: dict[str, Fn] = {name: _by_first(name, getattr(T, name), getattr(L, name)) for name in _SAME_NAME}


def cast(x: Any, target_type: Any, mode: Any = "round", *, span: ir.Span | None = None) -> Any:
    """``pl.cast``: ``tensor.cast`` / ``tile.cast``, or a scalar ``Cast`` (default mode only)."""
    if kind(x) == "Scalar":
        if mode not in ("round", 2):
            raise _fail("cast", f"mode={mode!r} is not supported for a scalar operand")
        sp = span if span is not None else ir.Span.unknown()
        return wrap(ir.cast(as_expr(x, sp), target_type, sp))
    return _by_first("cast", T.cast, L.cast)(x, target_type, mode, span=span)


def rsqrt(x: Any, tmp: Any = None, high_precision: bool = False, *, span: ir.Span | None = None) -> Any:
    """``pl.rsqrt``: ``tensor.rsqrt(x, high_precision)`` or ``tile.rsqrt(x[, tmp])``."""
    k = kind(x)
    if k == "Tensor":
        if tmp is not None:
            raise _fail("rsqrt", "tmp is only for Tile inputs")
        return T.rsqrt(x, high_precision, span=span)
    if k == "Tile":
        if high_precision:
            raise _fail("rsqrt", "high_precision is not supported for Tiles; pass a scratch tile: "
                                 "pl.tile.rsqrt(tile, tmp)")
        return L.rsqrt(x, tmp, span=span)
    raise _mismatch("rsqrt", x)


def slice(x: Any, shape: Any, offset: Any, valid_shape: Any = None, drop_dims: Any = None,  # noqa: A001
          pad_value: Any = None, clamp: bool = False, *, span: ir.Span | None = None) -> Any:
    """``pl.slice``: ``tensor.slice`` or ``tile.slice`` (tiles cannot clamp)."""
    if kind(x) == "Tile":
        if clamp:
            raise _fail("slice", "clamp=True is not supported for Tiles")
        return L.slice(x, shape, offset, valid_shape, drop_dims, pad_value, span=span)
    return _by_first("slice", T.slice, None)(x, shape, offset, valid_shape, drop_dims, pad_value, clamp, span=span)


def assemble(target: Any, source: Any, offset: Any, *, atomic: Any = ir.AtomicType.None_,
             span: ir.Span | None = None) -> Any:
    """``pl.assemble``: ``tensor.assemble`` or ``tile.assemble`` (tiles take no atomic mode)."""
    if kind(target) == "Tile":
        if atomic not in (ir.AtomicType.None_, 0, "None_"):
            raise _fail("assemble", "atomic is not supported for Tiles")
        return L.assemble(target, source, offset, span=span)
    return _by_first("assemble", T.assemble, None)(target, source, offset, atomic=atomic, span=span)


def matmul(lhs: Any, rhs: Any, out_dtype: Any = None, a_trans: bool = False, b_trans: bool = False,
           c_matrix_nz: bool = False, *, span: ir.Span | None = None) -> Any:
    """``pl.matmul``: ``tensor.matmul`` (rank > 2 is batched) or ``tile.matmul`` (no transpose flags)."""
    if kind(lhs) == "Tile":
        if a_trans or b_trans or c_matrix_nz:
            raise _fail("matmul", "a_trans/b_trans/c_matrix_nz are not supported for Tiles; "
                                  "use pl.tile.transpose_view")
        result = L.matmul(lhs, rhs, span=span)
        if out_dtype is not None and ir.DataType(out_dtype) != result.type.dtype:
            raise _fail("matmul", f"out_dtype {ir.DataType(out_dtype)} differs from the accumulator dtype "
                                  f"{result.type.dtype} of Tile matmul")
        return result
    return _by_first("matmul", T.matmul, None)(lhs, rhs, out_dtype, a_trans, b_trans, c_matrix_nz, span=span)


def matmul_acc(acc: Any, lhs: Any, rhs: Any, a_trans: bool = False, b_trans: bool = False, init_cond: Any = None,
               *, span: ir.Span | None = None) -> Any:
    """``pl.matmul_acc``: ``tensor.matmul_acc`` or ``tile.matmul_acc`` (no transpose flags)."""
    if kind(acc) == "Tile":
        if a_trans or b_trans:
            raise _fail("matmul_acc", "a_trans/b_trans are not supported for Tiles; use pl.tile.transpose_view")
        return L.matmul_acc(acc, lhs, rhs, init_cond, span=span)
    return _by_first("matmul_acc", T.matmul_acc, None)(acc, lhs, rhs, a_trans, b_trans, init_cond, span=span)


def batch_matmul(lhs: Any, rhs: Any, *, span: ir.Span | None = None) -> Any:
    """``pl.batch_matmul``: Tiles only (``tile.batch_matmul``); for Tensors use ``pl.matmul``."""
    if kind(lhs) != "Tile" or kind(rhs) != "Tile":
        raise _fail("batch_matmul", f"expects Tile operands, got ({kind(lhs)}, {kind(rhs)}); "
                                    "for Tensors use pl.matmul")
    return L.batch_matmul(lhs, rhs, span=span)


def _scratch_tile(x: Any) -> str:
    """The ``pl.create_tile`` call making a scratch tile shaped like the Tile ``x``."""
    t = unwrap(x).type
    shape = ", ".join(str(d) for d in t.shape)
    return f"pl.create_tile([{shape}], dtype=pl.{t.dtype.name}, target_memory=pl.Mem.Vec)"


def _reduction(name: str, tmp_rule: str) -> Fn:
    """Reductions: Tile inputs take ``tmp_tile`` (``required``/``optional``), Tensor inputs reject it."""

    def fn(x: Any, tmp_tile: Any = None, *, span: ir.Span | None = None) -> Any:
        k = kind(x)
        if k == "Tensor":
            if tmp_tile is not None:
                raise _fail(name, "Tensor inputs do not take tmp_tile")
            return getattr(T, name)(x, span=span)
        if k == "Tile":
            if tmp_tile is None and tmp_rule == "required":
                raise _fail(name, f"Tile inputs require tmp_tile, a scratch tile of the input's shape: "
                                  f"pl.{name}(x, {_scratch_tile(x)})")
            if tmp_tile is None:
                return getattr(L, name)(x, span=span)
            return getattr(L, name)(x, tmp_tile, span=span)
        raise _mismatch(name, x)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``pl.{name}``: Tensor -> ``tensor.{name}``, Tile -> ``tile.{name}`` (tmp_tile {tmp_rule})."
    return fn


for _name in ("row_sum", "row_max", "row_min", "row_prod", "row_argmax", "row_argmin", "col_argmax", "col_argmin"):
    _DISPATCH[_name] = _reduction(_name, "required")
_DISPATCH["col_sum"] = _reduction("col_sum", "optional")


def row_expand_add(x: Any, row_vec: Any, tmp: Any = None, *, span: ir.Span | None = None) -> Any:
    """``pl.row_expand_add``: tensor or tile form; ``tmp`` only for Tiles."""
    if kind(x) == "Tile":
        return L.row_expand_add(x, row_vec, tmp, span=span)
    if tmp is not None:
        raise _fail("row_expand_add", "tmp is only for Tile inputs")
    return _by_first("row_expand_add", T.row_expand_add, None)(x, row_vec, span=span)


DISPATCHERS: dict[str, Fn] = {
    "add": add, "sub": sub, "mul": mul, "div": div, "fmod": fmod, "maximum": maximum, "minimum": minimum,
    "cmp": cmp, "and_": and_, "or_": or_, "shl": shl, "shr": shr, "xor": xor, "ands": ands, "ors": ors,
    "xors": xors, "shls": shls, "shrs": shrs, "fmods": fmods, "cast": cast, "rsqrt": rsqrt, "slice": slice,
    "assemble": assemble, "matmul": matmul, "matmul_acc": matmul_acc, "batch_matmul": batch_matmul,
    "row_expand_add": row_expand_add, **_DISPATCH,
}
