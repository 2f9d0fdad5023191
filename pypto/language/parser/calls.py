"""Calls: constructs, op functions, program functions (``self.f``), external and inline functions.

The callee expression is resolved to a Python object first; the object decides what the call
is. Op functions (``pl.tile.load``, ``pl.add`` ...) are called with the parsed arguments and
``span=``; a ``TypeError``/``ValueError`` they raise becomes a parser error at the call.
"""

from __future__ import annotations

import ast
import enum
import inspect
from typing import Any

from pypto import ir

from ..typing.values import Value
from .core import ParserCore, describe, retype_literal
from .diagnostics import (
    InvalidOperationError,
    ParserError,
    ParserSyntaxError,
    ParserTypeError,
    UndefinedVariableError,
    UnsupportedFeatureError,
)
from .env import MISSING
from .inline import InlineFunction
from .registry import CALL_HOOKS, EXPR_HANDLERS, POSITION_HINTS, display_name
from .type_match import show_type, type_mismatch

_STAR_HINT = "write each argument out: f(a, b); a closure list is passed as one value, e.g. pl.load(x, OFFSETS, SHAPE)"
_KWARGS_HINT = "write each keyword argument out: f(a, name=value)"
# Modules whose callables are op functions the DSL may call.
_OP_MODULES = ("pypto.language.op", "pypto.ir.op")


