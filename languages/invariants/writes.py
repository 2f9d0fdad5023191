"""Write invariants of declared parameter directions (docs/dialects.md#writes).

* ``InputsNotWritten``: a tensor parameter declared ``In`` (no ``pl.Out`` / ``pl.InOut``) is never
  written: not by an op that writes its operand in place (``pl.store``, ``tensor.assemble``,
  ``x[...] = t``, ...), not by passing it as an Out/InOut argument to a program function.
* ``OutParamsWritten``: a function writes each of its ``Out`` tensor parameters on every path to
  its end, where writing is what ``InputsNotWritten`` forbids for inputs. A path takes one branch
  of each ``if`` (an ``if`` without ``else`` writes nothing on its empty branch). A loop writes
  what every complete trip of its body writes: trips that end in ``break`` do not count, and the
  loop is taken to complete a trip unless its trip count is the constant zero (how many trips a
  run makes is a run-time value; what a run leaves unwritten keeps the caller's values,
  docs/simulator.md#outputs). ``InOut`` parameters need not be written.

A write reaches the parameter through copies (``y = x``), in-place results (``r = pl.store(t, o,
x)``), results of calls that return the parameter they were passed, and loop carries. Group and
Spmd wrappers are exempt: they forward their parameters, and their directions are derived from the
kernels they call (``CallDirectionsResolved``). The ``surface`` dialect guarantees both, so the
directions a user declares are checked when a program enters the pipeline; the directions of
functions that outlining creates are derived from their writes.
"""

from __future__ import annotations

from pypto.analysis import callee
from pypto.analysis.roots import returned_params
from pypto.ir import op_registry
from pypto.ir.enums import FunctionType, ParamDirection
from pypto.ir.expr import Call, ConstInt, Expr, GlobalVar, Submit, TupleGetItemExpr, Var
from pypto.ir.function import Function, Program
from pypto.ir.op_registry import Effect
from pypto.ir.stmt import (
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
)
from pypto.ir.types import TensorType

from .base import Invariant, Reporter

_WRAPPERS = (FunctionType.Group, FunctionType.Spmd)
_WRITTEN = (Effect.WRITE, Effect.READ_WRITE)


class _Buffers:
    """Which tensor parameter each variable of a function is (through copies, writes, calls, carries)."""

    def __init__(self, func: Function, program: Program) -> None:
        self.program = program
        self.param: dict[Var, Var] = {p: p for p in func.params if isinstance(p.type, TensorType)}
        self.calls: dict[Var, Call | Submit] = {}

    def of(self, e: Expr) -> Var | None:
        """The parameter whose buffer ``e`` names, or None."""
        return self.param.get(e) if isinstance(e, Var) else None

    def writes(self, e: Expr) -> list[tuple[Var, Call | Submit]]:
        """The parameters the calls in ``e`` write, each with the call that writes it."""
        out: list[tuple[Var, Call | Submit]] = []
        stack = [e]
        while stack:
            node = stack.pop()
            if not isinstance(node, (Call, Submit)):
                continue
            stack.extend(node.args)
            for position in self._written_positions(node):
                param = self.of(node.args[position])
                if param is not None:
                    out.append((param, node))
        return out

    def _written_positions(self, call: Call | Submit) -> list[int]:
        if isinstance(call.op, GlobalVar):
            target = callee(self.program, call)
            if target is None:
                return []
            return [i for i, d in enumerate(target.param_directions) if d is not ParamDirection.In
                    and i < len(call.args)]
        if op_registry.lookup(call.op.name) is None:
            return []
        return [i for i in range(len(call.args)) if op_registry.get_op_arg_effect(call.op.name, i) in _WRITTEN]

    def assign(self, s: AssignStmt) -> None:
        """Record the parameter ``s.var`` names after ``s``, if any."""
        value = s.value
        found: Var | None = None
        if isinstance(value, Var):
            found = self.of(value)
        elif isinstance(value, (Call, Submit)):
            if isinstance(value.op, GlobalVar):
                self.calls[s.var] = value
                found = self._returned(value, 0)
            else:
                written = self._written_positions(value)
                found = self.of(value.args[written[0]]) if written else None
        elif isinstance(value, TupleGetItemExpr) and isinstance(value.tuple, Var) and value.tuple in self.calls:
            found = self._returned(self.calls[value.tuple], value.index)
        if found is not None:
            self.param[s.var] = found
        elif s.var in self.param and self.param[s.var] is not s.var:
            del self.param[s.var]  # a re-assigned variable names a new buffer

    def _returned(self, call: Call | Submit, position: int) -> Var | None:
        target = callee(self.program, call)
        returned = returned_params(target) if target is not None else []
        if position >= len(returned) or returned[position] is None:
            return None
        return self.of(call.args[returned[position]])  # type: ignore[index]

    def carry(self, loop: ForStmt | WhileStmt) -> None:
        for it, rv in zip(loop.iter_args, loop.return_vars):
            param = self.of(it.initValue)
            if param is not None:
                self.param[it] = self.param[rv] = param


def _scan(stmt: Stmt, buffers: _Buffers, visit) -> None:  # noqa: ANN001 - visit(stmt) per simple statement
    """Every simple statement under ``stmt`` in program order, with the buffer map kept up to date."""
    if isinstance(stmt, SeqStmts):
        for s in stmt.stmts:
            _scan(s, buffers, visit)
    elif isinstance(stmt, ScopeStmt):
        _scan(stmt.body, buffers, visit)
    elif isinstance(stmt, IfStmt):
        _scan(stmt.then_body, buffers, visit)
        if stmt.else_body is not None:
            _scan(stmt.else_body, buffers, visit)
    elif isinstance(stmt, (ForStmt, WhileStmt)):
        buffers.carry(stmt)
        if isinstance(stmt, WhileStmt):
            visit(EvalStmt(stmt.condition, stmt.span))
        _scan(stmt.body, buffers, visit)
    else:
        visit(stmt)
        if isinstance(stmt, AssignStmt):
            buffers.assign(stmt)


