"""Factories for scalar expressions with dtype promotion (``ir.add``, ``ir.eq``, ...).

Python operators on ``Expr`` call these. Promotion: both operands must be scalars; arithmetic,
comparison and min/max reject BOOL and int/float mixing; bitwise ops need ints; the wider dtype
wins (equal widths keep the left one); a differing operand is wrapped in ``Cast`` except between
INDEX and INT64, which are never cast.
"""

from __future__ import annotations

from typing import Any, Callable

from .datatype import DataType
from .errors import IRTypeError
from .expr import (
    Abs,
    Add,
    And,
    BinaryExpr,
    BitAnd,
    BitNot,
    BitOr,
    BitShiftLeft,
    BitShiftRight,
    BitXor,
    Cast,
    ConstBool,
    ConstFloat,
    ConstInt,
    Eq,
    Expr,
    FloatDiv,
    FloorDiv,
    FloorMod,
    Ge,
    Gt,
    Le,
    Lt,
    Max,
    Min,
    Mul,
    Ne,
    Neg,
    Not,
    Or,
    Pow,
    Sub,
)
from .span import Span
from .type_base import ScalarType

_INDEX_LIKE = (DataType.INDEX, DataType.INT64)


def as_expr(value: Any, span: Span | None = None) -> Expr:
    """Normalise a Python number into a constant: int -> INDEX, float -> FP32, bool -> BOOL."""
    span = span or Span.unknown()
    if isinstance(value, Expr):
        return value
    if isinstance(value, bool):
        return ConstBool(value, span)
    if isinstance(value, int):
        return ConstInt(value, DataType.INDEX, span)
    if isinstance(value, float):
        return ConstFloat(value, DataType.FP32, span)
    raise IRTypeError(f"Operand must be ScalarExpr or Var with ScalarType, got {type(value).__name__}")


def _dtype_of(e: Expr, what: str) -> DataType:
    if not isinstance(e.type, ScalarType):
        raise IRTypeError(f"{what}: operands must be ScalarExpr or Var with ScalarType, got {e.type}")
    return e.type.dtype


def _category(d: DataType) -> str:
    if d.is_float():
        return "float"
    if d.is_int():
        return "int"
    return d.to_string()


def _cast_to(e: Expr, d: DataType, span: Span) -> Expr:
    src = _dtype_of(e, "cast")
    if src == d or (src in _INDEX_LIKE and d in _INDEX_LIKE):
        return e
    return Cast(e, d, span)


def _promote(lhs: Any, rhs: Any, span: Span | None, what: str, kind: str) -> tuple[Expr, Expr, DataType, Span]:
    span = span or Span.unknown()
    lhs, rhs = as_expr(lhs, span), as_expr(rhs, span)
    ld, rd = _dtype_of(lhs, what), _dtype_of(rhs, what)
    if kind == "bitwise":
        if not (ld.is_int() and rd.is_int()):
            raise IRTypeError(f"{what}: bitwise operands must be integers, got {ld} and {rd}")
    else:
        if ld.is_bool() or rd.is_bool():
            raise IRTypeError(f"{what}: operands must not be bool, got {ld} and {rd}")
        if _category(ld) != _category(rd) or _category(ld) not in ("int", "float"):
            raise IRTypeError(f"{what}: operands must have the same numeric dtype category, got {ld} and {rd}")
    target = rd if rd.get_bit() > ld.get_bit() else ld
    return _cast_to(lhs, target, span), _cast_to(rhs, target, span), target, span


def _arith(cls: type[BinaryExpr], what: str) -> Callable[..., Expr]:
    def build(lhs: Any, rhs: Any, span: Span | None = None) -> Expr:
        left, right, dtype, sp = _promote(lhs, rhs, span, what, "arith")
        return cls(left, right, dtype, sp)

    build.__name__ = build.__qualname__ = what
    build.__doc__ = f"``{cls.__name__}`` of two scalars with dtype promotion."
    return build


