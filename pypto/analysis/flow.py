"""One forward walk over the statements of a body, threading a client's state in program order.

:class:`ForwardWalk` visits a body's statements in program order: a compound statement before its
bodies, a then body before its else body, a loop body once or (``loop_passes = None``) again and
again until the client's state at the loop head stops changing. A client overrides only the hooks it
needs; each takes the state before and returns the state after. The walker hands one state to both
branches of an if, so a hook that changes a state must not mutate one it did not make.

A client may also rewrite blocks: :meth:`ForwardWalk.exit_block` returns the body standing for the
walked statements (e.g. with statements inserted), and the walker rebuilds the compound statements
around a body that changed (a loop keeps the body of its last pass). Example, the variables surely
defined after a body (``stmt_defs`` from :mod:`.defuse`)::

    class Defined(ForwardWalk[frozenset[Var]]):
        def leaf(self, s: Stmt, state: frozenset[Var]) -> frozenset[Var]:
            return state | frozenset(stmt_defs(s))

        def join(self, s: IfStmt, before: frozenset[Var], then_end: frozenset[Var],
                 else_end: frozenset[Var]) -> frozenset[Var]:
            return (then_end & else_end) | frozenset(s.return_vars)

        def exit_loop(self, s: ForStmt | WhileStmt, before: frozenset[Var],
                      end: frozenset[Var]) -> frozenset[Var]:
            return before | frozenset(s.return_vars)  # the body may not run

    _, defined = Defined().block(func.body, frozenset(func.params))
"""

from __future__ import annotations

from operator import is_
from typing import ClassVar, Generic, TypeVar, overload

from pypto.ir.node import replace
from pypto.ir.stmt import ForStmt, IfStmt, ScopeStmt, SeqStmts, Stmt, WhileStmt
from pypto.ir.transforms import flatten_to_stmts

S = TypeVar("S")

# What a statement class is to the walk (cached per class: the scope kinds are subclasses).
_LEAF, _LOOP, _BRANCH, _SCOPE = 0, 1, 2, 3
_KINDS: dict[type, int] = {}


def _kind(cls: type) -> int:
    if issubclass(cls, (ForStmt, WhileStmt)):
        return _LOOP
    if issubclass(cls, IfStmt):
        return _BRANCH
    return _SCOPE if issubclass(cls, ScopeStmt) else _LEAF


class ForwardWalk(Generic[S]):
    """A forward walk in program order with per-statement, loop (fixpoint) and branch-join hooks."""

    #: Walks of each loop body: ``None`` repeats until :meth:`same` holds for the loop head's state
    #: and its :meth:`back_edge` merge; a number walks the body that many times.
    loop_passes: ClassVar[int | None] = 1

    @overload
    def block(self, body: Stmt, state: S) -> tuple[Stmt, S]: ...

    @overload
    def block(self, body: None, state: S) -> tuple[None, S]: ...

    def block(self, body: Stmt | None, state: S) -> tuple[Stmt | None, S]:
        """``body`` (as :meth:`exit_block` leaves it) and the state after it; ``state`` is the one before."""
        if body is None:
            return None, state
        state = self.enter_block(state)
        stmts: list[Stmt] = []
        append, leaf, kinds = stmts.append, self.leaf, _KINDS
        for s in flatten_to_stmts(body):
            kind = kinds.get(type(s))
            if kind is None:
                kind = kinds[type(s)] = _kind(type(s))
            if kind == _LEAF:
                state = leaf(s, state)
                append(s)
                continue
            if kind == _LOOP:
                new, state = self._loop(s, state)  # type: ignore[arg-type]
            elif kind == _BRANCH:
                new, state = self._branch(s, state)  # type: ignore[arg-type]
            else:
                new, state = self._scope(s, state)  # type: ignore[arg-type]
            append(new)
        return self.exit_block(body, stmts, state), state

    def _scope(self, s: ScopeStmt, state: S) -> tuple[Stmt, S]:
        body, end = self.block(s.body, self.enter_scope(s, state))
        return (s if body is s.body else replace(s, body=body)), self.exit_scope(s, state, end)

    def _loop(self, s: ForStmt | WhileStmt, state: S) -> tuple[Stmt, S]:
        head = self.enter_loop(s, state)
        passes = 0
        while True:
            body, end = self.block(s.body, head)
            passes += 1
            if self.loop_passes is not None and passes >= self.loop_passes:
                break
            merged = self.back_edge(s, head, end)
            if self.same(merged, head):
                break
            head = merged
        return (s if body is s.body else replace(s, body=body)), self.exit_loop(s, state, end)

    def _branch(self, s: IfStmt, state: S) -> tuple[Stmt, S]:
        state = self.enter_branch(s, state)
        then_body, then_end = self.block(s.then_body, state)
        else_body, else_end = self.block(s.else_body, state)
        new = s if then_body is s.then_body and else_body is s.else_body else replace(
            s, then_body=then_body, else_body=else_body)
        return new, self.join(s, state, then_end, else_end)

    # ---- hooks ---------------------------------------------------------------------------------

    def enter_block(self, state: S) -> S:
        """The state at the start of a block, from the state before it."""
        return state

    def exit_block(self, body: Stmt, stmts: list[Stmt], state: S) -> Stmt:
        """The body standing for ``body`` whose statements were walked into ``stmts``."""
        if all(map(is_, stmts, flatten_to_stmts(body))):
            return body
        return stmts[0] if len(stmts) == 1 and not isinstance(body, SeqStmts) else SeqStmts(stmts, body.span)

    def leaf(self, s: Stmt, state: S) -> S:
        """A statement without bodies (assignment, evaluation, yield, return, ...)."""
        return state

    def enter_loop(self, s: ForStmt | WhileStmt, state: S) -> S:
        """The state at the loop head on entry (after the loop evaluated its bounds and inits)."""
        return state

    def back_edge(self, s: ForStmt | WhileStmt, head: S, end: S) -> S:
        """The loop head's state once the end of an iteration flows back into it."""
        return end

    def same(self, a: S, b: S) -> bool:
        """Whether two loop-head states are equal (the fixpoint test of ``loop_passes = None``)."""
        return a == b

    def exit_loop(self, s: ForStmt | WhileStmt, before: S, end: S) -> S:
        """The state after the loop, from the state before it and at the end of its body's last walk."""
        return end

    def enter_branch(self, s: IfStmt, state: S) -> S:
        """The state both branches of an if start from (after the condition)."""
        return state

    def join(self, s: IfStmt, before: S, then_end: S, else_end: S) -> S:
        """The state after an if, from the ends of its branches (no else: ``else_end`` is the start)."""
        return then_end

    def enter_scope(self, s: ScopeStmt, state: S) -> S:
        """The state a scope statement's body starts from."""
        return state

    def exit_scope(self, s: ScopeStmt, before: S, end: S) -> S:
        """The state after a scope statement, from the state before it and at the end of its body."""
        return end
