"""Parse-time constructs of the DSL: loops, yields, conditions, constants and compile-time checks.

``pl.range``, ``pl.yield_``, ``pl.static_assert`` ... are read by the parser from the syntax tree
(it recognises them by identity, so aliases work); they do nothing at Python run time and raise a
clear error when called outside a ``@pl.function`` body. ``pl.const`` also works at run time and
returns the IR constant; ``pl.range`` / ``pl.parallel`` / ``pl.unroll`` iterate in plain Python
like ``range`` (with ``init_values`` each item is ``(i, init_values)``).
"""

from __future__ import annotations

import builtins
import sys
from collections.abc import Iterator
from typing import Any, NoReturn

from pypto import ir
from pypto.ir import DataType, Span

from .parser.diagnostics import ParserSyntaxError, ParserTypeError
from .parser.source import frame_span


def _outside(name: str) -> NoReturn:
    raise ParserSyntaxError(
        f"pl.{name} can only be used inside a @pl.function body",
        frame_span(sys._getframe(2)),
        hint="the parser reads DSL constructs from the source; they are not Python functions",
    )


def _python_loop(name: str, args: tuple[Any, ...], init_values: Any) -> Iterator[Any]:
    """A DSL loop run as plain Python: ``range(*args)``, each item ``(i, init_values)`` when given."""
    if (not 1 <= len(args) <= 3 or not all(isinstance(a, int) and not isinstance(a, bool) for a in args)
            or args[2:] == (0,)):
        got = ", ".join(repr(a) for a in args) or "no arguments"
        raise ParserTypeError(
            f"pl.{name} outside a @pl.function body takes 1 to 3 int bounds (a non-zero step), got {got}",
            frame_span(sys._getframe(2)),
            hint=f"in plain Python write pl.{name}(stop), pl.{name}(start, stop) or pl.{name}(start, stop, step)",
        )
    steps = builtins.range(*args)
    if init_values is None:
        return iter(steps)
    carried = tuple(init_values)
    return ((i, carried) for i in steps)


def range(*args: Any, init_values: Any = None, attrs: Any = None) -> Iterator[Any]:
    """``for i in pl.range(stop)`` / ``(start, stop)`` / ``(start, stop, step)``: a sequential loop;
    ``init_values=(...)`` declares loop-carried values (``for i, (acc,) in ...``). In plain Python
    it iterates like ``range``."""
    return _python_loop("range", args, init_values)


def parallel(*args: Any, init_values: Any = None, attrs: Any = None) -> Iterator[Any]:
    """``for i in pl.parallel(...)``: a loop whose iterations may run in parallel (in plain Python, ``range``)."""
    return _python_loop("parallel", args, init_values)


def unroll(*args: Any, attrs: Any = None) -> Iterator[Any]:
    """``for i in pl.unroll(...)``: a loop unrolled at compile time, no loop-carried values (in plain
    Python, ``range``)."""
    return _python_loop("unroll", args, None)


def pipeline(*args: Any, stage: int = 1, init_values: Any = None, attrs: Any = None) -> NoReturn:
    """``for i in pl.pipeline(n, stage=F)``: a software-pipelined loop with ``F`` stages."""
    _outside("pipeline")


def while_(*, init_values: Any = None) -> NoReturn:
    """``for (x,) in pl.while_(init_values=(x0,)):`` then ``pl.cond(x < n)`` as the first statement."""
    _outside("while_")


def cond(condition: Any) -> NoReturn:
    """``pl.cond(c)``: the condition of a ``pl.while_`` loop (its first statement)."""
    _outside("cond")


def yield_(*values: Any) -> NoReturn:
    """``y = pl.yield_(v)``: the values an ``if`` branch or a loop iteration carries out."""
    _outside("yield_")


def static_print(*args: Any) -> NoReturn:
    """``pl.static_print("label", x)``: print values and types while parsing (no IR)."""
    _outside("static_print")


def static_assert(condition: Any, msg: str = "") -> NoReturn:
    """``pl.static_assert(N > 32, "N too small")``: a compile-time assertion (no IR)."""
    _outside("static_assert")


def func_attr(attrs: dict[str, Any]) -> NoReturn:
    """``pl.func_attr({"key": value})`` as the first statement of a function: extra function attrs."""
    _outside("func_attr")


def const(value: object, dtype: object, span: Span | None = None) -> ir.Expr:
    """``pl.const(42, pl.INT64)``: a constant of an explicit dtype (bare literals are INDEX / FP32).

    ``value`` (an int, float or bool) and ``dtype`` (a DataType) come from user code as written and are
    checked here, with a message the parser shows at the call."""
    span = span or Span.unknown()
    if not isinstance(dtype, DataType):
        raise TypeError(f"pl.const: the dtype must be a DataType such as pl.INT32, got {type(dtype).__name__}")
    if dtype.is_bool():
        if not isinstance(value, bool):
            raise TypeError(f"pl.const: a BOOL constant needs True or False, got {value!r}")
        return ir.ConstBool(value, span)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"pl.const: the value must be an int or float literal, got {type(value).__name__}")
    if dtype.is_float():
        return ir.ConstFloat(float(value), dtype, span)
    if dtype.is_int():
        if isinstance(value, float):
            raise TypeError(f"pl.const: a float value {value!r} cannot have the integer dtype {dtype}")
        return ir.ConstInt(value, dtype, span)
    raise ValueError(f"pl.const: constants of dtype {dtype} are not supported")
