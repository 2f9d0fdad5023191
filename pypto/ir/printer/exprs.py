"""Expression printing: names, constants, operators with minimal parentheses, calls, submits.

Parentheses follow Python precedence (low to high): ``or`` < ``and`` < ``not`` < comparisons <
``|`` < ``^`` < ``&`` < shifts < ``+ -`` < ``* / // %`` < unary ``- ~`` < ``**`` < calls < atoms.
At equal precedence the right child is parenthesised (the left child for the right-associative
``**``); comparisons parenthesise both children because Python would chain ``a < b < c``.

Two deliberate departures from the reference printer keep every output re-parseable:
``BitXor`` prints as ``a ^ b``; the logical ``Xor`` (which the reference prints as the invalid
``a xor b``) prints as ``a ^ b`` when both operands are BOOL scalars (the DSL reads ``^`` on BOOL
operands as ``Xor``) and otherwise as the call ``pl.xor(a, b)``.
"""

from __future__ import annotations

from enum import Enum
from collections.abc import Mapping
from typing import Any, Callable

from ..datatype import DataType
from ..enums import AtomicType, PipeType
from ..expr import (
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
    Call,
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
    GlobalVar,
    Gt,
    IterArg,
    Le,
    Lt,
    MakeTuple,
    Max,
    Min,
    Mul,
    Ne,
    Neg,
    Not,
    Op,
    Or,
    Pow,
    Sub,
    Submit,
    TupleGetItemExpr,
    UnaryExpr,
    Var,
    Xor,
)
from ..memref import MemRef
from ..type_base import ScalarType
from . import op_shapes
from .values import CAST_MODES, dq, dtype_text, enum_text, float_is_negative, format_float, sq

# Precedence levels (higher binds tighter).
P_OR, P_AND, P_NOT, P_CMP, P_BITOR, P_BITXOR, P_BITAND, P_SHIFT, P_ADD, P_MUL, P_UNARY, P_POW, P_CALL, P_ATOM = range(
    1, 15
)

_INFIX: dict[type, tuple[str, int]] = {
    Or: (" or ", P_OR),
    And: (" and ", P_AND),
    Eq: (" == ", P_CMP),
    Ne: (" != ", P_CMP),
    Lt: (" < ", P_CMP),
    Le: (" <= ", P_CMP),
    Gt: (" > ", P_CMP),
    Ge: (" >= ", P_CMP),
    BitOr: (" | ", P_BITOR),
    BitXor: (" ^ ", P_BITXOR),
    BitAnd: (" & ", P_BITAND),
    BitShiftLeft: (" << ", P_SHIFT),
    BitShiftRight: (" >> ", P_SHIFT),
    Add: (" + ", P_ADD),
    Sub: (" - ", P_ADD),
    Mul: (" * ", P_MUL),
    FloatDiv: (" / ", P_MUL),
    FloorDiv: (" // ", P_MUL),
    FloorMod: (" % ", P_MUL),
    Pow: (" ** ", P_POW),
}
_PREFIX: dict[type, tuple[str, int]] = {Neg: ("-", P_UNARY), BitNot: ("~", P_UNARY), Not: ("not ", P_NOT)}
# Scalar nodes printed as calls: ``pl.min(a, b)``; ``None`` means no prefix (``abs(x)``).
_CALL_FORM: dict[type, str | None] = {Min: "min", Max: "max", Xor: "xor", Abs: None, Cast: "cast"}

_PREC: dict[type, int] = {cls: prec for cls, (_, prec) in _INFIX.items()}
_PREC.update({cls: prec for cls, (_, prec) in _PREFIX.items()})

_CONSTS = (ConstInt, ConstFloat, ConstBool)
_PIPE_KEY_OPS = frozenset({"system.sync_set", "system.sync_wait"})

INDEX = DataType.INDEX
FP32 = DataType.FP32


def all_const(e: Expr) -> bool:
    """True for a tree of scalar operators whose leaves are all constants."""
    t = type(e)
    if t is ConstInt or t is ConstFloat or t is ConstBool:
        return True
    if isinstance(e, BinaryExpr):
        return all_const(e.left) and all_const(e.right)
    if isinstance(e, UnaryExpr):
        return all_const(e.operand)
    return False


