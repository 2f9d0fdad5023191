"""Expressions: Python syntax -> parsed values (Python constants or IR expressions).

``eval`` returns a Python value where the expression is static (literals, closure constants and
arithmetic on them, folded as Python would) and an ``ir.Expr`` otherwise. Static arithmetic is
folded so ``2 * M`` with a closure ``M = 64`` is the literal ``128``; ``pl.const(...)`` leaves are
IR constants and are never folded, which is how the printer keeps constant trees intact.
"""

from __future__ import annotations

import ast
import difflib
import math
import operator
import types
from collections.abc import Callable
from typing import Any

from pypto import ir
from pypto.ir import DataType

from ..typing.dynamic import DynVar
from ..typing.values import Value
from .core import ParserCore, describe
from .diagnostics import InvalidOperationError, ParserTypeError, UndefinedVariableError, UnsupportedFeatureError
from .env import MISSING
from .safe_eval import PY_BINOPS, oversized

_STATIC = (bool, int, float, str, list, tuple)

_SYMBOLS: dict[type, str] = {
    ast.Add: "+",
    ast.Sub: "-",
    ast.Mult: "*",
    ast.Div: "/",
    ast.FloorDiv: "//",
    ast.Mod: "%",
    ast.Pow: "**",
    ast.LShift: "<<",
    ast.RShift: ">>",
    ast.BitAnd: "&",
    ast.BitOr: "|",
    ast.BitXor: "^",
    ast.MatMult: "@",
}

_IR_BINOPS: dict[type, Callable[..., ir.Expr]] = {
    ast.Add: ir.add,
    ast.Sub: ir.sub,
    ast.Mult: ir.mul,
    ast.Div: ir.truediv,
    ast.FloorDiv: ir.floordiv,
    ast.Mod: ir.mod,
    ast.Pow: ir.pow,
    ast.LShift: ir.bit_shift_left,
    ast.RShift: ir.bit_shift_right,
    ast.BitAnd: ir.bit_and,
    ast.BitOr: ir.bit_or,
    ast.BitXor: ir.bit_xor,
}

# On BOOL operands the bitwise operators are logical: ^ is Xor; & and | keep their nodes.
_BOOL_BINOPS: dict[type, type[ir.BinaryExpr]] = {ast.BitXor: ir.Xor, ast.BitAnd: ir.BitAnd, ast.BitOr: ir.BitOr}

_PY_COMPARE: dict[type, Callable[[Any, Any], Any]] = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.Is: operator.is_,
    ast.IsNot: operator.is_not,
    ast.In: lambda a, b: a in b,
    ast.NotIn: lambda a, b: a not in b,
}

_CMP_TEXT: dict[type, str] = {
    ast.Eq: "==",
    ast.NotEq: "!=",
    ast.Lt: "<",
    ast.LtE: "<=",
    ast.Gt: ">",
    ast.GtE: ">=",
    ast.Is: "is",
    ast.IsNot: "is not",
    ast.In: "in",
    ast.NotIn: "not in",
}

IR_COMPARE: dict[type, Callable[..., ir.Expr]] = {
    ast.Eq: ir.eq,
    ast.NotEq: ir.ne,
    ast.Lt: ir.lt,
    ast.LtE: ir.le,
    ast.Gt: ir.gt,
    ast.GtE: ir.ge,
}

