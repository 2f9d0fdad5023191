"""How many times a kernel runs each cross-core pipe op, when that is known at compile time.

A Group's producer must push onto a pipe as many tiles as its consumer pops (and frees): a pop
without a push waits forever, a push nobody pops fills the ring. :func:`static_counts` counts the
calls a body makes, multiplying through loops with constant bounds; a count that depends on a
dynamic loop bound, a while loop or a branch that differs between its arms is unknown (None).
"""

from __future__ import annotations

from collections.abc import Hashable

from pypto.ir.expr import ConstInt
from pypto.ir.stmt import AssignStmt, EvalStmt, ForStmt, IfStmt, ScopeStmt, SeqStmts, Stmt, WhileStmt

Counts = dict[Hashable, int | None]


def _trips(loop: ForStmt) -> int | None:
    bounds = (loop.start, loop.stop, loop.step)
    if not all(isinstance(b, ConstInt) for b in bounds) or loop.step.value <= 0:
        return None
    return max(0, -(-(loop.stop.value - loop.start.value) // loop.step.value))


def _add(total: Counts, key: Hashable, n: int | None) -> None:
    """Add ``n`` calls of ``key`` to ``total`` (None, not static, stays None)."""
    if key not in total:
        total[key] = n
    elif n is None or total[key] is None:
        total[key] = None
    else:
        total[key] += n


def static_counts(body: Stmt | None, keys: dict[int, Hashable]) -> Counts:
    """Per key, how many of the calls ``keys`` gives a key to (by the call's id) one run of ``body``
    makes, or None when not static; a key not listed is made 0 times. One walk counts every key."""
    if body is None:
        return {}
    cls = type(body)
    if cls is SeqStmts:
        total: Counts = {}
        get = keys.get
        for s in body.stmts:
            kind = type(s)
            # The common statements, counted here: most make no call counted.
            if kind is AssignStmt:
                k = get(id(s.value))
            elif kind is EvalStmt:
                k = get(id(s.expr))
            else:
                for k, n in static_counts(s, keys).items():
                    _add(total, k, n)
                continue
            if k is not None:
                _add(total, k, 1)
        return total
    if isinstance(body, (AssignStmt, EvalStmt)):
        k = keys.get(id(body.value if isinstance(body, AssignStmt) else body.expr))
        return {} if k is None else {k: 1}
    if isinstance(body, ForStmt):
        trips = _trips(body)
        return {k: None if n is None or trips is None else n * trips
                for k, n in static_counts(body.body, keys).items() if n != 0}
    if isinstance(body, WhileStmt):
        return {k: None for k, n in static_counts(body.body, keys).items() if n != 0}
    if isinstance(body, IfStmt):
        then, other = static_counts(body.then_body, keys), static_counts(body.else_body, keys)
        return {k: then.get(k, 0) if then.get(k, 0) == other.get(k, 0) else None for k in then.keys() | other.keys()}
    if isinstance(body, ScopeStmt):
        return static_counts(body.body, keys)
    return {}
