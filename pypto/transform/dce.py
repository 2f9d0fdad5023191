"""Dead-code elimination of an SSA function body: pure assignments nobody reads, and loop/if carries
whose results nobody reads (mark and sweep, so a carry that only feeds itself is dead too).

A statement is live when it has an effect (an op with a side effect or a written argument, a call
of a program function, a return); a variable is live when a live statement reads it. A live
``for``/``while`` return var makes its iter_arg, init and yield live; a live iter_arg makes its init
and yield live; a live ``if`` return var makes both branches' yields and the condition live.
"""

from __future__ import annotations

from pypto.analysis.defuse import expr_vars, sub_blocks, type_vars
from pypto.ir.expr import Call, Expr, GlobalVar, Var
from pypto.ir.function import Function
from pypto.ir.node import replace
from pypto.ir.op_registry import lookup
from pypto.ir.stmt import AssignStmt, EvalStmt, ForStmt, IfStmt, ReturnStmt, SeqStmts, Stmt, WhileStmt, YieldStmt
from pypto.ir.transforms import flatten_to_stmts


def has_effect(value: Expr) -> bool:
    """``value`` does more than compute its result (a side effect, a written argument, a program call)."""
    if not isinstance(value, Call):
        return False
    if isinstance(value.op, GlobalVar):
        return True
    entry = lookup(value.op.name)
    return entry is None or entry.side_effect or bool(entry.written_params())


def _reads(exprs: list[Expr]) -> set[Var]:
    out: set[Var] = set()
    for e in exprs:
        out.update(expr_vars(e))
        if isinstance(e, Var):
            type_vars(e.type, out)
    return out


class _Marker:
    """Finds the live variables of a body (see the module docstring)."""

    def __init__(self) -> None:
        self.live: set[Var] = set()
        self.todo: list[Var] = []
        self.defs: dict[Var, tuple[Stmt, int]] = {}  # var -> (defining statement, index among its results)
        self.loop_of: dict[Var, tuple[Stmt, int]] = {}  # iter_arg -> (loop, index)

    def index(self, stmt: Stmt) -> None:
        for s in flatten_to_stmts(stmt):
            if isinstance(s, AssignStmt):
                self.defs[s.var] = (s, 0)
            elif isinstance(s, (ForStmt, WhileStmt, IfStmt)):
                for k, rv in enumerate(s.return_vars):
                    self.defs[rv] = (s, k)
                if isinstance(s, (ForStmt, WhileStmt)):
                    for k, ia in enumerate(s.iter_args):
                        self.loop_of[ia] = (s, k)
            for body in sub_blocks(s):
                self.index(body)

    def need(self, vars_: set[Var]) -> None:
        for v in vars_:
            if v not in self.live:
                self.live.add(v)
                self.todo.append(v)

    def roots(self, stmt: Stmt) -> None:
        for s in flatten_to_stmts(stmt):
            if isinstance(s, (AssignStmt, EvalStmt)):
                value = s.value if isinstance(s, AssignStmt) else s.expr
                if has_effect(value):
                    self.need(_reads([value]) | ({s.var} if isinstance(s, AssignStmt) else set()))
            elif isinstance(s, ReturnStmt):
                self.need(_reads(list(s.value)))
            else:
                if isinstance(s, ForStmt):
                    self.need(_reads([s.start, s.stop, s.step]))
                elif isinstance(s, (WhileStmt, IfStmt)):
                    self.need(_reads([s.condition]))
                for body in sub_blocks(s):
                    self.roots(body)

    def run(self) -> None:
        while self.todo:
            v = self.todo.pop()
            if v in self.loop_of:
                loop, k = self.loop_of[v]
                self._carry(loop, k)
                continue
            found = self.defs.get(v)
            if found is None:
                continue
            s, k = found
            if isinstance(s, AssignStmt):
                self.need(_reads([s.value]))
            elif isinstance(s, IfStmt):
                self.need(_reads([s.condition]))
                for body in (s.then_body, s.else_body):
                    y = _yield(body)
                    if y is not None:
                        self.need(_reads([y.value[k]]))
            else:
                self._carry(s, k)

    def _carry(self, loop: Stmt, k: int) -> None:
        self.need({loop.iter_args[k]} | _reads([loop.iter_args[k].initValue]))
        if k < len(loop.return_vars):
            self.need({loop.return_vars[k]})
        y = _yield(loop.body)
        if y is not None:
            self.need(_reads([y.value[k]]))


def _yield(body: Stmt | None) -> YieldStmt | None:
    stmts = flatten_to_stmts(body) if body is not None else []
    return stmts[-1] if stmts and isinstance(stmts[-1], YieldStmt) else None


def _sweep_block(body: Stmt, live: set[Var], keep: list[int] | None, dropped: list[Stmt]) -> Stmt:
    """``body`` without its dead statements and carries; the loops and branches it drops go to ``dropped``."""
    out: list[Stmt] = []
    for s in flatten_to_stmts(body):
        if isinstance(s, AssignStmt):
            if s.var in live or has_effect(s.value):
                out.append(s)
        elif isinstance(s, YieldStmt) and keep is not None:
            out.append(replace(s, value=[s.value[k] for k in keep]))
        elif isinstance(s, (ForStmt, WhileStmt)):
            kept = [k for k, ia in enumerate(s.iter_args) if ia in live]
            new = replace(
                s,
                iter_args=[s.iter_args[k] for k in kept],
                return_vars=[s.return_vars[k] for k in kept if k < len(s.return_vars)],
                body=_sweep_block(s.body, live, kept, dropped),
            )
            if kept or _does_something(new.body):
                out.append(new)
            else:
                dropped.append(s)
        elif isinstance(s, IfStmt):
            kept = [k for k, rv in enumerate(s.return_vars) if rv in live]
            then = _sweep_block(s.then_body, live, kept, dropped)
            other = _sweep_block(s.else_body, live, kept, dropped) if s.else_body is not None else None
            if kept or _does_something(then) or (other is not None and _does_something(other)):
                out.append(replace(s, then_body=then, else_body=other,
                                   return_vars=[s.return_vars[k] for k in kept]))
            else:
                dropped.append(s)
        else:
            out.append(s)
    return out[0] if len(out) == 1 else SeqStmts(out, body.span)


def _does_something(body: Stmt) -> bool:
    return any(not isinstance(s, YieldStmt) for s in flatten_to_stmts(body))


def eliminate_dead_code(func: Function) -> Function:
    """``func`` without the dead assignments and carries of its body (see the module docstring)."""
    return sweep_dead_code(func)[0]


def sweep_dead_code(func: Function) -> tuple[Function, bool]:
    """:func:`eliminate_dead_code` of ``func``, and whether it dropped a loop or branch. Only then
    can a second run remove more (what computed the dropped header's bounds or condition, which it
    kept live); otherwise the result is its own dead-code elimination."""
    marker = _Marker()
    marker.index(func.body)
    marker.roots(func.body)
    marker.run()
    dropped: list[Stmt] = []
    return replace(func, body=_sweep_block(func.body, marker.live, None, dropped)), bool(dropped)
