"""Context-free def/use summaries of statements, for liveness in pre-SSA code.

Each statement gets ``gen`` (variables it may read before writing them), ``kill`` (variables it
surely writes) and whether control leaves the block at it (break, continue, return). Summaries do
not depend on the surrounding code, so they are cached per statement object and stay correct when
a subtree is shared (the IR is a DAG). ``live_after(stmts, live_out)`` gives, for each statement
of a block, the variables read after it.
"""

from __future__ import annotations

from dataclasses import dataclass

from pypto.ir.expr import Var
from pypto.ir.stmt import (
    AssignStmt,
    BreakStmt,
    ContinueStmt,
    ForStmt,
    IfStmt,
    ReturnStmt,
    ScopeStmt,
    SeqStmts,
    Stmt,
    WhileStmt,
)

from .defuse import block, expr_vars, scope_attr_reads, scope_task_id, stmt_defs, stmt_exprs

_EMPTY: frozenset[Var] = frozenset()


@dataclass(frozen=True)
class Summary:
    gen: frozenset[Var]
    kill: frozenset[Var]
    exits: bool


class Liveness:
    """Summaries of the statements of one function (cached by object identity)."""

    def __init__(self) -> None:
        self._cache: dict[int, tuple[Stmt, Summary]] = {}
        self._modified: dict[int, tuple[Stmt, frozenset[Var]]] = {}

    def summary(self, stmt: Stmt) -> Summary:
        """``gen``/``kill``/``exits`` of ``stmt``."""
        hit = self._cache.get(id(stmt))
        if hit is not None and hit[0] is stmt:
            return hit[1]
        result = self._compute(stmt)
        self._cache[id(stmt)] = (stmt, result)
        return result

    def block(self, body: Stmt | None) -> Summary:
        """The summary of a statement list: reads before writes, and sure writes up to any exit."""
        gen: set[Var] = set()
        kill: set[Var] = set()
        for s in block(body):
            sub = self.summary(s)
            gen |= sub.gen - kill
            kill |= sub.kill
            if sub.exits:
                return Summary(frozenset(gen), frozenset(kill), True)
        return Summary(frozenset(gen), frozenset(kill), False)

    def _compute(self, stmt: Stmt) -> Summary:
        uses = frozenset(v for e in stmt_exprs(stmt) for v in expr_vars(e))
        if isinstance(stmt, SeqStmts):
            return self.block(stmt)
        if isinstance(stmt, (BreakStmt, ContinueStmt, ReturnStmt)):
            return Summary(uses, _EMPTY, True)
        if isinstance(stmt, IfStmt):
            then, other = self.block(stmt.then_body), self.block(stmt.else_body)
            sure = then.kill & other.kill if stmt.else_body is not None else _EMPTY
            return Summary(uses | then.gen | other.gen, sure | frozenset(stmt.return_vars), False)
        if isinstance(stmt, (ForStmt, WhileStmt)):
            body = self.block(stmt.body)
            binders = frozenset(stmt_defs(stmt)) - frozenset(stmt.return_vars)
            reads = body.gen | (frozenset(expr_vars(stmt.condition)) if isinstance(stmt, WhileStmt) else _EMPTY)
            return Summary(uses | (reads - binders), frozenset(stmt.return_vars), False)
        if isinstance(stmt, ScopeStmt):  # its attrs read deps (before the body), ``as tid`` is defined after it
            body = self.block(stmt.body)
            tid = scope_task_id(stmt)
            kill = body.kill | {tid} if tid is not None else body.kill
            return Summary(uses | frozenset(scope_attr_reads(stmt)) | body.gen, kill, body.exits)
        if isinstance(stmt, AssignStmt):
            return Summary(uses, frozenset([stmt.var]), False)
        return Summary(uses, frozenset(stmt_defs(stmt)), False)

    def live_after(self, stmts: list[Stmt], live_out: frozenset[Var]) -> list[frozenset[Var]]:
        """For each statement of a block, the variables read after it (given those read after the block)."""
        out: list[frozenset[Var]] = [live_out] * len(stmts)
        live = live_out
        for i in range(len(stmts) - 1, -1, -1):
            out[i] = live
            sub = self.summary(stmts[i])
            live = sub.gen | (live_out if sub.exits else live - sub.kill)
        return out

    def modified(self, body: Stmt | None) -> frozenset[Var]:
        """Variables written anywhere in ``body`` (not the binders local to a nested loop)."""
        hit = self._modified.get(id(body))
        if hit is not None and hit[0] is body:
            return hit[1]
        found: set[Var] = set()
        for s in block(body):
            if isinstance(s, (ForStmt, WhileStmt)):
                found |= set(s.return_vars) | (self.modified(s.body) - set(stmt_defs(s)))
            elif isinstance(s, IfStmt):
                found |= set(s.return_vars) | self.modified(s.then_body)
                if s.else_body is not None:
                    found |= self.modified(s.else_body)
            elif isinstance(s, ScopeStmt):
                found |= self.modified(s.body)
                tid = scope_task_id(s)
                if tid is not None:
                    found.add(tid)
            elif isinstance(s, SeqStmts):
                found |= self.modified(s)
            else:
                found |= set(stmt_defs(s))
        result = frozenset(found)
        self._modified[id(body)] = (body, result)
        return result
