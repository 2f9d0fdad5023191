"""How many times a kernel runs each cross-core pipe op, when that is known at compile time.

A Group's producer must push onto a pipe as many tiles as its consumer pops (and frees): a pop
without a push waits forever, a push nobody pops fills the ring. :func:`static_count` counts the
calls a body makes, multiplying through loops with constant bounds; a count that depends on a
dynamic loop bound, a while loop or a branch that differs between its arms is unknown (None).
"""

from __future__ import annotations

from collections.abc import Callable

from pypto.ir.expr import Call, ConstInt, Expr
from pypto.ir.stmt import AssignStmt, EvalStmt, ForStmt, IfStmt, ScopeStmt, SeqStmts, Stmt, WhileStmt


def _trips(loop: ForStmt) -> int | None:
    bounds = (loop.start, loop.stop, loop.step)
    if not all(isinstance(b, ConstInt) for b in bounds) or loop.step.value <= 0:
        return None
    return max(0, -(-(loop.stop.value - loop.start.value) // loop.step.value))


def static_count(body: Stmt | None, match: Callable[[Call], bool]) -> int | None:
    """The number of calls matching ``match`` one run of ``body`` makes, or None when not static."""
    if body is None:
        return 0
    if isinstance(body, SeqStmts):
        total = 0
        for s in body.stmts:
            n = static_count(s, match)
            if n is None:
                return None
            total += n
        return total
    if isinstance(body, (AssignStmt, EvalStmt)):
        value: Expr = body.value if isinstance(body, AssignStmt) else body.expr
        return int(isinstance(value, Call) and match(value))
    if isinstance(body, ForStmt):
        inner = static_count(body.body, match)
        trips = _trips(body)
        if inner == 0:
            return 0
        return None if inner is None or trips is None else inner * trips
    if isinstance(body, WhileStmt):
        return 0 if static_count(body.body, match) == 0 else None
    if isinstance(body, IfStmt):
        then, other = static_count(body.then_body, match), static_count(body.else_body, match)
        return then if then == other else None
    if isinstance(body, ScopeStmt):
        return static_count(body.body, match)
    return 0
