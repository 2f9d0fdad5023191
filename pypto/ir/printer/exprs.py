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

# How each operator prints: (kind, text, precedence); kind "infix" (text is the operator),
# "prefix" or "call" (text is the function name, "" for the builtin abs).
_Form = tuple[str, str, int]
_FORMS: dict[type, _Form] = {cls: ("infix", op, prec) for cls, (op, prec) in _INFIX.items()}
_FORMS.update({cls: ("prefix", op, prec) for cls, (op, prec) in _PREFIX.items()})
_FORMS.update({cls: ("call", name or "", P_CALL) for cls, name in _CALL_FORM.items()})

_CONSTS = (ConstInt, ConstFloat, ConstBool)
_SHAPES = op_shapes.SHAPES
_RENAMED_BY_ARGS = op_shapes.RENAMED_BY_ARGS
_PIPE_KEY_OPS = frozenset({"system.sync_set", "system.sync_wait"})

INDEX = DataType.INDEX
FP32 = DataType.FP32
# The attrs every Call made without attrs shares (the field's default).
NO_CALL_ATTRS = Call.model_fields["attrs"].default


class ExprPrinter:
    """Prints expressions and keyword values with a fixed prefix and variable names."""

    def __init__(self, prefix: str, names: dict[Var, str] | None = None) -> None:
        self.p = prefix
        # Printed names by Var (Vars hash by identity, in C).
        self.names: dict[Var, str] = names if names is not None else {}
        # Constants print typed, ``pl.const(v, pl.INDEX)`` (pure-constant trees, composite dims).
        self.typed = False
        # Calls of program functions print as ``self.f(...)``.
        self.in_program = False
        # Inside ``pl.split_aiv`` its mode, the ``split=`` aiv_shard/aic_gather imply (the parser restores it).
        self.split_aiv_mode: int | None = None
        # A Var printed by its hint because ``names`` lacks it (see ProgramPrinter.optimistic_lines).
        self.missed = False
        # Names of the program functions called (GlobalVar callees), for callee-first ordering.
        self.callees: set[str] = set()
        # Printed callee, call shape and renamed-by-args flag of each op name met (the prefix is fixed per printer).
        self._op_names: dict[str, tuple[str, Callable[[ExprPrinter, Call], list[str]] | None, bool]] = {}
        # The printed callee of each op name met whose calls print in the generic shape.
        self._simple_callees: dict[str, str] = {}

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
        name = self.names.get(e)
        if name is None:
            self.missed = True
            return e.name_hint
        return name

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
    def operators(self, e: BinaryExpr | UnaryExpr) -> str:
        """A tree of scalar operators, printed bottom-up with an explicit stack.

        ``x + x + ... + x`` is a left spine as deep as the sum is long; one loop prints any chain
        of operators in one frame (operands of other kinds, such as calls, go through
        :meth:`expr`). A pure-constant subtree prints its leaves typed, ``pl.const(1, pl.INDEX)``:
        a constant leaf is printed by its parent, once the parent knows whether all its operands
        are constant.
        """
        saved = self.typed
        # Printed operands: (text, precedence, all constant); a constant leaf waits as (None, node, True).
        done: list[tuple[str | None, Any, bool]] = []
        todo: list[tuple[Expr, bool]] = [(e, False)]
        while todo:
            node, operands_done = todo.pop()
            form = _FORM_OF.get(type(node), _UNSEEN)
            if form is _UNSEEN:
                form = _operator_form(type(node))
            if form is None:
                if type(node) in _CONSTS:
                    done.append((None, node, True))
                else:
                    self.typed = saved
                    done.append((self.expr(node), self.prec(node), False))
            elif not operands_done:
                todo.append((node, True))
                if isinstance(node, BinaryExpr):
                    todo += ((node.right, False), (node.left, False))
                else:
                    todo.append((node.operand, False))
            elif isinstance(node, BinaryExpr):
                lt, left, lc = done[-2]
                rt, right, rc = done[-1]
                del done[-2:]
                self.typed = saved or (lc and rc)
                lhs = (self.expr(left), self.prec(left)) if lt is None else (lt, left)
                rhs = (self.expr(right), self.prec(right)) if rt is None else (rt, right)
                done.append((self._binary_text(node, form, lhs, rhs), self.prec(node), lc and rc))
            else:
                ot, operand, oc = done.pop()
                self.typed = saved or oc
                inner = (self.expr(operand), self.prec(operand)) if ot is None else (ot, operand)
                done.append((self._unary_text(node, form, inner), self.prec(node), oc))
        self.typed = saved
        return done[0][0]  # type: ignore[return-value]  (the root is an operator: never None)

    def _binary_text(self, e: BinaryExpr, form: _Form, left: tuple[str, int], right: tuple[str, int]) -> str:
        kind, text, prec = form
        if isinstance(e, Xor) and _is_logical_xor(e):
            kind, text, prec = "infix", " ^ ", P_BITXOR
        (lt, lp), (rt, rp) = left, right
        if kind == "call":
            return f"{self.p}.{text}({lt}, {rt})"
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
        return lt + text + rt

    def _unary_text(self, e: UnaryExpr, form: _Form, operand: tuple[str, int]) -> str:
        kind, text, prec = form
        inner, inner_prec = operand
        if kind == "prefix":
            return text + (f"({inner})" if inner_prec < prec else inner)
        if isinstance(e, Cast):
            return f"{self.p}.{text}({inner}, {dtype_text(self.p, e.dtype)})"
        return f"{self.p}.{text}({inner})" if text else f"abs({inner})"

    # ---- tuples ------------------------------------------------------------------------
    def make_tuple(self, e: MakeTuple) -> str:
        return "[" + ", ".join([self.expr(x) for x in e.elements]) + "]"

    def tuple_get_item(self, e: TupleGetItemExpr) -> str:
        return f"{self.operand(e.tuple, P_CALL)}[{e.index}]"

    # ---- calls -------------------------------------------------------------------------
    def callee(self, op: Op) -> str:
        """``self.f`` for program functions, else the op's printed name."""
        if isinstance(op, GlobalVar):
            self.callees.add(op.name)
            return f"self.{op.name}" if self.in_program else op.name
        return op_shapes.printed_op_name(self.p, op.name)

    def call(self, e: Call) -> str:
        saved, self.typed = self.typed, False
        op = e.op
        if isinstance(op, GlobalVar):
            callee = self.callee(op)
            parts = []
            for a in e.args:  # a loop, not a comprehension: one frame less per nested call
                parts.append(self.expr(a))
            parts.extend(self.kwarg_items(op.name, e.kwargs))
        else:
            name = op.name
            # Per op name: its printed callee and call shape (None: the generic one).
            known = self._op_names.get(name)
            if known is None:
                known = self._op_names[name] = (
                    op_shapes.printed_op_name(self.p, name),
                    _SHAPES.get(name),
                    name in _RENAMED_BY_ARGS,
                )
                if known[1] is None and not known[2]:
                    self._simple_callees[name] = known[0]
            callee, shape, renamed = known
            if renamed:
                callee = op_shapes.printed_op_name(self.p, op_shapes.renamed_op(e))
            if shape is not None:
                parts = shape(self, e)
            else:
                parts = self.call_args(e)
        attrs = e.attrs
        # The attrs model's len(), without its Python call (most calls share the empty default).
        if attrs is not NO_CALL_ATTRS and attrs.__pydantic_fields_set__:
            if not isinstance(op, GlobalVar) and op.name in op_shapes.SHAPE_ATTRS:
                attrs = {k: v for k, v in attrs.items() if k not in op_shapes.SHAPE_ATTRS[op.name]}
            if attrs:
                parts.append(self.attrs_item(attrs))
        self.typed = saved
        return f"{callee}({', '.join(parts)})"

    def call_args(self, e: Call, skip: frozenset[str] = frozenset()) -> list[str]:
        """Positional args (named Vars and untyped FP32 constants inlined), then ``key=value``
        kwargs (without ``skip`` keys)."""
        parts = []
        names = self.names
        # The operands in this frame, in a loop (not a comprehension): nested calls cost fewer frames.
        for a in e.args:
            text = names.get(a)
            parts.append(self.call_operand(a) if text is None else text)
        if e.kwargs:
            parts.extend(self.kwarg_items(e.op.name, e.kwargs, skip))
        return parts

    def call_operand(self, a: Expr) -> str:
        """A positional operand that is not a named Var."""
        t = type(a)
        if t is ConstFloat and a.dtype is FP32:  # the untyped const_float(), inlined
            return format_float(a.value)
        if t is Var:
            self.missed = True
            return a.name_hint
        # expr(), inlined: one frame less per nested call (deep programs keep Python's limit)
        fn = _EXPR_FNS.get(t)
        if fn is None:
            fn = _resolve(t)
        return fn(self, a)

    def submit(self, e: Submit) -> str:
        saved, self.typed = self.typed, False
        parts = [self.callee(e.op)]
        parts.extend(self.expr(a) for a in e.args)
        parts.extend(self.kwarg_items(e.op.name, e.kwargs))
        # The established keyword order: deps=, then core_num=, then predicate=.
        if e.deps:
            parts.append("deps=[" + ", ".join([self.expr(d) for d in e.deps]) + "]")
        if e.core_num is not None:
            parts.append(f"core_num={self.expr(e.core_num)}")
            if e.sync_start:
                parts.append("sync_start=True")
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
        """``key=value`` texts in stored order, with the per-key rules of docs/ir.md#printer."""
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
_EXPR_FNS.update({cls: ExprPrinter.operators for cls in _FORMS})


def _is_logical_xor(e: Xor) -> bool:
    """Both operands are BOOL scalars, so ``a ^ b`` reads back as ``Xor``."""
    return _is_bool(e.left.type) and _is_bool(e.right.type)


def _is_bool(t: object) -> bool:
    return isinstance(t, ScalarType) and t.dtype is DataType.BOOL


# The form of each class met so far: its own, that of its nearest operator base, or None.
_FORM_OF: dict[type, _Form | None] = dict(_FORMS)
_UNSEEN: Any = object()


def _operator_form(cls: type) -> _Form | None:
    """The form of an operator class (that of its nearest base for subclasses), None for others."""
    form = next((_FORMS[base] for base in cls.__mro__ if base in _FORMS), None)
    _FORM_OF[cls] = form
    return form


def _resolve(cls: type) -> Callable[[ExprPrinter, Any], str]:
    """The printer of the nearest registered base class (cached)."""
    for base in cls.__mro__[1:]:
        fn = _EXPR_FNS.get(base)
        if fn is not None:
            _EXPR_FNS[cls] = fn
            return fn
    _EXPR_FNS[cls] = ExprPrinter.unsupported
    return ExprPrinter.unsupported
