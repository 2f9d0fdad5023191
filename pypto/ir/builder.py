"""``IRBuilder``: build IR imperatively with context managers instead of nested constructors.

::

    ib = IRBuilder()
    with ib.function("loop_sum") as f:
        n = f.param("n", ir.ScalarType(ir.INT64))
        f.return_type(ir.ScalarType(ir.INT64))
        init = ib.let("sum_init", ir.ConstInt(0, ir.INT64, span))
        i = ib.var("i", ir.ScalarType(ir.INDEX))
        with ib.for_loop(i, 0, n, 1) as loop:
            acc = loop.iter_arg("sum", init)
            loop.return_var("sum")
            ib.yield_([ir.add(acc, i)])
        ib.return_([loop.get_result().return_vars[0]])
    func = f.get_result()

Statements go to the innermost open block. Bodies with one statement are that statement, others
a ``SeqStmts`` (the shape the DSL parser produces). Results are available from ``get_result()``
once the ``with`` block is closed.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from .enums import ForKind, FunctionType, Level, ParamDirection, Role
from .errors import IRValueError
from .expr import Expr, GlobalVar, IterArg, Var
from .function import Function, Program
from .span import Span
from .stmt import (
    AssignStmt,
    BreakStmt,
    ContinueStmt,
    EvalStmt,
    ForStmt,
    IfStmt,
    ReturnStmt,
    ScopeStmt,
    SeqStmts,
    Stmt,
    WhileStmt,
    YieldStmt,
)
from .type_base import Type


def _body(stmts: list[Stmt], span: Span) -> Stmt:
    return stmts[0] if len(stmts) == 1 else SeqStmts(stmts, span)


class _Built:
    """A builder whose result exists once its ``with`` block is closed."""

    _result: Any = None

    def get_result(self) -> Any:
        """The node built by the closed ``with`` block."""
        if self._result is None:
            raise IRValueError(f"{type(self).__name__}: the result exists only after the with block is closed")
        return self._result


class ProgramBuilder(_Built):
    """The builder of ``IRBuilder.program``: ``declare_function(name)`` names a function before it
    is built (to call it from functions built earlier); the program checks that it gets built."""

    def __init__(self) -> None:
        self.declared: list[str] = []

    def declare_function(self, name: str) -> GlobalVar:
        """The ``GlobalVar`` that calls function ``name`` of this program."""
        if name not in self.declared:
            self.declared.append(name)
        return GlobalVar(name)


class FunctionBuilder(_Built):
    """Collects parameters and return types of ``IRBuilder.function``."""

    def __init__(self) -> None:
        self.params: list[tuple[Var, ParamDirection]] = []
        self.return_types: list[Type] = []

    def param(self, name: str, type: Type, direction: ParamDirection = ParamDirection.In, span: Span | None = None) -> Var:
        """Add a parameter and return its variable."""
        var = Var(name, type, span or Span.unknown())
        self.params.append((var, direction))
        return var

    def return_type(self, type: Type) -> None:
        """Add a return type."""
        self.return_types.append(type)


class ForLoopBuilder(_Built):
    """Collects the iter_args and return variables of ``IRBuilder.for_loop``."""

    def __init__(self) -> None:
        self.iter_args: list[IterArg] = []
        self.return_vars: list[Var] = []

    def iter_arg(self, name: str, init_value: Expr, span: Span | None = None) -> IterArg:
        """A loop-carried value seeded with ``init_value``."""
        arg = IterArg(name, init_value.type, init_value, span or Span.unknown())
        self.iter_args.append(arg)
        return arg

    def return_var(self, name: str, type: Type | None = None, span: Span | None = None) -> Var:
        """The value after the loop of the iter_arg at the same position."""
        if type is None:
            type = self.iter_args[len(self.return_vars)].type
        var = Var(name, type, span or Span.unknown())
        self.return_vars.append(var)
        return var


class WhileLoopBuilder(ForLoopBuilder):
    """``IRBuilder.while_loop``: iter_args, return variables and the condition over them."""

    condition: Expr | None = None

    def set_condition(self, condition: Expr) -> None:
        """The loop condition (may read the iter_args)."""
        self.condition = condition


class IfStmtBuilder(_Built):
    """``IRBuilder.if_stmt``: ``else_()`` switches to the else branch; ``return_var`` adds a phi."""

    def __init__(self, builder: IRBuilder) -> None:
        self._builder = builder
        self.return_vars: list[Var] = []
        self.then_stmts: list[Stmt] = []
        self.else_stmts: list[Stmt] | None = None

    def else_(self) -> None:
        """Statements from now on go to the else branch."""
        if self.else_stmts is not None:
            raise IRValueError("IfStmtBuilder: else_() called twice")
        self.else_stmts = []
        self._builder._blocks[-1] = self.else_stmts

    def return_var(self, name: str, type: Type, span: Span | None = None) -> Var:
        """A value of the if (both branches yield it)."""
        var = Var(name, type, span or Span.unknown())
        self.return_vars.append(var)
        return var


class IRBuilder:
    """Imperative construction of functions, programs, loops, ifs and scopes."""

    def __init__(self) -> None:
        self._blocks: list[list[Stmt]] = []
        self._functions: list[list[Function]] = []

    # ----- blocks ------------------------------------------------------------------------------
    def emit(self, stmt: Stmt) -> Stmt:
        """Append ``stmt`` to the innermost open block."""
        if not self._blocks:
            raise IRValueError("IRBuilder: no open block; statements go inside function/loop/if/scope")
        self._blocks[-1].append(stmt)
        return stmt

    @contextmanager
    def _block(self) -> Iterator[list[Stmt]]:
        stmts: list[Stmt] = []
        self._blocks.append(stmts)
        try:
            yield stmts
        finally:
            self._blocks.pop()

    # ----- containers --------------------------------------------------------------------------
    @contextmanager
    def program(self, name: str, span: Span | None = None) -> Iterator[ProgramBuilder]:
        """Functions built inside belong to the program."""
        result = ProgramBuilder()
        functions: list[Function] = []
        self._functions.append(functions)
        try:
            yield result
        finally:
            self._functions.pop()
        missing = [n for n in result.declared if n not in {f.name for f in functions}]
        if missing:
            raise IRValueError(
                f"IRBuilder.program '{name}': declared function(s) {', '.join(missing)} never defined "
                "(build each declared function inside the program block)"
            )
        result._result = Program(functions, name, span or Span.unknown())

    @contextmanager
    def function(
        self,
        name: str,
        span: Span | None = None,
        type: FunctionType = FunctionType.Opaque,
        level: Level | None = None,
        role: Role | None = None,
        attrs: Mapping[str, Any] | None = None,
    ) -> Iterator[FunctionBuilder]:
        """A function; its body is what is emitted inside the block."""
        builder = FunctionBuilder()
        span = span or Span.unknown()
        with self._block() as stmts:
            yield builder
        func = Function(name, builder.params, builder.return_types, _body(stmts, span), span,
                        type=type, level=level, role=role, attrs=attrs)
        builder._result = func
        if self._functions:
            self._functions[-1].append(func)

    @contextmanager
    def for_loop(
        self,
        loop_var: Var,
        start: Expr | int,
        stop: Expr | int,
        step: Expr | int,
        span: Span | None = None,
        kind: ForKind = ForKind.Sequential,
        attrs: Mapping[str, Any] | None = None,
    ) -> Iterator[ForLoopBuilder]:
        """``for loop_var in range(start, stop, step)``; emits the ForStmt when closed."""
        builder = ForLoopBuilder()
        span = span or Span.unknown()
        with self._block() as stmts:
            yield builder
        stmt = ForStmt(loop_var, start, stop, step, builder.iter_args, _body(stmts, span), builder.return_vars,
                       span, kind, attrs)
        builder._result = self.emit(stmt)

    @contextmanager
    def while_loop(self, condition: Expr | None = None, span: Span | None = None) -> Iterator[WhileLoopBuilder]:
        """``while condition`` (or a condition set inside with ``set_condition``)."""
        builder = WhileLoopBuilder()
        builder.condition = condition
        span = span or Span.unknown()
        with self._block() as stmts:
            yield builder
        if builder.condition is None:
            raise IRValueError("IRBuilder.while_loop: no condition given")
        stmt = WhileStmt(builder.condition, builder.iter_args, _body(stmts, span), builder.return_vars, span)
        builder._result = self.emit(stmt)

    @contextmanager
    def if_stmt(self, condition: Expr, span: Span | None = None) -> Iterator[IfStmtBuilder]:
        """``if condition`` with an optional ``else_()`` branch."""
        builder = IfStmtBuilder(self)
        span = span or Span.unknown()
        self._blocks.append(builder.then_stmts)
        try:
            yield builder
        finally:
            self._blocks.pop()
        else_body = None if builder.else_stmts is None else _body(builder.else_stmts, span)
        stmt = IfStmt(condition, _body(builder.then_stmts, span), else_body, builder.return_vars, span)
        builder._result = self.emit(stmt)

    @contextmanager
    def scope(self, scope_class: type[ScopeStmt], span: Span | None = None, **fields: Any) -> Iterator[_Built]:
        """A scope statement (``InCoreScopeStmt``, ``RuntimeScopeStmt`` ...) around the block."""
        result = _Built()
        span = span or Span.unknown()
        with self._block() as stmts:
            yield result
        result._result = self.emit(scope_class(body=_body(stmts, span), span=span, **fields))

    # ----- statements --------------------------------------------------------------------------
    def var(self, name: str, type: Type, span: Span | None = None) -> Var:
        """A new variable (not yet defined)."""
        return Var(name, type, span or Span.unknown())

    def let(self, name: str | Var, value: Expr, span: Span | None = None) -> Var:
        """``name = value``: a new variable of the value's type (or the given Var) is assigned."""
        span = span or Span.unknown()
        var = name if isinstance(name, Var) else Var(name, value.type, span)
        self.emit(AssignStmt(var, value, span))
        return var

    def eval(self, expr: Expr, span: Span | None = None) -> EvalStmt:
        """Evaluate ``expr`` for its effect."""
        return self.emit(EvalStmt(expr, span or Span.unknown()))

    def return_(self, values: list[Expr] | None = None, span: Span | None = None) -> ReturnStmt:
        """``return values``."""
        return self.emit(ReturnStmt(list(values or []), span or Span.unknown()))

    def return_stmt(self, values: Expr | list[Expr] | None = None, span: Span | None = None) -> ReturnStmt:
        """The established name of :meth:`return_`; a single value may be given without a list."""
        return self.return_([values] if isinstance(values, Expr) else values, span)

    def yield_(self, values: list[Expr] | None = None, span: Span | None = None) -> YieldStmt:
        """``pl.yield_(values)``."""
        return self.emit(YieldStmt(list(values or []), span or Span.unknown()))

    def break_(self, span: Span | None = None) -> BreakStmt:
        """``break``."""
        return self.emit(BreakStmt(span or Span.unknown()))

    def continue_(self, span: Span | None = None) -> ContinueStmt:
        """``continue``."""
        return self.emit(ContinueStmt(span or Span.unknown()))