class ExprPrinter:
    """Prints expressions and keyword values with a fixed prefix and variable names."""

    def __init__(self, prefix: str, names: dict[int, str] | None = None) -> None:
        self.p = prefix
        self.names: dict[int, str] = names if names is not None else {}
        # Constants print typed, ``pl.const(v, pl.INDEX)`` (pure-constant trees, composite dims).
        self.typed = False
        # Calls of program functions print as ``self.f(...)``.
        self.in_program = False
        # Inside ``pl.split_aiv`` the ``split=`` of aiv_shard/aic_gather is implied.
        self.in_split_aiv = False

    # ---- dispatch ----------------------------------------------------------------------
    def expr(self, e: Expr) -> str:
        """The printed form of ``e``."""
        fn = _EXPR_FNS.get(type(e))
        if fn is None:
            fn = _resolve(type(e))
        return fn(self, e)

    def operand(self, e: Expr, min_prec: int) -> str:
        """``e`` printed, parenthesised when it binds looser than ``min_prec``."""
        text = self.expr(e)
        return f"({text})" if self.prec(e) < min_prec else text

    def prec(self, e: Expr) -> int:
        """Precedence of ``e`` as printed in the current mode."""
        t = type(e)
        p = _PREC.get(t)
        if p is not None:
            return p
        if t is ConstInt:
            return P_UNARY if e.value < 0 and e.dtype is INDEX and not self.typed else P_ATOM
        if t is ConstFloat:
            return P_UNARY if e.dtype is FP32 and not self.typed and float_is_negative(e.value) else P_ATOM
        if t is Xor and _is_logical_xor(e):
            return P_BITXOR
        return P_ATOM

    # ---- leaves ------------------------------------------------------------------------
    def var(self, e: Var) -> str:
        name = self.names.get(id(e))
        return name if name is not None else e.name_hint

    def memref_expr(self, e: MemRef) -> str:
        return e.name_hint

    def const_int(self, e: ConstInt) -> str:
        if e.dtype is INDEX and not self.typed:
            return str(e.value)
        return f"{self.p}.const({e.value}, {dtype_text(self.p, e.dtype)})"

    def const_float(self, e: ConstFloat) -> str:
        text = format_float(e.value)
        if e.dtype is FP32 and not self.typed:
            return text
        return f"{self.p}.const({text}, {dtype_text(self.p, e.dtype)})"

    def const_bool(self, e: ConstBool) -> str:
        text = "True" if e.value else "False"
        return f"{self.p}.const({text}, {dtype_text(self.p, DataType.BOOL)})" if self.typed else text

    def dim(self, e: Expr) -> str:
        """A shape-like entry: constants bare, Vars by name, composite trees with typed leaves."""
        t = type(e)
        if t is ConstInt:
            return str(e.value)
        if t is Var or t is IterArg:
            return self.var(e)
        saved, self.typed = self.typed, True
        text = self.expr(e)
        self.typed = saved
        return text

    # ---- operators ---------------------------------------------------------------------
    def _typed_scope(self, e: Expr) -> bool:
        """Enter typed-leaf mode for a pure-constant tree; True if this call switched it on."""
        if not self.typed and all_const(e):
            self.typed = True
            return True
        return False

    def infix(self, e: BinaryExpr) -> str:
        op, prec = _INFIX[type(e)]
        return self.infix_text(e, op, prec)

    def xor(self, e: Xor) -> str:
        """``a ^ b`` on BOOL operands, else ``pl.xor(a, b)``."""
        return self.infix_text(e, " ^ ", P_BITXOR) if _is_logical_xor(e) else self.call_form(e)

    def infix_text(self, e: BinaryExpr, op: str, prec: int) -> str:
        switched = self._typed_scope(e)
        left, right = e.left, e.right
        lp, rp = self.prec(left), self.prec(right)
        lt, rt = self.expr(left), self.expr(right)
        if switched:
            self.typed = False
        if prec == P_POW:
            left_paren, right_paren = lp <= prec, rp < prec
        elif prec == P_CMP:
            left_paren, right_paren = lp <= prec, rp <= prec
        else:
            left_paren, right_paren = lp < prec, rp <= prec
        if left_paren:
            lt = f"({lt})"
        if right_paren:
            rt = f"({rt})"
        return lt + op + rt

    def prefix_op(self, e: UnaryExpr) -> str:
        op, prec = _PREFIX[type(e)]
        switched = self._typed_scope(e)
        text = self.operand(e.operand, prec)
        if switched:
            self.typed = False
        return op + text

    def call_form(self, e: Expr) -> str:
        """Min/Max/Xor/Abs/Cast: ``pl.min(a, b)``, ``abs(x)``, ``pl.cast(x, pl.INT32)``."""
        t = type(e)
        name = _CALL_FORM[t]
        switched = self._typed_scope(e)
        if isinstance(e, BinaryExpr):
            args = f"{self.expr(e.left)}, {self.expr(e.right)}"
        elif t is Cast:
            args = f"{self.expr(e.operand)}, {dtype_text(self.p, e.dtype)}"
        else:
            args = self.expr(e.operand)
        if switched:
            self.typed = False
        return f"{self.p}.{name}({args})" if name is not None else f"abs({args})"

    # ---- tuples ------------------------------------------------------------------------
    def make_tuple(self, e: MakeTuple) -> str:
        return "[" + ", ".join([self.expr(x) for x in e.elements]) + "]"

    def tuple_get_item(self, e: TupleGetItemExpr) -> str:
        return f"{self.operand(e.tuple, P_CALL)}[{e.index}]"

    # ---- calls -------------------------------------------------------------------------
    def callee(self, op: Op) -> str:
        """``self.f`` for program functions, else the op's printed name."""
        if isinstance(op, GlobalVar):
            return f"self.{op.name}" if self.in_program else op.name
        return op_shapes.printed_op_name(self.p, op.name)

    def call(self, e: Call) -> str:
        saved, self.typed = self.typed, False
        op = e.op
        if isinstance(op, GlobalVar):
            callee = self.callee(op)
            parts = [self.expr(a) for a in e.args]
            parts.extend(self.kwarg_items(op.name, e.kwargs))
        else:
            name = op.name
            callee = op_shapes.printed_op_name(self.p, op_shapes.renamed_op(e))
            shape = op_shapes.SHAPES.get(name)
            parts = shape(self, e) if shape is not None else self.call_args(e)
        attrs = e.attrs
        if attrs and not isinstance(op, GlobalVar) and op.name in op_shapes.SHAPE_ATTRS:
            attrs = {k: v for k, v in attrs.items() if k not in op_shapes.SHAPE_ATTRS[op.name]}
        if attrs:
            parts.append(self.attrs_item(attrs))
        self.typed = saved
        return f"{callee}({', '.join(parts)})"

    def call_args(self, e: Call, skip: frozenset[str] = frozenset()) -> list[str]:
        """Positional args then ``key=value`` kwargs (without ``skip`` keys)."""
        parts = [self.expr(a) for a in e.args]
        parts.extend(self.kwarg_items(e.op.name, e.kwargs, skip))
        return parts

    def submit(self, e: Submit) -> str:
        saved, self.typed = self.typed, False
        parts = [self.callee(e.op)]
        parts.extend(self.expr(a) for a in e.args)
        parts.extend(self.kwarg_items(e.op.name, e.kwargs))
        if e.core_num is not None:
            parts.append(f"core_num={self.expr(e.core_num)}")
            if e.sync_start:
                parts.append("sync_start=True")
        if e.deps:
            parts.append("deps=[" + ", ".join([self.expr(d) for d in e.deps]) + "]")
        if e.allow_early_resolve:
            parts.append("allow_early_resolve=True")
        if e.predicate is not None:
            parts.append(f"predicate=({self.expr(e.predicate)})")
        if e.attrs:
            parts.append(self.attrs_item(e.attrs))
        self.typed = saved
        fn = "spmd_submit" if e.core_num is not None else "submit"
        return f"{self.p}.{fn}({', '.join(parts)})"

    # ---- keyword values ----------------------------------------------------------------
    def kwarg_items(self, op_name: str, kwargs: dict[str, Any], skip: frozenset[str] = frozenset()) -> list[str]:
        """``key=value`` texts in stored order, with the per-key rules of spec/ir.md §8.1."""
        out = []
        for key, value in kwargs.items():
            if key in skip:
                continue
            out.append(f"{key}={self.kwarg_value(op_name, key, value)}")
        return out

    def kwarg_value(self, op_name: str, key: str, value: Any) -> str:
        """A kwarg value; ints under pipe/mode/atomic keys print symbolically."""
        if type(value) is int:
            if key == "set_pipe" or key == "wait_pipe" or (key == "pipe" and op_name in _PIPE_KEY_OPS):
                if value in PipeType._value2member_map_:
                    return enum_text(self.p, PipeType(value))
            elif key == "mode":
                if 0 <= value < len(CAST_MODES):
                    return sq(CAST_MODES[value])
            elif key == "atomic":
                if value in AtomicType._value2member_map_:
                    return enum_text(self.p, AtomicType(value))
        return self.value(value)

    def value(self, v: Any) -> str:
        """A kwarg/attr value: bool, enum, int, float (float rule), str, DataType, Expr, containers."""
        t = type(v)
        if t is bool:
            return "True" if v else "False"
        if t is int:
            return str(v)
        if t is float:
            return format_float(v)
        if t is str:
            return sq(v)
        if t is DataType:
            return dtype_text(self.p, v)
        if isinstance(v, Enum):
            return enum_text(self.p, v)
        if isinstance(v, Expr):
            return self.expr(v)
        if t is list:
            return "[" + ", ".join([self.value(x) for x in v]) + "]"
        if t is tuple:
            inner = ", ".join([self.value(x) for x in v])
            return f"({inner},)" if len(v) == 1 else f"({inner})"
        if t is dict:
            return self.dict_text(v)
        if v is None:
            return "None"
        if isinstance(v, float):  # float subclasses such as numpy.float64
            return format_float(float(v))
        return repr(v)

    def dict_text(self, d: Mapping[str, Any]) -> str:
        """``{"key": value, ...}`` with double-quoted keys."""
        return "{" + ", ".join([f"{dq(str(k))}: {self.value(x)}" for k, x in d.items()]) + "}"

    def attrs_item(self, attrs: Mapping[str, Any]) -> str:
        """``attrs={...}``, printed last in a call."""
        return f"attrs={self.dict_text(attrs)}"

    def unsupported(self, e: Any) -> str:
        return "<unsupported IRNode type>"