def _exprs(stmt: Stmt) -> list[Expr]:
    if isinstance(stmt, AssignStmt):
        return [stmt.value]
    if isinstance(stmt, EvalStmt):
        return [stmt.expr]
    if isinstance(stmt, ReturnStmt):
        return list(stmt.value)
    return []


def _declared(func: Function) -> bool:
    return func.func_type not in _WRAPPERS and not func.requires_runtime_binding


def _check_inputs(func: Function, program: Program, report: Reporter) -> None:
    if not _declared(func):
        return
    inputs = {p for p, d in zip(func.params, func.param_directions) if d is ParamDirection.In}
    if not any(isinstance(p.type, TensorType) for p in inputs):
        return
    buffers = _Buffers(func, program)
    reported: set[Var] = set()

    def visit(stmt: Stmt) -> None:
        for e in _exprs(stmt):
            for param, call in buffers.writes(e):
                if param in inputs and param not in reported:
                    reported.add(param)
                    how = (f"passed as an Out/InOut argument to '{call.op.name}'" if isinstance(call.op, GlobalVar)
                           else f"written by {call.op.name}")
                    report.error(
                        "WRITE_TO_INPUT",
                        f"input parameter '{param.name_hint}' is {how}; declare it "
                        f"pl.Out[...] (written only) or pl.InOut[...] (read and written) to write it",
                        call,
                    )

    _scan(func.body, buffers, visit)


InputsNotWritten = Invariant.per_function(
    "InputsNotWritten",
    "no tensor parameter declared In is written (in place, or as an Out/InOut argument of a call)",
    _check_inputs,
    reads_program=True,
)


class _Paths:
    """The Out parameters written on every path: a walk that joins branches and loop trips."""

    def __init__(self, func: Function, program: Program, report: Reporter) -> None:
        self.outs = [p for p, d in zip(func.params, func.param_directions)
                     if d is ParamDirection.Out and isinstance(p.type, TensorType)]
        self.buffers = _Buffers(func, program)
        self.report = report
        self.func = func
        self.missing: set[Var] = set()
        self.loop_ends: list[list[frozenset[Var]]] = []  # per enclosing loop: written sets at complete trips

    def run(self) -> None:
        end = self.block(self.func.body, frozenset())
        if end is not None:
            self.check(end, self.func.body, "at the end of the function")

    def check(self, written: frozenset[Var], at: Stmt, where: str) -> None:
        for param in self.outs:
            if param not in written and param not in self.missing:
                self.missing.add(param)
                self.report.error(
                    "OUT_NOT_WRITTEN",
                    f"Out parameter '{param.name_hint}' is not written on every path ({where}); write it on "
                    f"every path (an if needs it in both branches) or declare it pl.InOut[...], whose "
                    f"contents the caller provides",
                    at,
                )

    def block(self, stmt: Stmt, written: frozenset[Var]) -> frozenset[Var] | None:
        """What is written after ``stmt``; None when no path falls through it."""
        if isinstance(stmt, SeqStmts):
            state: frozenset[Var] | None = written
            for s in stmt.stmts:
                if state is None:
                    return None
                state = self.block(s, state)
            return state
        if isinstance(stmt, ScopeStmt):
            return self.block(stmt.body, written)
        if isinstance(stmt, IfStmt):
            ends = [self.block(stmt.then_body, written),
                    self.block(stmt.else_body, written) if stmt.else_body is not None else written]
            falling = [e for e in ends if e is not None]
            return frozenset.intersection(*falling) if falling else None
        if isinstance(stmt, (ForStmt, WhileStmt)):
            return self.loop(stmt, written)
        if isinstance(stmt, BreakStmt):
            return None
        if isinstance(stmt, ContinueStmt):
            if self.loop_ends:
                self.loop_ends[-1].append(written)
            return None
        written = written | {p for e in _exprs(stmt) for p, _ in self.buffers.writes(e)}
        if isinstance(stmt, AssignStmt):
            self.buffers.assign(stmt)
        if isinstance(stmt, ReturnStmt):
            self.check(written, stmt, "at this return")
            return None
        return written

    def loop(self, stmt: ForStmt | WhileStmt, written: frozenset[Var]) -> frozenset[Var]:
        self.buffers.carry(stmt)
        if isinstance(stmt, WhileStmt):
            written = written | {p for p, _ in self.buffers.writes(stmt.condition)}
        self.loop_ends.append([])
        end = self.block(stmt.body, written)
        trips = self.loop_ends.pop() + ([end] if end is not None else [])
        if isinstance(stmt, ForStmt) and _no_trips(stmt):
            return written
        return frozenset.intersection(*trips) if trips else written


def _no_trips(loop: ForStmt) -> bool:
    bounds = (loop.start, loop.stop, loop.step)
    if not all(isinstance(b, ConstInt) for b in bounds):
        return False
    start, stop, step = (b.value for b in bounds)  # type: ignore[union-attr]
    return (stop - start) * step <= 0


def _check_outs(func: Function, program: Program, report: Reporter) -> None:
    if not _declared(func) or ParamDirection.Out not in func.param_directions:
        return
    _Paths(func, program, report).run()


OutParamsWritten = Invariant.per_function(
    "OutParamsWritten",
    "every Out tensor parameter is written on every path through its function",
    _check_outs,
    reads_program=True,
)
