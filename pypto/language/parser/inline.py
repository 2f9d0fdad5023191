"""``@pl.inline``: a function whose body is expanded at every call site.

The body is parsed at each call with only its parameters and its own closure in scope (so each
expansion creates its own variables); its statements go into the caller's block and the value of
its final ``return`` is the value of the call. A parameter is bound to a Var argument directly; to
another IR expression, or to any argument when the body assigns the parameter, through an
assignment to a variable of the expansion, so a loop or a branch re-assigning it carries it like a
local and the caller's variable keeps its value. A Python constant stays a constant, unless it is a
number re-assigned inside a loop or a branch (which must carry it as a variable).
"""

from __future__ import annotations

import ast
import sys
from typing import Any

from pypto import ir
from pypto.ir import Span

from .core import Block, FunctionState, ParserCore, leaves_early, retype_literal
from .diagnostics import ParserSyntaxError, ParserTypeError, UnsupportedFeatureError
from .env import Env
from .source import SourceFile, frame_span
from .type_match import show_type, type_mismatch

_MAX_DEPTH = 32
# Statements without a nested block.
_SIMPLE = (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Expr, ast.Return)


def _stores(body: list[ast.stmt]) -> set[str]:
    """The names the statements assign (targets of assignments, loops, ``with ... as``)."""
    return {n.id for stmt in body for n in ast.walk(stmt) if type(n) is ast.Name and type(n.ctx) is ast.Store}


class InlineFunction:
    """The definition captured by ``@pl.inline`` (expanded by the parser at each call)."""

    def __init__(self, name: str, src: SourceFile, node: ast.FunctionDef, env: Env) -> None:
        self.name = name
        self.src = src
        self.node = node
        self.env = env
        args = node.args
        if args.vararg or args.kwarg or args.kwonlyargs or args.posonlyargs or args.defaults:
            raise ParserSyntaxError(
                f"@pl.inline function '{name}' must take plain positional parameters",
                src.span(node),
                "remove *args, **kwargs, '*' / '/' markers and default values: def helper(x, y):",
                source_lines=src.lines,
            )
        self.params = [a.arg for a in args.args]
        # Parameters the body assigns: they get a variable of their own (a copy of the argument), so a
        # loop or a branch re-assigning one carries it like any local, and the caller's stays untouched.
        self.assigned = _stores(node.body) & set(self.params)
        # Of those, the ones assigned inside a compound statement: given a number, they need a variable
        # from the start (a straight-line re-assignment reads the constant, then makes a variable).
        self.assigned_in_blocks = _stores([s for s in node.body if type(s) not in _SIMPLE]) & self.assigned

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise ParserSyntaxError(
            f"@pl.inline function '{self.name}' can only be called inside a @pl.function body",
            frame_span(sys._getframe(1)),
            hint="call it from the body of a @pl.function (or a @pl.program method); the parser expands its "
            "body at each call site",
        )

    def __repr__(self) -> str:
        return f"<pl.inline {self.name}>"


