"""Evaluation of module-level constants of parsed text, without executing anything.

Accepted: literals, lists, tuples, dicts, arithmetic on them, names bound earlier in the text,
attributes of pypto modules and classes (``pl.FP32``, ``pl.Mem.Vec``), type annotations
(``pl.Tensor[[64], pl.FP32]``) and the calls ``pl.dynamic("N")`` / ``pl.const(v, dtype)``.
Sizes are bounded so a hostile text cannot exhaust memory or time (``[0] * 10**12``).
"""

from __future__ import annotations

import ast
import operator
import types
from collections.abc import Callable
from typing import Any, NoReturn

from .. import constructs
from ..typing.annotation import ANNOTATION_FORMS
from ..typing.dynamic import dynamic
from .diagnostics import InvalidOperationError, ParserSyntaxError, ParserTypeError
from .source import SourceFile

_ACCEPTED = "module level may hold literals, lists, tuples, dicts, arithmetic on them, pl.dynamic(...) and pl.const(...)"
_MAX_SIZE = 1_000_000
_MAX_EXPONENT = 4096
_MAX_INT_BITS = 1 << 16

# Python's meaning of each binary operator (also the DSL's folding of static values).
PY_BINOPS: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
    ast.LShift: operator.lshift,
    ast.RShift: operator.rshift,
    ast.BitAnd: operator.and_,
    ast.BitOr: operator.or_,
    ast.BitXor: operator.xor,
}
_UNARY: dict[type, Callable[[Any], Any]] = {
    ast.USub: operator.neg,
    ast.UAdd: operator.pos,
    ast.Not: operator.not_,
    ast.Invert: operator.invert,
}


class ConstantEvaluator:
    """Evaluates constant expressions of a text against its namespace."""

    def __init__(self, src: SourceFile, namespace: dict[str, Any]) -> None:
        self.src = src
        self.namespace = namespace

    def fail(self, cls: type, message: str, node: ast.AST, hint: str) -> NoReturn:
        """Raise ``cls`` at ``node``; ``hint`` says what to write instead."""
        raise cls(message, self.src.span(node), hint, source_lines=self.src.lines)

    def eval(self, node: ast.AST) -> Any:
        """The value of ``node``; ParserSyntaxError for anything that is not a constant expression."""
        kind = type(node)
        if kind is ast.Constant:
            if isinstance(node.value, (bytes, complex)):
                self.fail(
                    ParserSyntaxError,
                    "unsupported literal in a module-level constant",
                    node,
                    "module-level constants are ints, floats, booleans, strings, None and containers of them",
                )
            return node.value
        if kind is ast.List:
            return [self.eval(e) for e in node.elts]
        if kind is ast.Tuple:
            return tuple(self.eval(e) for e in node.elts)
        if kind is ast.Dict:
            if any(k is None for k in node.keys):
                self.fail(
                    ParserSyntaxError,
                    "'**' is not supported in a module-level constant",
                    node,
                    'write every key out: {"a": 1, "b": 2}',
                )
            return {self.eval(k): self.eval(v) for k, v in zip(node.keys, node.values)}  # type: ignore[arg-type]
        if kind is ast.Name:
            if node.id not in self.namespace:
                self.fail(
                    ParserSyntaxError,
                    f"undefined name '{node.id}' in a module-level constant",
                    node,
                    "define the name above this line (constants are read top to bottom), or import pypto.language "
                    "as pl to use pl.*",
                )
            return self.namespace[node.id]
        if kind is ast.Attribute:
            return self.attribute(node)
        if kind is ast.UnaryOp:
            return self.apply(_UNARY[type(node.op)], [self.eval(node.operand)], node)
        if kind is ast.BinOp:
            fn = PY_BINOPS.get(type(node.op))
            if fn is None:
                self.fail(
                    ParserSyntaxError,
                    "unsupported operator in a module-level constant",
                    node,
                    "constants combine with + - * / // % ** << >> & | ^",
                )
            left, right = self.eval(node.left), self.eval(node.right)
            self.check_size(type(node.op), left, right, node)
            return self.apply(fn, [left, right], node)
        if kind is ast.Subscript:
            return self.subscript(node)
        if kind is ast.Call:
            return self.call(node)
        self.fail(
            ParserSyntaxError,
            f"{kind.__name__} is not allowed in a module-level constant",
            node,
            _ACCEPTED,
        )

    def attribute(self, node: ast.Attribute) -> Any:
        obj = self.eval(node.value)
        if node.attr.startswith("_"):
            self.fail(
                ParserSyntaxError,
                f"private attribute '{node.attr}' is not allowed",
                node,
                "use the public pl.* names (dtypes, enums, types, pl.dynamic)",
            )
        owner = obj if isinstance(obj, (type, types.ModuleType)) else None
        name = getattr(owner, "__name__", "") if isinstance(owner, types.ModuleType) else getattr(owner, "__module__", "")
        if owner is None or not (name or "").startswith("pypto"):
            self.fail(
                ParserSyntaxError,
                f"attribute '.{node.attr}' is not allowed in a module-level constant",
                node,
                "module-level constants read attributes of pypto modules and classes only (pl.FP32, pl.Mem.Vec)",
            )
        if not hasattr(obj, node.attr):
            self.fail(
                ParserSyntaxError,
                f"'{ast.unparse(node.value)}' has no attribute '{node.attr}'",
                node,
                f"check the spelling; dir({ast.unparse(node.value)}) lists what it provides",
            )
        return getattr(obj, node.attr)

    def subscript(self, node: ast.Subscript) -> Any:
        base = self.eval(node.value)
        from_items = getattr(base, "from_items", None)
        if from_items is not None:
            items_nodes = node.slice.elts if type(node.slice) is ast.Tuple else [node.slice]
            try:
                return from_items(tuple(self.eval(i) for i in items_nodes))
            except (TypeError, ValueError) as err:
                self.fail(ParserTypeError, str(err), node, ANNOTATION_FORMS.get(getattr(base, "kind", ""), _ACCEPTED))
        if isinstance(base, (list, tuple, dict, str)):
            return self.apply(operator.getitem, [base, self.eval(node.slice)], node)
        self.fail(
            ParserSyntaxError,
            "this subscript is not allowed in a module-level constant",
            node,
            "index lists, tuples, dicts and strings, or write a type such as pl.Tensor[[64], pl.FP32]",
        )

    def call(self, node: ast.Call) -> Any:
        callee = self.eval(node.func)
        if callee not in (dynamic, constructs.const):
            self.fail(
                ParserSyntaxError,
                f"calling '{ast.unparse(node.func)}' is not allowed at module level",
                node,
                "only pl.dynamic(...) and pl.const(...) may be called outside functions",
            )
        if any(type(a) is ast.Starred for a in node.args) or any(k.arg is None for k in node.keywords):
            self.fail(
                ParserSyntaxError,
                "'*' / '**' arguments are not allowed at module level",
                node,
                'write the arguments out: pl.dynamic("N"), pl.const(1, pl.INT32)',
            )
        args = [self.eval(a) for a in node.args]
        kwargs = {k.arg: self.eval(k.value) for k in node.keywords}
        return self.apply(callee, args, node, kwargs)

    def check_size(self, op: type, left: Any, right: Any, node: ast.AST) -> None:
        """Refuse results that would be huge (guards against denial of service)."""
        what = oversized(op, left, right)
        if what == "sequence":
            self.fail(
                InvalidOperationError,
                "module-level constant is too large",
                node,
                f"keep module-level lists, tuples and strings under {_MAX_SIZE} elements",
            )
        if what is not None:
            self.fail(
                InvalidOperationError,
                f"{what} too large in a module-level constant",
                node,
                "keep constant arithmetic within the range of 64-bit integers",
            )

    def apply(self, fn: Callable[..., Any], args: list[Any], node: ast.AST, kwargs: dict[str, Any] | None = None) -> Any:
        try:
            return fn(*args, **(kwargs or {}))
        except ZeroDivisionError:
            self.fail(
                InvalidOperationError,
                "division by zero in a module-level constant",
                node,
                "check the constants this expression uses: the divisor is 0",
            )
        except (TypeError, ValueError, IndexError, KeyError, OverflowError) as err:
            self.fail(ParserTypeError, f"invalid module-level constant: {err}", node, _apply_hint(fn, err))


