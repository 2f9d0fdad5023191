"""Functions: decorator options, signatures (parameters and return types) and bodies.

A program parses every signature first (so ``self.f(...)`` knows ``f``'s types wherever ``f`` is
defined), then the bodies.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

from pypto import ir
from pypto.ir import FunctionType, Level, ParamDirection, Role
from pypto.ir.attrs import FunctionAttrs
from pypto.ir.errors import IRTypeError, IRValueError

from .. import constructs
from .body import BodyParser
from .core import FunctionState, leaves_early, make_body
from .diagnostics import ParserError, ParserTypeError, UnsupportedFeatureError
from .env import Env
from .handlers import func_attrs
from .source import SourceFile

FUNCTION_OPTIONS_HINT = (
    "the options are type=pl.FunctionType.<kind>, level=pl.Level.<level>, role=pl.Role.<role>, "
    "auto_scope=True|False, external_source='<path>', strict_ssa=True|False and attrs={...} (function "
    "attributes such as {'auto_scope': False})"
)


@dataclass(frozen=True)
class FunctionOptions:
    """What ``@pl.function(...)`` says about a function."""

    func_type: FunctionType = FunctionType.Opaque
    level: Level | None = None
    role: Role | None = None
    strict_ssa: bool = False
    attrs: dict[str, Any] = field(default_factory=dict)


def function_options(
    type: Any = FunctionType.Opaque,
    level: Any = None,
    role: Any = None,
    auto_scope: Any = True,
    external_source: Any = None,
    strict_ssa: Any = False,
    attrs: Any = None,
) -> FunctionOptions:
    """Check and collect the keyword options of ``@pl.function`` (TypeError on a bad value; the
    values come from user code or parsed text, hence ``Any``)."""
    if not isinstance(type, FunctionType):
        raise TypeError(f"@pl.function: type= must be a pl.FunctionType member, got {type!r}")
    if level is not None and not isinstance(level, Level):
        raise TypeError(f"@pl.function: level= must be a pl.Level member, got {level!r}")
    if role is not None and not isinstance(role, Role):
        raise TypeError(f"@pl.function: role= must be a pl.Role member, got {role!r}")
    if not isinstance(auto_scope, bool) or not isinstance(strict_ssa, bool):
        raise TypeError("@pl.function: auto_scope= and strict_ssa= must be True or False")
    if external_source is not None and not isinstance(external_source, str):
        raise TypeError("@pl.function: external_source= must be a string")
    # attrs={...}: the established spelling of function attributes; the keywords above win over it.
    if attrs is not None and not isinstance(attrs, dict):
        raise TypeError(f"@pl.function: attrs= must be a dict of function attributes, got {attrs!r}")
    stored: dict[str, Any] = dict(attrs or {})
    if not auto_scope:
        stored["auto_scope"] = False
    if external_source is not None:
        stored["external_source"] = external_source
    try:
        FunctionAttrs(**stored)
    except (IRTypeError, IRValueError) as err:
        raise TypeError(f"@pl.function: bad attrs= ({err})") from None
    return FunctionOptions(type, level, role, strict_ssa, stored)


@dataclass
class Signature:
    """A parsed function header, with the parser that will parse its body."""

    name: str
    node: ast.FunctionDef
    parser: BodyParser
    options: FunctionOptions
    params: list[ir.Var]
    directions: list[ParamDirection]
    return_types: list[ir.Type]


def parse_signature(
    src: SourceFile, env: Env, node: ast.FunctionDef, options: FunctionOptions, program: Any
) -> Signature:
    """Parse the parameters and return annotation of ``node`` (``self`` is skipped in programs)."""
    state = FunctionState(node.name, options.func_type, options.strict_ssa, None)
    state.leaves_early = leaves_early(node.body)
    state.auto_scope = options.attrs.get("auto_scope", True)
    parser = BodyParser(src, env, state, program)
    args = node.args
    for extra, what in ((args.vararg, "*args"), (args.kwarg, "**kwargs")):
        if extra is not None:
            parser.fail(
                UnsupportedFeatureError,
                f"{what} parameters are not supported",
                extra,
                "declare every parameter by name with its type: def f(a: pl.Tensor[[64], pl.FP32], n: pl.INDEX)",
            )
    if args.kwonlyargs or args.posonlyargs:
        parser.fail(
            UnsupportedFeatureError,
            "keyword-only and positional-only parameters are not supported",
            node,
            "remove the '*' / '/' markers: DSL parameters are plain positional parameters",
        )
    if args.defaults or args.kw_defaults:
        parser.fail(
            UnsupportedFeatureError,
            "parameter default values are not supported",
            node,
            "remove the '= value' defaults and pass every argument at the call; a fixed value can be a "
            "closure constant of the body",
        )
    plain = list(args.args)
    if program is not None and plain and plain[0].arg == "self" and plain[0].annotation is None:
        plain = plain[1:]
    params: list[ir.Var] = []
    directions: list[ParamDirection] = []
    for arg in plain:
        if arg.annotation is None:
            parser.fail(
                ParserTypeError,
                f"parameter '{arg.arg}' needs a type annotation",
                arg,
                f"annotate it, e.g. {arg.arg}: pl.Tensor[[64, 64], pl.FP32], {arg.arg}: pl.Scalar[pl.INT64] "
                f"or {arg.arg}: pl.INDEX",
            )
        ptype, direction = parser.resolve_param_type(arg.annotation)
        var = ir.Var(arg.arg, ptype, parser.span(arg))
        parser.bind(arg.arg, var)
        parser.block.defined.add(arg.arg)
        params.append(var)
        directions.append(direction)
    return_types = parser.resolve_return_types(node.returns)
    state.return_types = return_types if node.returns is not None else None
    return Signature(node.name, node, parser, options, params, directions, return_types)


def _is_call_of(parser: BodyParser, stmt: ast.stmt, construct: Any) -> bool:
    return (
        type(stmt) is ast.Expr
        and type(stmt.value) is ast.Call
        and parser.eval(stmt.value.func) is construct
    )


def _is_docstring(stmt: ast.stmt) -> bool:
    return type(stmt) is ast.Expr and type(stmt.value) is ast.Constant and isinstance(stmt.value.value, str)


def parse_function(sig: Signature) -> ir.Function:
    """Parse the body of ``sig``'s function and build the ``ir.Function``."""
    parser = sig.parser
    node = sig.node
    body = list(node.body)
    attrs = dict(sig.options.attrs)
    docstring: list[str] = []
    if body and _is_docstring(body[0]):
        docstring = [line.rstrip() for line in _cleandoc(body[0].value.value).split("\n")]  # type: ignore[attr-defined]
        body = body[1:]
    while body and _is_call_of(parser, body[0], constructs.func_attr):
        attrs.update(func_attrs(parser, body[0].value))  # type: ignore[attr-defined]
        body = body[1:]
    runtime_binding = bool(body) and type(body[0]) is ast.Expr and _is_ellipsis(body[0].value)
    parser.parse_stmts(body[1:] if runtime_binding else body)
    stmts = parser.block.stmts
    if docstring and stmts:
        ir.attach_leading_comments(stmts[0], docstring + list(stmts[0].leading_comments))
    span = parser.span(node)
    func_body = make_body(stmts, parser.span(node.body[0]) if node.body else span)
    options = sig.options
    try:
        return ir.Function(
            sig.name,
            list(zip(sig.params, sig.directions)),
            sig.return_types,
            func_body,
            span,
            type=options.func_type,
            level=options.level,
            role=options.role,
            attrs=attrs,
            requires_runtime_binding=runtime_binding,
        )
    except ParserError:
        raise
    except (TypeError, ValueError) as err:
        parser.fail(
            ParserTypeError,
            str(err),
            node,
            "the function type fixes level and role (InCore, AIC, AIV, Group ...): drop level= / role= "
            "or pick the function type that implies them",
        )


def _is_ellipsis(node: ast.expr) -> bool:
    return type(node) is ast.Constant and node.value is Ellipsis


def _cleandoc(text: str) -> str:
    import inspect

    return inspect.cleandoc(text)