_EXPR_FNS: dict[type, Callable[[ExprPrinter, Any], str]] = {
    Var: ExprPrinter.var,
    IterArg: ExprPrinter.var,
    MemRef: ExprPrinter.memref_expr,
    ConstInt: ExprPrinter.const_int,
    ConstFloat: ExprPrinter.const_float,
    ConstBool: ExprPrinter.const_bool,
    MakeTuple: ExprPrinter.make_tuple,
    TupleGetItemExpr: ExprPrinter.tuple_get_item,
    Call: ExprPrinter.call,
    Submit: ExprPrinter.submit,
}
_EXPR_FNS.update({cls: ExprPrinter.infix for cls in _INFIX})
_EXPR_FNS.update({cls: ExprPrinter.prefix_op for cls in _PREFIX})
_EXPR_FNS.update({cls: ExprPrinter.call_form for cls in _CALL_FORM})
_EXPR_FNS[Xor] = ExprPrinter.xor


def _is_logical_xor(e: Xor) -> bool:
    """Both operands are BOOL scalars, so ``a ^ b`` reads back as ``Xor``."""
    return _is_bool(e.left.type) and _is_bool(e.right.type)


def _is_bool(t: object) -> bool:
    return isinstance(t, ScalarType) and t.dtype is DataType.BOOL


def _resolve(cls: type) -> Callable[[ExprPrinter, Any], str]:
    """The printer of the nearest registered base class (cached)."""
    for base in cls.__mro__[1:]:
        fn = _EXPR_FNS.get(base)
        if fn is not None:
            _EXPR_FNS[cls] = fn
            return fn
    _EXPR_FNS[cls] = ExprPrinter.unsupported
    return ExprPrinter.unsupported