_COMPREHENSION_HINT = "build the list in Python outside the function and use it as a closure value"
_UNSUPPORTED_EXPRS: dict[type, tuple[str, str]] = {
    ast.IfExp: (
        "conditional expressions (x if c else y) are not supported",
        "use an if statement whose branches end with y = pl.yield_(...)",
    ),
    ast.Lambda: (
        "lambda expressions are not supported in DSL code",
        "define the helper with @pl.inline (expanded at each call) or @pl.function",
    ),
    ast.ListComp: ("list comprehensions are not supported in DSL code", _COMPREHENSION_HINT),
    ast.SetComp: ("set comprehensions are not supported in DSL code", _COMPREHENSION_HINT),
    ast.DictComp: ("dict comprehensions are not supported in DSL code", _COMPREHENSION_HINT),
    ast.GeneratorExp: ("generator expressions are not supported in DSL code", _COMPREHENSION_HINT),
    ast.Await: ("await is not supported in DSL code", "remove await: DSL code runs on the device, not in asyncio"),
    ast.Yield: (
        "yield can only be used as a statement",
        "end the loop body or branch with a yield statement, or bind with x = pl.yield_(value)",
    ),
    ast.YieldFrom: ("yield from is not supported in DSL code", "yield the values themselves: yield a, b"),
    ast.NamedExpr: ("assignment expressions (:=) are not supported in DSL code", "assign in a separate statement"),
    ast.Set: ("set displays are not supported in DSL code", "use a list [a, b] or a tuple (a, b)"),
    ast.Starred: (
        "starred expressions (*x) are not supported in DSL code",
        "write the elements out: (a, b, c) instead of (*xs,)",
    ),
    ast.Slice: (
        "a slice can only appear inside a subscript",
        "slice a tensor or tile as x[0:16, :], or pass offsets and shapes to pl.slice / pl.load",
    ),
    ast.JoinedStr: (
        "f-strings are only supported as arguments of pl.static_print",
        'pl.static_print(f"x = {x}") prints at parse time; elsewhere use a plain string',
    ),
}
_OTHER_EXPR_HINT = (
    "DSL expressions are names, numbers, operators, comparisons, calls, subscripts, lists and tuples"
)


# Undefined names that are Python builtins the DSL spells differently.
_PYTHON_BUILTINS = {
    "range": "use pl.range(...)",
    "print": "use pl.static_print(...) to print at parse time",
    "len": "use pl.tensor.dim(t, axis) for an extent of a tensor",
    "int": "use pl.cast(x, pl.INT64) to convert a scalar, or pl.const(v, pl.INT64) for a typed constant",
    "float": "use pl.cast(x, pl.FP32) to convert a scalar, or pl.const(v, pl.FP32) for a typed constant",
    "sum": "accumulate in a loop with init_values, or use a reduction op such as pl.tile.row_sum",
}
_OPERATOR_HINTS: dict[type, str] = {ast.MatMult: "use pl.matmul(a, b) for a matrix product"}
_SCALAR_OPERAND_HINT = (
    "operands of a scalar operator need the same dtype category; convert one with pl.cast(x, pl.INT64) "
    "or pl.cast(x, pl.FP32), or use a typed constant pl.const(v, dtype)"
)


def is_static(value: Any) -> bool:
    """True for a Python constant (folded at parse time), False for IR values."""
    return isinstance(value, _STATIC) or value is None