class InlineMixin(ParserCore):
    """Expansion of inline calls."""

    def expand_inline(self, fn: InlineFunction, call: ast.Call) -> Any:
        """Expand ``fn(args)`` into the current block; the value of its return is the call's value."""
        if self.inline_depth >= _MAX_DEPTH:
            self.fail(
                ParserSyntaxError,
                f"@pl.inline calls nest too deeply (is '{fn.name}' recursive?)",
                call,
                "inline functions are expanded at parse time and cannot recurse; loop with pl.range instead",
            )
        args, kwargs = self.call_arguments(call)
        for key, value in kwargs.items():
            if key not in fn.params:
                self.fail(
                    ParserTypeError,
                    f"inline function '{fn.name}' has no parameter '{key}'",
                    call,
                    f"parameters of '{fn.name}': {', '.join(fn.params) or 'none'}",
                )
        if len(args) + len(kwargs) != len(fn.params) or any(p in kwargs for p in fn.params[: len(args)]):
            self.fail(
                ParserTypeError,
                f"inline function '{fn.name}' takes {len(fn.params)} argument(s) but {len(args) + len(kwargs)} were given",
                call,
                f"pass one value per parameter: {fn.name}({', '.join(fn.params)})",
            )
        values = dict(zip(fn.params, args))
        values.update(kwargs)
        bound: dict[str, ir.Var] = {}
        constants: dict[str, Any] = {}
        literals: dict[str, ir.Expr] = {}  # numbers given to parameters the body assigns
        span = self.span(call)
        for name in fn.params:
            value = values[name]
            if name in fn.assigned_in_blocks and type(value) in (bool, int, float):
                literals[name] = self.to_expr(value, call)
            elif isinstance(value, ir.Var) and name not in fn.assigned:
                bound[name] = value
            elif isinstance(value, ir.Expr):
                var = ir.Var(name, value.type, span)
                self.emit(ir.AssignStmt(var, value, span))
                bound[name] = var
            else:
                constants[name] = value
        arg_nodes = dict(zip(fn.params, call.args))
        arg_nodes.update((kw.arg, kw.value) for kw in call.keywords if kw.arg is not None)
        arg_spans = {name: self.span(n) for name, n in arg_nodes.items()}
        caller_lines = self.src.lines
        saved = (self.src, self.env, self.vars, self.block, self.loops, self.state)
        self.src, self.env, self.vars = fn.src, Env([constants, *fn.env.layers], fn.env.is_text), bound
        self.block = Block("inline")
        for name, var in bound.items():
            if name in fn.assigned:
                self.homes[id(var)] = self.block
        self.loops = []
        self.state = FunctionState(
            fn.name, self.state.func_type, self.state.strict_ssa, None, self.state.memref_bases, self.state.auto_scope
        )
        self.state.leaves_early = leaves_early(fn.node.body)
        self.inline_depth += 1
        try:
            self.check_inline_arguments(fn, values, arg_spans, caller_lines)
            for name, literal in literals.items():
                self.bind_literal_parameter(fn, name, literal)
            self.state.return_types = self.inline_return_types(fn)
            self.parse_stmts(fn.node.body)
            block = self.block
            if self.state.return_types and block.returned is None:
                self.fail(
                    ParserTypeError,
                    f"inline function '{fn.name}' declares {len(self.state.return_types)} return value(s) "
                    "but does not return",
                    fn.node.returns,  # type: ignore[arg-type]
                    "end its body with return <values>, or drop the '->' annotation",
                )
        finally:
            self.inline_depth -= 1
            self.src, self.env, self.vars, self.block, self.loops, self.state = saved
        self.block.stmts.extend(block.stmts)
        returned = block.returned
        if returned is None or not returned:
            return None
        return returned[0] if len(returned) == 1 else tuple(returned)

    def bind_literal_parameter(self, fn: InlineFunction, name: str, literal: ir.Expr) -> None:
        """Bind parameter ``name``, which ``fn``'s body assigns, to a variable of the expansion holding
        the number ``literal`` (typed by a scalar annotation), as ``name: T = literal`` would."""
        annotation = fn.node.args.args[fn.params.index(name)].annotation
        declared = self.resolve_type(annotation) if self._dsl_annotation(annotation) else None  # type: ignore[arg-type]
        if isinstance(declared, ir.ScalarType):
            literal = retype_literal(literal, declared.dtype, literal.span)
        var = ir.Var(name, literal.type, literal.span)
        self.emit(ir.AssignStmt(var, literal, literal.span))
        self.bind(name, var)

    def _dsl_annotation(self, node: ast.expr | None) -> bool:
        """An annotation the parser checks: present and not a plain Python type (``times: int``
        documents a parameter bound to a Python constant)."""
        if node is None or type(node) not in (ast.Name, ast.Attribute):
            return node is not None
        value = self.eval(node)
        return not (isinstance(value, type) and not issubclass(value, ir.Type))

    def check_inline_arguments(
        self, fn: InlineFunction, values: dict[str, Any], spans: dict[str, Span], caller_lines: list[str]
    ) -> None:
        """IR arguments agree with the DSL type annotations of ``fn``'s parameters (resolved in
        ``fn``'s scope; an error points at the argument in the caller, at ``spans``)."""
        for arg in fn.node.args.args:
            value = values[arg.arg]
            if not isinstance(value, ir.Expr) or not self._dsl_annotation(arg.annotation):
                continue
            declared = self.resolve_type(arg.annotation)  # type: ignore[arg-type]
            reason = type_mismatch(declared, value.type, isinstance(value, (ir.ConstInt, ir.ConstFloat)))
            if reason is None:
                continue
            expected = show_type(declared)
            raise ParserTypeError(
                f"inline function '{fn.name}': parameter '{arg.arg}' expects {expected} but the argument "
                f"is {show_type(value.type)} ({reason})",
                spans[arg.arg],
                f"pass a {expected} as '{arg.arg}', or change that parameter's annotation in '{fn.name}'",
                source_lines=caller_lines,
            )

    def inline_return_types(self, fn: InlineFunction) -> list[ir.Type] | None:
        """The types ``fn``'s ``->`` annotation declares (None: not annotated, or a Python type)."""
        returns = fn.node.returns
        if not self._dsl_annotation(returns):
            return None
        return self.resolve_return_types(returns)

    def inline_return(self, node: ast.Return) -> None:
        """``return`` in an inline body: only as its last top-level statement."""
        if self.block.owner != "inline":
            self.fail(
                UnsupportedFeatureError,
                "return inside control flow of an @pl.inline function is not supported",
                node,
                "compute the result with pl.yield_ and return it at the end of the body",
            )
        values = [] if node.value is None else node.value.elts if type(node.value) is ast.Tuple else [node.value]
        exprs = [self.expr(v) for v in values]
        self.check_returns(exprs, values, node)
        self.block.returned = exprs
        self.block.ended_by = node