class ProgramFunctionRef:
    """``self.f`` inside a program (or a sibling function's name in parsed text)."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"self.{self.name}"


def is_op_function(obj: Any) -> bool:
    """True for a function of the op layer (the only plain callables DSL code may call)."""
    module = getattr(obj, "__module__", None) or ""
    return callable(obj) and not isinstance(obj, type) and module.startswith(_OP_MODULES)


class CallMixin(ParserCore):
    """Call evaluation."""

    def eval_call(self, node: ast.Call, callee: Any = MISSING) -> Any:
        """The value of the call ``node``; ``callee`` is its resolved callee when the caller has
        evaluated ``node.func`` already. (One method, not two: nested calls cost few frames.)"""
        if callee is MISSING:
            callee = self.eval(node.func)
        if isinstance(callee, ir.Expr):
            self.fail(
                ParserTypeError,
                f"'{ast.unparse(node.func)}' is {describe(callee)}, not a function",
                node.func,
                "a DSL value cannot be called; call an op on it instead, e.g. pl.add(x, y) or pl.tile.load(x, ...)",
            )
        try:
            handler = EXPR_HANDLERS.get(callee)
            usage = POSITION_HINTS.get(callee) if handler is None else None
        except TypeError:  # an unhashable value such as a list
            handler = usage = None
        if handler is not None:
            return handler(self, node)
        if usage is not None:
            self.fail(ParserSyntaxError, f"{display_name(callee)} cannot be used inside an expression", node, usage)
        if isinstance(callee, ProgramFunctionRef):
            return self.call_program_function(callee, node)
        if isinstance(callee, ir.Function):
            return self.call_external(callee, node)
        if isinstance(callee, InlineFunction):
            return self.expand_inline(callee, node)
        if is_op_function(callee):
            args, kwargs = self.call_arguments(node)
            return self.call_op(callee, node, args, kwargs)
        self.fail(
            ParserTypeError,
            f"cannot call {describe(callee)} in DSL code",
            node.func,
            "DSL code calls op functions (pl.tile.*, pl.tensor.*, pl.add ...), program functions "
            "(self.f), @pl.function / @pl.inline functions and abs/min/max",
        )

    # ----- arguments -------------------------------------------------------------------------
    def call_arguments(self, node: ast.Call) -> tuple[list[Any], dict[str, Any]]:
        """Parsed positional and keyword arguments (no ``*args`` / ``**kwargs``)."""
        args = []
        for a in node.args:
            if type(a) is ast.Starred:
                self.fail(UnsupportedFeatureError, "'*' arguments are not supported in DSL calls", a, _STAR_HINT)
            args.append(self.eval(a))
        kwargs: dict[str, Any] = {}
        for kw in node.keywords:
            if kw.arg is None:
                self.fail(
                    UnsupportedFeatureError, "'**' arguments are not supported in DSL calls", kw.value, _KWARGS_HINT
                )
            kwargs[kw.arg] = self.eval(kw.value)
        return args, kwargs

    # ----- op functions ----------------------------------------------------------------------
    def call_op(self, fn: Any, node: ast.Call, args: list[Any], kwargs: dict[str, Any]) -> Any:
        """Call an op function on the parsed arguments of ``node``; errors it raises become parser
        errors at ``node``."""
        attrs = kwargs.pop("attrs", None)
        span = self.span(node)
        try:
            result = fn(*args, **kwargs, span=span)
        except ParserError:
            raise
        except TypeError as err:
            self.fail(ParserTypeError, str(err), node, _untyped_hint(args, kwargs) or _signature_hint(fn))
        except ValueError as err:
            hint = _untyped_hint(args, kwargs) or getattr(err, "hint", None) or _signature_hint(fn)
            self.fail(InvalidOperationError, str(err), node, hint)
        if isinstance(result, Value):
            result = result.unwrap()
        if attrs is not None:
            result = self.with_attrs(result, attrs, node)
        return result

    def with_attrs(self, call: Any, attrs: Any, node: ast.AST) -> ir.Expr:
        """``call`` with the compiler attrs of a printed ``attrs={...}`` keyword."""
        if not isinstance(attrs, dict):
            self.fail(
                ParserTypeError,
                f"attrs= must be a dict, got {describe(attrs)}",
                node,
                'write the attrs as a dict literal with string keys: attrs={"key": value}',
            )
        if not isinstance(call, (ir.Call, ir.Submit)):
            self.fail(
                ParserTypeError,
                "attrs= can only be given to a call that builds an op call",
                node,
                "remove attrs=: this call folds to a constant or a plain value, which carries no attrs",
            )
        try:
            return ir.replace(call, attrs=dict(attrs))
        except (TypeError, ValueError) as err:  # a reserved key with a bad value, or another node's key
            self.fail(
                ParserTypeError,
                str(err),
                node,
                "fix or remove the attrs key named above: reserved keys take values of their type "
                '(e.g. "arg_directions": [pl.adir.input, ...]) and belong to one kind of node',
            )

    # ----- functions of the program ----------------------------------------------------------
    def program_ref(self, name: str, node: ast.AST) -> ProgramFunctionRef:
        """``self.name`` inside a program."""
        if self.program.signature(name) is None:
            known = ", ".join(sorted(self.program.signatures)) or "none"
            self.fail(
                UndefinedVariableError,
                f"program '{self.program.name}' has no function '{name}'",
                node,
                f"functions of this program: {known}",
            )
        return ProgramFunctionRef(name)

    def call_program_function(self, ref: ProgramFunctionRef, node: ast.Call) -> ir.Expr:
        """``self.f(args)``: a call of the program function ``f``."""
        if self.program is None or self.program.signature(ref.name) is None:
            self.fail(
                UndefinedVariableError,
                f"undefined function '{ref.name}'",
                node.func,
                "define it with @pl.function in the same program (or text), or import the function object",
            )
        sig = self.program.signature(ref.name)
        returned = _returned_value(sig.node)
        if sig.node.returns is None and returned is not None:
            # its body (parsed later) would say so, but the caller would first meet a call of no value
            self.fail(
                ParserTypeError,
                f"function '{ref.name}' returns a value (line {returned.lineno}) but declares no return type, "
                "so its call gives nothing",
                node,
                f"declare what it returns: def {ref.name}(...) -> <its type>:",
            )
        return self.build_function_call(ref.name, sig.params, sig.return_types, node)

    def call_external(self, func: ir.Function, node: ast.Call) -> ir.Expr:
        """A call of a ``@pl.function`` defined outside the program (added to it once)."""
        if self.program is not None:
            self.program.use_external(func, self.span(node))
        return self.build_function_call(func.name, func.params, func.return_types, node)

    def build_function_call(
        self, name: str, params: list[ir.Var], return_types: list[ir.Type], node: ast.Call
    ) -> ir.Expr:
        """``Call(GlobalVar(name), args)`` typed by the callee's return types."""
        args = []
        arg_nodes: list[ast.expr] = []
        for a in node.args:
            if type(a) is ast.Starred:
                self.fail(UnsupportedFeatureError, "'*' arguments are not supported in DSL calls", a, _STAR_HINT)
            args.append(self.expr(a))
            arg_nodes.append(a)
        attrs = None
        by_name = {p.name_hint: i for i, p in enumerate(params)}
        extra: dict[int, tuple[ir.Expr, ast.expr]] = {}
        for kw in node.keywords:
            if kw.arg == "attrs":
                attrs = self.eval(kw.value)
            elif kw.arg == "deps":
                self.fail(
                    ParserSyntaxError,
                    f"deps= is not accepted by a plain call of '{name}'",
                    kw.value,
                    "use pl.submit(self.kernel, ..., deps=[...]) to launch a task with dependencies",
                )
            elif kw.arg in by_name:
                extra[by_name[kw.arg]] = (self.expr(kw.value), kw.value)
            else:
                self.fail(
                    ParserTypeError,
                    f"function '{name}' has no parameter '{kw.arg}'",
                    kw.value,
                    f"parameters of '{name}': {', '.join(by_name) or 'none'}",
                )
        for index in sorted(extra):
            if index != len(args):
                self.fail(
                    ParserTypeError,
                    f"function '{name}': keyword arguments must follow the positional ones",
                    node,
                    f"pass the parameters in order ({', '.join(by_name)}): positionally first, then by name",
                )
            args.append(extra[index][0])
            arg_nodes.append(extra[index][1])
        if len(args) != len(params):
            self.fail(
                ParserTypeError,
                f"function '{name}' takes {len(params)} argument(s) but {len(args)} were given",
                node,
                f"pass one value per parameter of '{name}': ({', '.join(by_name)})",
            )
        span = self.span(node)
        for i, p in enumerate(params):
            if isinstance(p.type, ir.ScalarType):
                args[i] = retype_literal(args[i], p.type.dtype, span)
            self.check_argument(name, p, args[i], arg_nodes[i])
        if len(return_types) == 1:
            ret: ir.Type = return_types[0]
        else:
            ret = ir.TupleType(list(return_types))
        call = ir.Call(ir.GlobalVar(name), args, ret, span)
        for hook in CALL_HOOKS:
            call = hook(self, node, call)
        if attrs is not None:
            call = self.with_attrs(call, attrs, node)
        return call

    def check_argument(self, name: str, param: ir.Var, arg: ir.Expr, node: ast.expr) -> None:
        """A ParserTypeError at ``node`` when ``arg`` does not fit parameter ``param`` of ``name``."""
        reason = type_mismatch(param.type, arg.type, isinstance(arg, (ir.ConstInt, ir.ConstFloat)))
        if reason is None:
            return
        expected = show_type(param.type)
        self.fail(
            ParserTypeError,
            f"function '{name}': parameter '{param.name_hint}' expects {expected} but the argument "
            f"'{ast.unparse(node)}' is {show_type(arg.type)} ({reason})",
            node,
            f"pass a {expected} as '{param.name_hint}', or change that parameter's annotation in '{name}'",
        )


