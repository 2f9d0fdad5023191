"""Straight-line re-assignments as new variables, the form the parser gives pre-SSA code.

The parser makes a new ``Var`` when a name is assigned again in the block that bound it, and
re-defines the ``Var`` when another block bound it (pypto/language/parser/core.py). A pass that
splices copies of a body into a block (UnrollLoops), or that removes the jumps of a function the
parser read with one Var per name (CtrlFlowTransform), leaves variables re-defined in their own
block; this rewrite gives each such re-definition a new variable and points the later uses at it,
so the program prints and parses back to a structurally equal one. A function that leaves a block early
(:func:`leaves_early`) keeps its re-definitions, as the parser does for such a function.
"""

from __future__ import annotations

from pypto.analysis import block, function_index
from pypto.ir.expr import Var
from pypto.ir.function import Function
from pypto.ir.stmt import (
    AssignStmt,
    BreakStmt,
    ContinueStmt,
    ForStmt,
    IfStmt,
    ReturnStmt,
    ScopeStmt,
    Stmt,
    WhileStmt,
    YieldStmt,
)
from pypto.ir.transforms import substitute_stmt

from .util import block_of, rebuild


class _Versions:
    """One walk in statement order: where each variable was first bound, and its current version."""

    def __init__(self, func: Function) -> None:
        self.home: dict[Var, int] = {p: id(func.body) for p in func.params}
        self.current: dict[Var, Var] = {}

    def block(self, body: Stmt | None, key: int) -> Stmt | None:
        if body is None:
            return None
        old = block(body)
        stmts = [self.stmt(s, key) for s in old]
        return body if all(a is b for a, b in zip(stmts, old)) else block_of(stmts, body.span)

    def define(self, var: Var, key: int) -> None:
        self.home.setdefault(var, key)

    def stmt(self, s: Stmt, key: int) -> Stmt:
        if isinstance(s, AssignStmt):
            value = substitute_stmt(s, self.current).value if self.current else s.value
            var = s.var
            if var in self.home and self.home[var] == key:
                new = Var(var.name_hint, var.type, var.span)
                self.current[var] = new
                return rebuild(s, var=new, value=value)
            self.define(var, key)
            return rebuild(s, var=self.current.get(var, var), value=value)
        if not isinstance(s, (IfStmt, ForStmt, WhileStmt, ScopeStmt)):
            return substitute_stmt(s, self.current) if self.current else s
        header = dict(self.current)
        if isinstance(s, ScopeStmt):
            new = rebuild(s, body=self.block(s.body, key))
        elif isinstance(s, IfStmt):
            new = rebuild(
                s,
                then_body=self.block(s.then_body, id(s.then_body)),
                else_body=self.block(s.else_body, id(s.else_body)),
            )
        else:
            binders = ([s.loop_var] if isinstance(s, ForStmt) else []) + list(s.iter_args)
            body = block(s.body)
            inner = id(s.body) if body and isinstance(body[-1], YieldStmt) else key
            for var in binders:
                self.define(var, inner)
            new = rebuild(s, body=self.block(s.body, id(s.body)))
        for var in getattr(s, "return_vars", ()):
            self.define(var, key)
        return substitute_stmt(new, header) if header else new


def leaves_early(func: Function) -> bool:
    """Whether ``func`` leaves a block early: a break or continue, or a return that is not the
    body's last statement (pypto.language.parser.core.leaves_early on the source)."""
    index = function_index(func)
    if index.has(BreakStmt, ContinueStmt):
        return True
    returns = list(index.of(ReturnStmt))
    return bool(returns) and (len(returns) > 1 or returns[0] is not block(func.body)[-1])


def fresh_reassignments(func: Function) -> Function:
    """``func`` with every re-definition of a variable in the block that first bound it a new
    variable, later uses reading it (see the module docstring); ``func`` itself when it leaves a
    block early."""
    if leaves_early(func):
        return func
    body = _Versions(func).block(func.body, id(func.body))
    return rebuild(func, body=body)
