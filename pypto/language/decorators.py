"""The decorators ``@pl.function``, ``@pl.program`` and ``@pl.inline``.

``@pl.function`` on a module-level (or nested) function parses it at once and returns the
``ir.Function``. Inside a class body it returns a :class:`DeferredFunction`; ``@pl.program`` on the
class then parses all of them together (so methods can call each other as ``self.f(...)``) and
returns the ``ir.Program``. ``@pl.inline`` captures a function to be expanded at each call.

A parse error leaves the decorator with its internal traceback dropped (and no chained context):
``python prog.py`` shows the user's decorated line and the diagnostic, not the parser's frames.
"""

from __future__ import annotations

import ast
import dataclasses
import sys
from collections.abc import Callable
from types import FrameType
from typing import Any

from pypto import ir
from pypto.ir import FunctionType, Level, Role, Span

from .parser.diagnostics import ParserError, ParserTypeError
from .parser.env import Env
from .parser.functions import FUNCTION_OPTIONS_HINT, FunctionOptions, function_options, parse_function, parse_signature
from pypto.ir.gcpause import gc_paused
from .parser.inline import InlineFunction
from .parser.program import ProgramContext
from .parser.source import frame_span, locate_class, locate_function


class DeferredFunction:
    """A ``@pl.function`` method of a class, parsed when ``@pl.program`` builds the program."""

    def __init__(self, func: Any, options: FunctionOptions) -> None:
        self.func = func
        self.options = options

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        code = self.func.__code__
        raise ParserTypeError(
            f"'{self.func.__name__}' is a method of a program class; decorate the class with @pl.program",
            Span(code.co_filename, code.co_firstlineno, 1),
            hint="put @pl.program on the class and use the ir.Program it returns; inside the program "
            f"call the method as self.{self.func.__name__}(...)",
        )

    def __repr__(self) -> str:
        return f"<pl.function method {self.func.__qualname__}>"


def _in_class_body(func: Any) -> bool:
    parts = func.__qualname__.split(".")
    return len(parts) >= 2 and parts[-2] != "<locals>"


def _check_function(func: Any, decorator: str, frame: FrameType | None) -> None:
    if not hasattr(func, "__code__"):
        raise ParserTypeError(
            f"@pl.{decorator} decorates a function, got {type(func).__name__}",
            frame_span(frame),
            hint=f"write @pl.{decorator} directly above a def statement",
        )


def _define(func: Any, options: FunctionOptions, frame: FrameType | None) -> ir.Function | DeferredFunction:
    _check_function(func, "function", frame)
    if _in_class_body(func):
        return DeferredFunction(func, options)
    src, node = locate_function(func)
    env = Env.of_function(func, frame.f_locals if frame is not None else None)
    try:
        with gc_paused():
            return parse_function(parse_signature(src, env, node, options, None))
    except ParserError as err:
        err.attach_source(src.lines)
        raise


def function(
    func: Any = None,
    *,
    type: FunctionType = FunctionType.Opaque,
    level: Level | None = None,
    role: Role | None = None,
    auto_scope: bool = True,
    external_source: str | None = None,
    strict_ssa: bool = False,
    attrs: dict[str, Any] | None = None,
) -> Any:
    """``@pl.function`` / ``@pl.function(type=pl.FunctionType.InCore, ...)``: a DSL function.

    Options: ``type`` (default Opaque), ``level`` / ``role`` (derived from the type where fixed),
    ``auto_scope=False`` (the orchestrator places runtime scopes itself), ``external_source``,
    ``strict_ssa=True`` (re-assigning a variable is an error), ``attrs={...}`` (the established
    spelling of function attributes, e.g. ``attrs={"auto_scope": False}``).
    """
    try:
        options = function_options(type, level, role, auto_scope, external_source, strict_ssa, attrs)
    except TypeError as err:
        raise ParserTypeError(str(err), frame_span(sys._getframe(1)), FUNCTION_OPTIONS_HINT) from None
    if func is not None:
        try:
            return _define(func, options, sys._getframe(1))
        except ParserError as err:
            raise err.with_traceback(None) from None  # the diagnostic below the user's frame only

    def decorate(f: Any) -> ir.Function | DeferredFunction:
        try:
            return _define(f, options, sys._getframe(1))
        except ParserError as err:
            raise err.with_traceback(None) from None

    return decorate


def _build_program(cls: type, name: str | None, frame: FrameType | None, strict_ssa: bool = False) -> ir.Program:
    members = [v for v in vars(cls).values() if isinstance(v, DeferredFunction)]
    if strict_ssa:
        members = [DeferredFunction(m.func, dataclasses.replace(m.options, strict_ssa=True)) for m in members]
    src, class_node = locate_class(cls, [m.func for m in members], frame_span(frame))
    nodes = {n.name: n for n in class_node.body if isinstance(n, ast.FunctionDef)}
    ctx = ProgramContext(name if name is not None else cls.__name__)
    frame_locals = frame.f_locals if frame is not None else None
    try:
        with gc_paused():
            for member in members:
                node = nodes[member.func.__name__]
                env = Env.of_function(member.func, frame_locals)
                ctx.add_signature(parse_signature(src, env, node, member.options, ctx), src.span(node))
            return ctx.build(src.span(class_node))
    except ParserError as err:
        err.attach_source(src.lines)
        raise


def program(cls: Any = None, *, name: str | None = None, strict_ssa: bool = False) -> Any:
    """``@pl.program``: a class whose ``@pl.function`` methods form an ``ir.Program``.

    ``strict_ssa=True`` makes every member strict (as ``@pl.function(strict_ssa=True)``).
    """
    if not isinstance(strict_ssa, bool):
        raise ParserTypeError(
            f"@pl.program: strict_ssa= must be True or False, got {strict_ssa!r}",
            frame_span(sys._getframe(1)),
            hint="write @pl.program(strict_ssa=True)",
        )
    if cls is not None:
        if not isinstance(cls, type):
            raise ParserTypeError(
                f"@pl.program decorates a class, got {type(cls).__name__}",
                frame_span(sys._getframe(1)),
                hint="write @pl.program above a class whose methods are @pl.function definitions",
            )
        try:
            return _build_program(cls, name, sys._getframe(1), strict_ssa)
        except ParserError as err:
            raise err.with_traceback(None) from None  # the diagnostic below the user's frame only

    def decorate(c: type) -> ir.Program:
        try:
            return _build_program(c, name, sys._getframe(1), strict_ssa)
        except ParserError as err:
            raise err.with_traceback(None) from None

    return decorate


def inline(func: Callable[..., Any]) -> InlineFunction:
    """``@pl.inline``: a helper whose statements are expanded at each call site."""
    frame = sys._getframe(1)
    _check_function(func, "inline", frame)
    src, node = locate_function(func)
    return InlineFunction(func.__name__, src, node, Env.of_function(func, frame.f_locals))