class ExprMixin(ParserCore):
    """Expression evaluation (dispatch table ``_eval_dispatch`` is built by the body parser)."""

    def eval(self, node: ast.expr) -> Any:
        """The parsed value of ``node``: a Python constant or an IR expression (or a resolved object)."""
        handler = self._eval_dispatch.get(type(node))
        if handler is None:
            message, hint = _UNSUPPORTED_EXPRS.get(
                type(node), (f"{type(node).__name__} expressions are not supported", _OTHER_EXPR_HINT)
            )
            self.fail(UnsupportedFeatureError, message, node, hint)
        return handler(self, node)

    def expr(self, node: ast.expr) -> ir.Expr:
        """The IR expression of ``node``."""
        return self.to_expr(self.eval(node), node)

    # ----- leaves ----------------------------------------------------------------------------
    def eval_constant(self, node: ast.Constant) -> Any:
        value = node.value
        if isinstance(value, (bytes, complex)):
            self.fail(
                UnsupportedFeatureError,
                f"{type(value).__name__} literals are not supported",
                node,
                "DSL literals are ints, floats, booleans, strings (messages, attrs) and None",
            )
        return value

    def eval_name(self, node: ast.Name) -> Any:
        var = self.vars.get(node.id)
        if var is not None:
            return var
        return self.global_value(node.id, node)

    def global_value(self, name: str, node: ast.AST) -> Any:
        """The closure / module value of ``name`` (DynVars and wrappers become IR expressions)."""
        value = self.env.lookup(name)
        if value is MISSING:
            if name in ("inf", "nan"):
                return math.inf if name == "inf" else math.nan
            if name == "self":
                if self.program is not None:
                    self.fail(
                        UnsupportedFeatureError,
                        "'self' can only be used to call program functions: self.f(...)",
                        node,
                        "call a function of the program: self.kernel(x), or launch it: pl.submit(self.kernel, x)",
                    )
                self.fail(
                    UndefinedVariableError,
                    "'self' is only available in the functions of a @pl.program class",
                    node,
                    "put the functions in a @pl.program class to call each other as self.f(...), or call "
                    "another @pl.function by its name",
                )
            known = list(self.vars) + list(self.env.names())
            close = difflib.get_close_matches(name, known, n=1)
            if name in _PYTHON_BUILTINS:
                hint = _PYTHON_BUILTINS[name]
            elif close:
                hint = f"did you mean '{close[0]}'?"
            else:
                hint = "assign it before this line, pass it as a parameter, or define it where the function is defined"
            self.fail(UndefinedVariableError, f"undefined variable '{name}'", node, hint)
        if isinstance(value, DynVar):
            return value.var
        if isinstance(value, Value):
            return value.unwrap()
        return value

    def eval_attribute(self, node: ast.Attribute) -> Any:
        base = node.value
        if type(base) is ast.Name and base.id == "self" and self.program is not None and "self" not in self.vars:
            return self.program_ref(node.attr, node)
        key = _dotted(node)
        if key is not None and key[0] not in self.vars:
            value = self.env.attr_cache.get(key, MISSING)
            if value is not MISSING:
                return value
        value = self._attribute(node)
        if key is not None and key[0] not in self.vars and _namespace_chain(self.env, key):
            self.env.attr_cache[key] = value
        return value

    def _attribute(self, node: ast.Attribute) -> Any:
        base = node.value
        obj = self.eval(base)
        attr = node.attr
        if isinstance(obj, ir.Expr):
            self.fail(
                UnsupportedFeatureError,
                f"attribute access '.{attr}' on a DSL value is not supported",
                node,
                "use the op functions, e.g. pl.tensor.dim(x, 0) instead of x.shape[0]",
            )
        if attr.startswith("_"):
            self.fail(
                UnsupportedFeatureError,
                f"private attribute '{attr}' cannot be used in DSL code",
                node,
                "use the public pl.* API (pl.tensor.*, pl.tile.*, pl.system.*, the types and enums)",
            )
        if self.env.is_text and not _is_namespace(obj):
            self.fail(
                UnsupportedFeatureError,
                f"attribute '.{attr}' of {describe(obj)} cannot be used here",
                node,
                "DSL text reads attributes of pypto modules, classes and enums only (pl.tile.add, pl.Mem.Vec)",
            )
        value = getattr(obj, attr, MISSING)
        if value is MISSING:
            owner = ast.unparse(base)
            close = difflib.get_close_matches(attr, [n for n in dir(obj) if not n.startswith("_")], n=1)
            hint = (
                f"did you mean '{owner}.{close[0]}'?"
                if close
                else f"see dir({owner}) for what it provides; ops live in pl.tensor, pl.tile, pl.system and pl.array"
            )
            self.fail(UndefinedVariableError, f"'{owner}' has no attribute '{attr}'", node, hint)
        if isinstance(value, DynVar):
            return value.var
        return value

    # ----- operators -------------------------------------------------------------------------
    def eval_operators(self, node: ast.BinOp | ast.UnaryOp) -> Any:
        """A tree of unary and binary operators, evaluated left to right with an explicit stack.

        ``x + x + ... + x`` is a left spine as deep as the sum is long: walking it in a loop keeps
        any chain of operators to one frame (operands of other kinds, such as calls, go through
        :meth:`eval`).
        """
        values: list[Any] = []
        todo: list[tuple[ast.expr, bool]] = [(node, False)]
        while todo:
            item, operands_done = todo.pop()
            kind = type(item)
            if operands_done:
                if kind is ast.BinOp:
                    right = values.pop()
                    left = values.pop()
                    values.append(self.binary(type(item.op), left, right, item, item.left, item.right))
                else:
                    values.append(self.unary(item, values.pop()))
            elif kind is ast.BinOp:
                todo += ((item, True), (item.right, False), (item.left, False))
            elif kind is ast.UnaryOp:
                todo += ((item, True), (item.operand, False))
            else:
                values.append(self.eval(item))
        return values[0]

    def binary(self, op: type, left: Any, right: Any, node: ast.AST, lnode: ast.expr, rnode: ast.expr) -> Any:
        """``left <op> right``: folded when both are constants, else the scalar IR node."""
        if is_static(left) and is_static(right):
            what = oversized(op, left, right)
            if what is not None:
                self.fail(
                    InvalidOperationError,
                    f"{what} too large in a constant expression",
                    node,
                    "keep constant arithmetic within the range of 64-bit integers",
                )
            return self._fold(PY_BINOPS.get(op), left, right, node, _SYMBOLS.get(op, "?"))
        factory = _IR_BINOPS.get(op)
        if factory is None:
            self.fail(
                UnsupportedFeatureError,
                f"operator '{_SYMBOLS.get(op, op.__name__)}' is not supported",
                node,
                _OPERATOR_HINTS.get(op, "use the op function for it, e.g. pl.matmul(a, b)"),
            )
        lhs = self.scalar_operand(left, lnode, node)
        rhs = self.scalar_operand(right, rnode, node)
        span = self.span(node)
        bool_node = _BOOL_BINOPS.get(op)
        if bool_node is not None and _is_bool(lhs) and _is_bool(rhs):
            return bool_node(lhs, rhs, DataType.BOOL, span)
        try:
            return factory(lhs, rhs, span=span)
        except (TypeError, ValueError) as err:
            self.fail(ParserTypeError, f"operator '{_SYMBOLS[op]}': {err}", node, _SCALAR_OPERAND_HINT)

    def scalar_operand(self, value: Any, node: ast.expr, op_node: ast.AST) -> ir.Expr:
        """``value`` as a scalar IR expression, or a ParserTypeError pointing at the operator."""
        expr = self.to_expr(value, node)
        t = expr.type
        if not isinstance(t, ir.ScalarType):
            kind = type(t).__name__.replace("Type", "")
            self.fail(
                ParserTypeError,
                f"operators work on scalars, but this operand is a {kind} ({t})",
                node,
                "use the op functions for tensors and tiles, e.g. pl.add(a, b), pl.mul(t, 2.0)",
            )
        return expr

    def _fold(self, fn: Callable[..., Any] | None, left: Any, right: Any, node: ast.AST, symbol: str) -> Any:
        if fn is None:
            self.fail(
                UnsupportedFeatureError,
                f"operator '{symbol}' is not supported",
                node,
                "constants combine with + - * / // % ** << >> & | ^ and the comparisons",
            )
        try:
            return fn(left, right)
        except ZeroDivisionError:
            self.fail(
                InvalidOperationError,
                "division by zero in a constant expression",
                node,
                "check the closure constants this expression uses: the divisor folds to 0",
            )
        except (TypeError, ValueError, OverflowError) as err:
            self.fail(
                ParserTypeError,
                f"operator '{symbol}' on constants: {err}",
                node,
                "arithmetic on constants needs numbers on both sides (+ also joins two strings, lists or tuples)",
            )

    def unary(self, node: ast.UnaryOp, value: Any) -> Any:
        """``<op> value``: folded when ``value`` is a constant, else the scalar IR node."""
        op = type(node.op)
        if is_static(value):
            fn = {ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Not: operator.not_, ast.Invert: operator.invert}[op]
            try:
                return fn(value)
            except TypeError as err:
                self.fail(
                    ParserTypeError,
                    f"unary operator on a constant: {err}",
                    node,
                    "-, +, ~ apply to numbers (~ to ints only); not applies to any constant",
                )
        if op is ast.UAdd:
            return self.scalar_operand(value, node.operand, node)
        operand = self.scalar_operand(value, node.operand, node)
        factory = {ast.USub: ir.neg, ast.Not: ir.not_, ast.Invert: ir.bit_not}[op]
        try:
            return factory(operand, span=self.span(node))
        except (TypeError, ValueError) as err:
            self.fail(
                ParserTypeError,
                str(err),
                node,
                "-x takes an int or float scalar and ~x an integer scalar; negate a BOOL with not x",
            )

    def eval_boolop(self, node: ast.BoolOp) -> Any:
        values = [self.eval(v) for v in node.values]
        is_and = type(node.op) is ast.And
        if all(is_static(v) for v in values):
            result = values[0]
            for v in values[1:]:
                result = (result and v) if is_and else (result or v)
            return result
        factory = ir.and_ if is_and else ir.or_
        span = self.span(node)
        result = self.scalar_operand(values[0], node.values[0], node)
        for v, sub in zip(values[1:], node.values[1:]):
            result = factory(result, self.scalar_operand(v, sub, node), span=span)
        return result

    def eval_compare(self, node: ast.Compare) -> Any:
        operands = [node.left, *node.comparators]
        values = [self.eval(v) for v in operands]
        span = self.span(node)
        result: Any = None
        for i, op in enumerate(node.ops):
            left, right = values[i], values[i + 1]
            kind = type(op)
            text = _CMP_TEXT[kind]
            if is_static(left) and is_static(right):
                part: Any = self._fold(_PY_COMPARE[kind], left, right, node, text)
            elif kind not in IR_COMPARE:
                self.fail(
                    UnsupportedFeatureError,
                    f"'{text}' cannot compare DSL values",
                    node,
                    "compare scalars with ==, !=, <, <=, > or >=; 'is' / 'in' only work on constants",
                )
            else:
                lhs = self.scalar_operand(left, operands[i], node)
                rhs = self.scalar_operand(right, operands[i + 1], node)
                try:
                    part = IR_COMPARE[kind](lhs, rhs, span=span)
                except (TypeError, ValueError) as err:
                    self.fail(ParserTypeError, f"comparison '{text}': {err}", node, _SCALAR_OPERAND_HINT)
            if result is None:
                result = part
            elif is_static(result) and is_static(part):
                result = result and part
            else:
                result = ir.and_(self.to_expr(result, node), self.to_expr(part, node), span=span)
        return result

    # ----- containers ------------------------------------------------------------------------
    def eval_list(self, node: ast.List) -> list[Any]:
        return [self.eval(e) for e in node.elts]

    def eval_tuple(self, node: ast.Tuple) -> tuple[Any, ...]:
        return tuple(self.eval(e) for e in node.elts)

    def eval_dict(self, node: ast.Dict) -> dict[Any, Any]:
        out: dict[Any, Any] = {}
        for key, value in zip(node.keys, node.values):
            if key is None:
                self.fail(
                    UnsupportedFeatureError,
                    "'**' in a dict display is not supported",
                    value,
                    "write every key out: {\"a\": 1, \"b\": 2}",
                )
            k = self.eval(key)
            if not isinstance(k, (str, int)):
                self.fail(
                    ParserTypeError,
                    f"dict keys must be strings or ints, got {describe(k)}",
                    key,
                    'use string keys as in attrs={"key": value}',
                )
            out[k] = self.eval(value)
        return out