def _compare(cls: type[BinaryExpr], what: str) -> Callable[..., Expr]:
    def build(lhs: Any, rhs: Any, span: Span | None = None) -> Expr:
        left, right, _, sp = _promote(lhs, rhs, span, what, "arith")
        return cls(left, right, DataType.BOOL, sp)

    build.__name__ = build.__qualname__ = what
    build.__doc__ = f"``{cls.__name__}`` comparison (BOOL result) with operand promotion."
    return build


def _bitwise(cls: type[BinaryExpr], what: str) -> Callable[..., Expr]:
    def build(lhs: Any, rhs: Any, span: Span | None = None) -> Expr:
        left, right, dtype, sp = _promote(lhs, rhs, span, what, "bitwise")
        return cls(left, right, dtype, sp)

    build.__name__ = build.__qualname__ = what
    build.__doc__ = f"``{cls.__name__}`` of two integer scalars with dtype promotion."
    return build


add = _arith(Add, "add")
sub = _arith(Sub, "sub")
mul = _arith(Mul, "mul")
truediv = _arith(FloatDiv, "truediv")
floordiv = _arith(FloorDiv, "floordiv")
mod = _arith(FloorMod, "mod")
pow = _arith(Pow, "pow")  # noqa: A001 - mirrors the reference name ir.pow
min_ = _arith(Min, "min_")
max_ = _arith(Max, "max_")
eq = _compare(Eq, "eq")
ne = _compare(Ne, "ne")
lt = _compare(Lt, "lt")
le = _compare(Le, "le")
gt = _compare(Gt, "gt")
ge = _compare(Ge, "ge")
bit_and = _bitwise(BitAnd, "bit_and")
bit_or = _bitwise(BitOr, "bit_or")
bit_xor = _bitwise(BitXor, "bit_xor")
bit_shift_left = _bitwise(BitShiftLeft, "bit_shift_left")
bit_shift_right = _bitwise(BitShiftRight, "bit_shift_right")


def and_(lhs: Any, rhs: Any, span: Span | None = None) -> Expr:
    """Logical ``and`` (BOOL, both operands evaluated, no checks)."""
    span = span or Span.unknown()
    return And(as_expr(lhs, span), as_expr(rhs, span), DataType.BOOL, span)


def or_(lhs: Any, rhs: Any, span: Span | None = None) -> Expr:
    """Logical ``or`` (BOOL, both operands evaluated, no checks)."""
    span = span or Span.unknown()
    return Or(as_expr(lhs, span), as_expr(rhs, span), DataType.BOOL, span)


def neg(operand: Any, span: Span | None = None) -> Expr:
    """``-x`` keeping the operand dtype."""
    span = span or Span.unknown()
    e = as_expr(operand, span)
    d = _dtype_of(e, "neg")
    if d.is_bool():
        raise IRTypeError("neg: operand must not be bool")
    return Neg(e, d, span)


def bit_not(operand: Any, span: Span | None = None) -> Expr:
    """``~x`` on an integer scalar."""
    span = span or Span.unknown()
    e = as_expr(operand, span)
    d = _dtype_of(e, "bit_not")
    if not d.is_int():
        raise IRTypeError(f"bit_not: operand must be an integer, got {d}")
    return BitNot(e, d, span)


def not_(operand: Any, span: Span | None = None) -> Expr:
    """Logical ``not`` (BOOL)."""
    span = span or Span.unknown()
    return Not(as_expr(operand, span), DataType.BOOL, span)


def abs_(operand: Any, span: Span | None = None) -> Expr:
    """``abs(x)`` keeping the operand dtype."""
    span = span or Span.unknown()
    e = as_expr(operand, span)
    return Abs(e, _dtype_of(e, "abs"), span)


def cast(operand: Any, dtype: DataType, span: Span | None = None) -> Expr:
    """``pl.cast(x, dtype)``: a ``Cast`` node to ``dtype``."""
    span = span or Span.unknown()
    e = as_expr(operand, span)
    _dtype_of(e, "cast")
    return Cast(e, DataType(dtype), span)
