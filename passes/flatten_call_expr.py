"""FlattenCallExpr: hoist nested calls into temporaries (spec/passes.md §4.7)."""

from __future__ import annotations

import itertools

from pypto.languages.invariants import NoNestedCalls, NormalizedStmtStructure, SSAForm
from pypto.languages.invariants.walk import block
from pypto.languages.ssa import ssa

from pypto.ir.expr import BinaryExpr, Call, Expr, MakeTuple, Submit, TupleGetItemExpr, UnaryExpr, Var
from pypto.ir.function import Function, Program
from pypto.ir.stmt import (
    AssignStmt,
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

from .base import FunctionPass
from .util import block_of, keep_list, rebuild, same_list

NAME = "FlattenCallExpr"



class _Run:
    def __init__(self) -> None:
        self.names = itertools.count()

    def hoist(self, call: Expr, out: list[Stmt]) -> Var:
        tmp = Var(f"t__tmp_v{next(self.names)}", call.type, call.span)
        out.append(AssignStmt(tmp, call, call.span))
        return tmp

    def top(self, e: Expr, out: list[Stmt]) -> Expr:
        """``e`` where it may itself be a call: its arguments and operands get flattened."""
        if isinstance(e, (Call, Submit)):
            return rebuild(e, args=keep_list([self.nested(a, out) for a in e.args], e.args))
        if isinstance(e, MakeTuple):
            return rebuild(e, elements=keep_list([self.top(x, out) for x in e.elements], e.elements))
        if isinstance(e, TupleGetItemExpr):
            return rebuild(e, tuple=self.top(e.tuple, out))
        return self.nested(e, out)

    def nested(self, e: Expr, out: list[Stmt]) -> Expr:
        """``e`` in an argument/operand/control position: any call in it becomes a temporary."""
        if isinstance(e, (Call, Submit)):
            return self.hoist(self.top(e, out), out)
        if isinstance(e, BinaryExpr):
            return rebuild(e, left=self.nested(e.left, out), right=self.nested(e.right, out))
        if isinstance(e, UnaryExpr):
            return rebuild(e, operand=self.nested(e.operand, out))
        if isinstance(e, MakeTuple):
            return rebuild(e, elements=keep_list([self.nested(x, out) for x in e.elements], e.elements))
        if isinstance(e, TupleGetItemExpr):
            return rebuild(e, tuple=self.nested(e.tuple, out))
        return e

    def body(self, body: Stmt) -> Stmt:
        old = block(body)
        new = self.block(old)
        return body if same_list(new, old) else block_of(new, body.span)

    def block(self, stmts: list[Stmt]) -> list[Stmt]:
        out: list[Stmt] = []
        for s in stmts:
            out.append(self.stmt(s, out))
        return out

    def stmt(self, s: Stmt, out: list[Stmt]) -> Stmt:
        if isinstance(s, AssignStmt):
            return rebuild(s, value=self.top(s.value, out))
        if isinstance(s, EvalStmt):
            return rebuild(s, expr=self.top(s.expr, out))
        if isinstance(s, (ReturnStmt, YieldStmt)):
            return rebuild(s, value=keep_list([self.nested(v, out) for v in s.value], s.value))
        if isinstance(s, IfStmt):
            other = self.body(s.else_body) if s.else_body is not None else None
            return rebuild(
                s, condition=self.nested(s.condition, out), then_body=self.body(s.then_body), else_body=other
            )
        if isinstance(s, ForStmt):
            return rebuild(
                s,
                start=self.nested(s.start, out),
                stop=self.nested(s.stop, out),
                step=self.nested(s.step, out),
                body=self.body(s.body),
            )
        if isinstance(s, (WhileStmt, ScopeStmt)):
            return rebuild(s, body=self.body(s.body))
        if isinstance(s, SeqStmts):
            return rebuild(s, stmts=keep_list(self.block(list(s.stmts)), s.stmts))
        return s


class FlattenCallExpr(FunctionPass):
    """Hoist every call nested in arguments, operands, conditions, ranges, returns and yields.

    before:  c = self.foo(self.bar(a))         after:  t__tmp_v0 = self.bar(a)
                                                       c = self.foo(t__tmp_v0)
    """

    name = NAME
    source = ssa
    target = ssa
    requires = frozenset({SSAForm, NormalizedStmtStructure})
    produces = frozenset({SSAForm, NormalizedStmtStructure, NoNestedCalls})

    def run_function(self, func: Function, program: Program) -> Function:
        # The invariant's own (cached) result: the check after this pass finds it for every
        # function returned unchanged instead of walking the function again.
        if not NoNestedCalls.check_function(func, program, NoNestedCalls.context(program)):
            return func
        return rebuild(func, body=_Run().body(func.body))


def flatten_call_expr() -> FlattenCallExpr:
    """The FlattenCallExpr pass."""
    return FlattenCallExpr()