def _returned_value(func: ast.FunctionDef) -> ast.Return | None:
    """A ``return <value>`` of ``func`` itself (not of a nested definition), if it has one."""
    todo: list[ast.AST] = list(func.body)
    while todo:
        node = todo.pop()
        if type(node) is ast.Return and node.value is not None:
            return node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            todo.extend(ast.iter_child_nodes(node))
    return None


def _untyped_hint(args: list[Any], kwargs: dict[str, Any]) -> str | None:
    """What to do about an operand of unknown type: in DSL code, a pipe pop written without its tile type."""
    for value in [*args, *kwargs.values()]:
        value = value.unwrap() if isinstance(value, Value) else value
        if isinstance(value, ir.Var) and isinstance(value.type, ir.UnknownType):
            return (
                f"'{value.name_hint}' has no type: a pl.tpop_from_aic/pl.tpop_from_aiv takes the tile type of its "
                f"annotation, e.g. {value.name_hint}: pl.Tile[[16, 16], pl.FP16, pl.Mem.Mat] = "
                "pl.tpop_from_aiv(split=0, id=0), or of its shape= and dtype= arguments"
            )
    return None


def _signature_hint(fn: Any) -> str:
    """The parameters of ``fn`` as a user writes them: no ``span`` (the parser passes it), no annotations."""
    catalog = f"check the arguments against the entry of {display_name(fn)} in the operator reference (docs/ops.md)"
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return catalog
    params = [p.replace(annotation=inspect.Parameter.empty, default=_spelled(p.default))
              for p in sig.parameters.values() if p.name != "span"]
    if all(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params):
        return catalog  # a dispatcher taking anything: its signature says nothing
    shown = sig.replace(parameters=params, return_annotation=inspect.Signature.empty)
    return f"signature: {display_name(fn)}{shown}"


class _Spelled(str):
    """A default shown as the DSL spells it (``pl.MemorySpace.Vec``, not ``<MemorySpace.Vec: 1>``)."""

    def __repr__(self) -> str:
        return str(self)


def _spelled(default: Any) -> Any:
    return _Spelled(f"pl.{type(default).__name__}.{default.name}") if isinstance(default, enum.Enum) else default