def _apply_hint(fn: Callable[..., Any], err: Exception) -> str:
    """What to write instead when a module-level constant operation raised ``err``."""
    if fn is dynamic:
        return 'pl.dynamic takes the dimension name as a string: N = pl.dynamic("N")'
    if fn is constructs.const:
        return "pl.const(value, dtype): an int or float value and a matching dtype, e.g. pl.const(1.0, pl.FP16)"
    if isinstance(err, (IndexError, KeyError)):
        return "index within the list / tuple, or use a key the dict has"
    return "arithmetic on constants needs numbers on both sides (+ also joins two strings, lists or tuples)"


def oversized(op: type, left: Any, right: Any) -> str | None:
    """What would make ``left op right`` huge (``"sequence"``, ``"exponent"``, ``"shift"``,
    ``"integer"``), checked before the operation runs; None when the result is of bounded size.

    Both the module-level evaluator and the folding of static values in function bodies use it,
    so a hostile text can exhaust neither memory nor time (``[0] * 10**12``, ``2 ** 10**10``).
    """
    if op is ast.Mult:
        for seq, count in ((left, right), (right, left)):
            if isinstance(seq, (list, tuple, str)) and isinstance(count, int) and len(seq) * count > _MAX_SIZE:
                return "sequence"
    if op is ast.Pow and isinstance(right, (int, float)) and abs(right) > _MAX_EXPONENT:
        return "exponent"
    if op is ast.LShift and isinstance(right, int) and right > _MAX_EXPONENT:
        return "shift"
    if _int_result_bits(op, left, right) > _MAX_INT_BITS:
        return "integer"
    return None


def _int_result_bits(op: type, left: Any, right: Any) -> int:
    """An upper bound of the bit length of ``left op right`` for the int ops whose results grow
    (``*``, ``**``, ``<<``), computed before the (possibly very slow) operation; 0 otherwise."""
    if type(left) is not int or type(right) is not int:
        return 0
    if op is ast.Mult:
        return left.bit_length() + right.bit_length()
    if op is ast.Pow and right > 0 and abs(left) > 1:
        return left.bit_length() * right
    if op is ast.LShift and right > 0:
        return left.bit_length() + right
    return 0