def _is_bool(expr: ir.Expr) -> bool:
    t = expr.type
    return isinstance(t, ir.ScalarType) and t.dtype == DataType.BOOL


def _dotted(node: ast.Attribute) -> tuple[str, ...] | None:
    """``("pl", "tile", "add")`` for ``pl.tile.add``; None unless the chain ends in a plain name."""
    parts = [node.attr]
    base = node.value
    while type(base) is ast.Attribute:
        parts.append(base.attr)
        base = base.value
    if type(base) is not ast.Name:
        return None
    parts.append(base.id)
    parts.reverse()
    return tuple(parts)


def _namespace_chain(env: Any, key: tuple[str, ...]) -> bool:
    """Is every object the dotted name ``key`` walks through a pypto namespace (so its value is fixed)?"""
    obj = env.lookup(key[0])
    for attr in key[1:]:
        if not _is_namespace(obj):
            return False
        obj = getattr(obj, attr, MISSING)
    return True


def _is_namespace(obj: Any) -> bool:
    """Objects whose attributes text may read: pypto modules, classes, enums and their members."""
    if isinstance(obj, types.ModuleType):
        return obj.__name__.startswith("pypto")
    owner = obj if isinstance(obj, type) else type(obj)
    return (owner.__module__ or "").startswith("pypto")
