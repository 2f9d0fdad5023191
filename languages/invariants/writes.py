"""Write invariants of declared parameter directions (docs/dialects.md#writes).

* ``InputsNotWritten``: a tensor parameter declared ``In`` (no ``pl.Out`` / ``pl.InOut``) is never
  written: not by an op that writes its operand in place (``pl.store``, ``tensor.assemble``,
  ``x[...] = t``, ...), not by passing it as an Out/InOut argument to a program function.
* ``OutParamsWritten``: a function writes each of its ``Out`` tensor parameters on every path to
  its end, where writing is what ``InputsNotWritten`` forbids for inputs. A path takes one branch
  of each ``if`` (an ``if`` without ``else`` writes nothing on its empty branch), the only one when
  constants decide the condition (loop variables of constant-bound loops, scalars assigned once).
  A loop writes what any path through its body writes, unless its trip count is the constant zero:
  how many trips a run makes and which path each takes (``break``, ``continue``, the branches the
  loop variable picks) are run-time matters, and what a run leaves unwritten keeps the caller's
  values (docs/simulator.md#outputs). ``InOut`` parameters need not be written.

A write reaches the parameter through copies (``y = x``), views (``o = x[0:32, :]``, a reshape), in-place
results (``r = pl.store(t, o, x)``), results of calls that return the parameter they were passed, and
loop carries. An InCore
function's tensor ops may write its In parameters: ConvertTensorToTileOps derives Out/InOut for them
(:func:`derived_writes`), so its callers count them as written. Group and Spmd wrappers are
exempt: they forward their parameters, and their directions are derived from the kernels they
call (``CallDirectionsResolved``). So are Inline functions, whose parameters are the caller's
variables: a call counts the parameters the helper writes as written. The ``surface`` dialect guarantees both, so the
directions a user declares are checked when a program enters the pipeline; the directions of
functions that outlining creates are derived from their writes.
"""

from __future__ import annotations

import operator
from collections.abc import Callable

from pypto.analysis import callee
from pypto.analysis.callgraph import through_callee
from pypto.analysis.index import function_index
from pypto.analysis.roots import VIEW_OPS, returned_params
from pypto.ir import op_registry
from pypto.ir.enums import FunctionType, ParamDirection
from pypto.ir.expr import (
    Add,
    And,
    Call,
    ConstBool,
    ConstInt,
    Eq,
    Expr,
    Ge,
    GlobalVar,
    Gt,
    Le,
    Lt,
    Mul,
    Ne,
    Not,
    Op,
    Or,
    Sub,
    Submit,
    TupleGetItemExpr,
    Var,
)
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
from pypto.ir.type_base import ScalarType
from pypto.ir.types import TensorType

from .base import Invariant, Reporter
from .reads import Bodies

_WRAPPERS = (FunctionType.Group, FunctionType.Spmd)
_WRITTEN = (Effect.WRITE, Effect.READ_WRITE)


class _Buffers:
    """Which tensor parameter each variable of a function is (through copies, writes, calls, carries)."""

    def __init__(self, func: Function, program: Program) -> None:
        self.program = program
        self.param: dict[Var, Var] = {p: p for p in func.params if isinstance(p.type, TensorType)}
        self.calls: dict[Var, Call | Submit] = {}
        self.derived: dict[str, set[Var]] = {}

    def of(self, e: Expr) -> Var | None:
        """The parameter whose buffer ``e`` names (a slice or reshape of x is x's buffer), or None."""
        # The exact classes first: isinstance against another IR class is slow (see writes below).
        while type(e) is Call or (type(e) is not Var and isinstance(e, Call)):
            op = e.op
            if (type(op) is not Op and isinstance(op, GlobalVar)) or op.name not in VIEW_OPS or not e.args:
                break
            e = e.args[0]
        return self.param.get(e) if type(e) is Var or isinstance(e, Var) else None

    def writes(self, e: Expr) -> list[tuple[Var, Call | Submit]]:
        """The parameters the calls in ``e`` write, each with the call that writes it."""
        out: list[tuple[Var, Call | Submit]] = []
        stack = [e]
        while stack:
            node = stack.pop()
            kind = type(node)  # the exact class first: isinstance against an IR class is slow
            if kind is Var or (kind is not Call and kind is not Submit and not isinstance(node, (Call, Submit))):
                continue
            stack.extend(node.args)
            for position in self._written_positions(node):
                param = self.of(node.args[position])
                if param is not None:
                    out.append((param, node))
        return out

    def _written_positions(self, call: Call | Submit) -> list[int]:
        """The argument positions ``call`` writes (callers must not change the list)."""
        if type(call.op) is not Op and isinstance(call.op, GlobalVar):
            target = callee(self.program, call)
            if target is None:
                return []
            derived = self.derived.get(target.name)
            if derived is None:
                derived = self.derived[target.name] = through_callee(
                    target, lambda: derived_writes(target, self.program), set())
            return [i for i, (p, d) in enumerate(zip(target.params, target.param_directions))
                    if (d is not ParamDirection.In or p in derived) and i < len(call.args)]
        written = _op_written(call.op.name)
        if not written:  # most ops write no operand: no list per call
            return written
        count = len(call.args)
        return [i for i in written if i < count]

    def assign(self, s: AssignStmt) -> None:
        """Record the parameter ``s.var`` names after ``s``, if any."""
        value = s.value
        kind = type(value)  # the exact classes first, as in writes
        found: Var | None = None
        if kind is Var or (kind is not Call and isinstance(value, Var)):
            found = self.of(value)
        elif kind is Call or isinstance(value, (Call, Submit)):
            if type(value.op) is not Op and isinstance(value.op, GlobalVar):
                self.calls[s.var] = value
                found = self._returned(value, 0)
            elif value.op.name in VIEW_OPS:
                found = self.of(value)
            else:
                written = self._written_positions(value)
                found = self.of(value.args[written[0]]) if written else None
        elif isinstance(value, TupleGetItemExpr) and isinstance(value.tuple, Var) and value.tuple in self.calls:
            found = self._returned(self.calls[value.tuple], value.index)
        if found is not None:
            self.param[s.var] = found
        else:
            self.param.pop(s.var, None)  # re-assigned (even a parameter's own name): a new buffer

    def _returned(self, call: Call | Submit, position: int) -> Var | None:
        """The parameter the ``position``-th result of a function call is: the argument of the callee
        parameter it returns, else (a returned value derived from a written parameter) the argument of
        the ``position``-th written parameter, as kernel results are ordered (docs/passes.md)."""
        target = callee(self.program, call)
        if target is None:
            return None
        returned = returned_params(target)
        if position < len(returned) and returned[position] is not None:
            return self.of(call.args[returned[position]])  # type: ignore[index]
        written = self._written_positions(call)
        return self.of(call.args[written[position]]) if position < len(written) else None

    def carry(self, loop: ForStmt | WhileStmt) -> None:
        for it, rv in zip(loop.iter_args, loop.return_vars):
            param = self.of(it.initValue)
            if param is not None:
                self.param[it] = self.param[rv] = param


# Per op name: its registry entry and the positions of the parameters it writes.
_OP_WRITES: dict[str, tuple[object, list[int]]] = {}


def _op_written(name: str) -> list[int]:
    """The positions of the parameters op ``name`` writes (callers must not change the list)."""
    entry = op_registry.lookup(name)
    hit = _OP_WRITES.get(name)
    if hit is None or hit[0] is not entry:  # a new op name, or one registered since it was looked up
        written = [i for i, param in enumerate(entry.params) if param.effect in _WRITTEN] if entry else []
        hit = _OP_WRITES[name] = (entry, written)
    return hit[1]


_VAR = operator.attrgetter("var")


def _direct_writes(func: Function) -> list[tuple[Var, Call]] | None:
    """Each operand an op call of ``func`` writes, with the call, when every one is a variable that no
    statement assigns and no loop carries, and ``func`` calls no program function and submits no task;
    else None. Each such operand then names one buffer all through ``func``: the parameter it is, or
    none. Read from the node index (every call, wherever it is), so most kernels are not scanned."""
    index = function_index(func)
    if index.has(GlobalVar, Submit):
        return None
    found: list[tuple[Var, Call]] = []
    for name in index.op_names:
        written = _op_written(name)
        for call in index.calls_to(name) if written else ():
            args = call.args
            for i in written:
                if i < len(args):
                    if not isinstance(args[i], Var):
                        return None
                    found.append((args[i], call))
    if found:
        bound = set(map(_VAR, index.of(AssignStmt)))
        for loop in index.of(ForStmt, WhileStmt):
            bound.update(loop.iter_args)
            bound.update(loop.return_vars)
        if any(var in bound for var, _ in found):
            return None
    return found


def derived_writes(func: Function, program: Program) -> set[Var]:
    """The In parameters a function writes without it being an error: those of an InCore function its
    tensor ops write (ConvertTensorToTileOps makes them Out/InOut, docs/passes.md), and every one an
    Inline function writes (its parameters are the caller's variables: directions mean nothing there)."""
    inline = func.func_type is FunctionType.Inline
    if not inline and (func.func_type is not FunctionType.InCore or not _declared(func) or _no_tensor_writes(func)):
        return set()
    inputs = {p for p, d in zip(func.params, func.param_directions) if d is ParamDirection.In}
    found: set[Var] = set()
    buffers = _Buffers(func, program)

    def visit(stmt: Stmt) -> None:
        found.update(p for e in _exprs(stmt) for p, call in buffers.writes(e)
                     if p in inputs and (inline or _tensor_op(call)))

    _scan(func.body, buffers, visit)
    return found


def _no_tensor_writes(func: Function) -> bool:
    """True when no call in ``func`` is of a tensor op that writes an operand (then an InCore function
    derives no write), told from the op names alone: most kernels are not scanned."""
    index = function_index(func)
    if index.has(Submit):
        return False
    for name in index.op_names:
        if name.startswith("tensor."):
            entry = op_registry.lookup(name)
            if entry is None or entry.written_params():
                return False
    return True


def _tensor_op(call: Call | Submit) -> bool:
    return not isinstance(call.op, GlobalVar) and call.op.name.startswith("tensor.")


def _scan(stmt: Stmt, buffers: _Buffers, visit: Callable[[Stmt], None]) -> None:
    """Every simple statement under ``stmt`` in program order, with the buffer map kept up to date."""
    if type(stmt) is AssignStmt:  # the common case first: isinstance against an IR class is slow
        visit(stmt)
        buffers.assign(stmt)
    elif isinstance(stmt, SeqStmts):
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
            visit(stmt)  # its condition
        _scan(stmt.body, buffers, visit)
    else:
        visit(stmt)
        if isinstance(stmt, AssignStmt):
            buffers.assign(stmt)


def _exprs(stmt: Stmt) -> list[Expr]:
    if type(stmt) is AssignStmt or isinstance(stmt, AssignStmt):
        return [stmt.value]
    if isinstance(stmt, EvalStmt):
        return [stmt.expr]
    if isinstance(stmt, ReturnStmt):
        return list(stmt.value)
    if isinstance(stmt, WhileStmt):
        return [stmt.condition]
    return []


def _declared(func: Function) -> bool:
    return func.func_type not in _WRAPPERS and not func.requires_runtime_binding


def _checked(func: Function) -> bool:
    """Directions a user declared and this module checks: not those of wrappers or inline helpers."""
    return _declared(func) and func.func_type is not FunctionType.Inline


def _check_inputs(func: Function, program: Program, report: Reporter) -> None:
    if not _checked(func):
        return
    inputs = {p for p, d in zip(func.params, func.param_directions) if d is ParamDirection.In}
    if not any(isinstance(p.type, TensorType) for p in inputs):
        return
    direct = _direct_writes(func)
    if direct is not None and not any(var in inputs for var, _ in direct):
        return  # no call writes an input (the scan below would find the writes _direct_writes lists)
    buffers = _Buffers(func, program)
    writes: list[tuple[Var, Call | Submit]] = []

    def visit(stmt: Stmt) -> None:
        writes.extend((param, call) for e in _exprs(stmt) for param, call in buffers.writes(e) if param in inputs)

    _scan(func.body, buffers, visit)
    # derived_writes(func) from the same scan: the inputs an InCore function's tensor ops write are fine.
    derived = func.func_type is FunctionType.InCore
    reported = {param for param, call in writes if _tensor_op(call)} if derived else set()
    for param, call in writes:
        if param not in reported:
            reported.add(param)
            how = (f"passed as an Out/InOut argument to '{call.op.name}'" if isinstance(call.op, GlobalVar)
                   else f"written by {call.op.name}")
            report.error(
                "WRITE_TO_INPUT",
                f"input parameter '{param.name_hint}' is {how}; declare it "
                f"pl.Out[...] (written only) or pl.InOut[...] (read and written) to write it",
                call,
            )


InputsNotWritten = Invariant.per_function(
    "InputsNotWritten",
    "no tensor parameter declared In is written (in place, or as an Out/InOut argument of a call)",
    _check_inputs,
    reads_bodies=Bodies(callees=True),  # the writes and returns of its callees, through theirs
)


def _computes(value: Expr) -> bool:
    """A call of an op that writes none of its arguments: its result is a new value."""
    if not isinstance(value, Call) or isinstance(value.op, GlobalVar):
        return False
    entry = op_registry.lookup(value.op.name)
    return entry is not None and not entry.written_params()


class _Paths:
    """The Out parameters written on every path: a walk that joins branches and loop trips."""

    def __init__(self, func: Function, program: Program, report: Reporter) -> None:
        self.outs = [p for p, d in zip(func.params, func.param_directions)
                     if d is ParamDirection.Out and isinstance(p.type, TensorType)]
        self.buffers = _Buffers(func, program)
        self.report = report
        self.func = func
        self.missing: set[Var] = set()
        self.known = _Known(func)

    def run(self) -> None:
        end = self.block(self.func.body, frozenset())
        if end is not None:
            self.check(end, self.func.body, "at the end of the function")

    def check(self, written: frozenset[Var], at: Stmt, where: str) -> None:
        for param in self.outs:
            if param not in written and param not in self.missing:
                self.missing.add(param)
                rebound = any(s.var.name_hint == param.name_hint and _computes(s.value)
                              for s in function_index(self.func).of(AssignStmt))
                hint = (f"; '{param.name_hint} = ...' binds the name to a new value and leaves the parameter "
                        f"unwritten: write into it with {param.name_hint}[...] = value or "
                        f"pl.store(tile, offsets, {param.name_hint})") if rebound else ""
                self.report.error(
                    "OUT_NOT_WRITTEN",
                    f"Out parameter '{param.name_hint}' is not written on every path ({where}); write it on "
                    f"every path (an if needs it in both branches) or declare it pl.InOut[...], whose "
                    f"contents the caller provides{hint}",
                    at,
                )

    def block(self, stmt: Stmt, written: frozenset[Var]) -> frozenset[Var] | None:
        """What is written after ``stmt``; None when no path falls through it."""
        if type(stmt) is not AssignStmt:  # the common case skips the tests (isinstance against IR classes is slow)
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
                taken = self.known.truth(stmt.condition)
                then = self.block(stmt.then_body, written) if taken is not False else None
                other = None if taken is True else (self.block(stmt.else_body, written) if stmt.else_body else written)
                falling = [e for e in (then, other) if e is not None]
                return frozenset.intersection(*falling) if falling else None
            if isinstance(stmt, (ForStmt, WhileStmt)):
                return self.loop(stmt, written)
            if isinstance(stmt, (BreakStmt, ContinueStmt)):
                return None
        written = written | {p for e in _exprs(stmt) for p, _ in self.buffers.writes(e)}
        if type(stmt) is AssignStmt or isinstance(stmt, AssignStmt):
            self.buffers.assign(stmt)
            self.known.assign(stmt)
        elif isinstance(stmt, ReturnStmt):
            self.check(written, stmt, "at this return")
            return None
        return written

    def loop(self, stmt: ForStmt | WhileStmt, written: frozenset[Var]) -> frozenset[Var]:
        """A loop writes what its body may write: which path each trip takes is a run-time matter."""
        self.buffers.carry(stmt)
        if isinstance(stmt, ForStmt):
            self.known.loop(stmt)
        self.block(stmt.body, written)  # for the returns inside
        if isinstance(stmt, ForStmt) and _no_trips(stmt):
            return written
        may: set[Var] = set()
        _scan(stmt, self.buffers, lambda s: may.update(p for e in _exprs(s) for p, _ in self.buffers.writes(e)))
        return written | may


class _Known:
    """Integer ranges of a function's scalars where constants fix them, to decide constant conditions:
    loop variables of loops with constant bounds, and scalars assigned once from known values."""

    def __init__(self, func: Function) -> None:
        counts: dict[Var, int] = {}
        for s in _assignments(func.body):
            counts[s.var] = counts.get(s.var, 0) + 1
        self.once = {v for v, n in counts.items() if n == 1}
        self.ranges: dict[Var, tuple[int, int]] = {}

    def assign(self, s: AssignStmt) -> None:
        if s.var in self.once and isinstance(s.var.type, ScalarType):
            found = self.range(s.value)
            if found is not None:
                self.ranges[s.var] = found

    def loop(self, s: ForStmt) -> None:
        bounds = [self.range(b) for b in (s.start, s.stop, s.step)]
        if any(b is None or b[0] != b[1] for b in bounds):
            return
        start, stop, step = (b[0] for b in bounds)  # type: ignore[index]
        trips = -(-(stop - start) // step) if step > 0 else 0
        if trips > 0:
            self.ranges[s.loop_var] = (start, start + (trips - 1) * step)

    def range(self, e: Expr) -> tuple[int, int] | None:
        """``e``'s smallest and largest value, when known."""
        if isinstance(e, (ConstInt, ConstBool)):
            return int(e.value), int(e.value)
        if isinstance(e, Var):
            return self.ranges.get(e)
        if isinstance(e, (Add, Sub, Mul)):
            a, b = self.range(e.left), self.range(e.right)
            if a is None or b is None:
                return None
            if isinstance(e, Add):
                return a[0] + b[0], a[1] + b[1]
            if isinstance(e, Sub):
                return a[0] - b[1], a[1] - b[0]
            corners = [x * y for x in a for y in b]
            return min(corners), max(corners)
        truth = self.truth(e)
        return None if truth is None else (int(truth), int(truth))

    def truth(self, e: Expr) -> bool | None:
        """Whether condition ``e`` always holds (True), never holds (False), or may go either way."""
        if isinstance(e, ConstBool):
            return e.value
        if isinstance(e, Not):
            inner = self.truth(e.operand)
            return None if inner is None else not inner
        if isinstance(e, (And, Or)):
            a, b = self.truth(e.left), self.truth(e.right)
            if isinstance(e, And):
                return False if False in (a, b) else (True if a and b else None)
            return True if True in (a, b) else (False if a is False and b is False else None)
        if not isinstance(e, (Lt, Le, Gt, Ge, Eq, Ne)):
            return None
        a, b = self.range(e.left), self.range(e.right)
        if a is None or b is None:
            return None
        (lo, hi), (lo2, hi2) = a, b
        always, never = {
            Lt: (hi < lo2, lo >= hi2),
            Le: (hi <= lo2, lo > hi2),
            Gt: (lo > hi2, hi <= lo2),
            Ge: (lo >= hi2, hi < lo2),
            Eq: (lo == hi == lo2 == hi2, hi < lo2 or lo > hi2),
            Ne: (hi < lo2 or lo > hi2, lo == hi == lo2 == hi2),
        }[type(e)]
        return True if always else (False if never else None)


def _assignments(stmt: Stmt) -> list[AssignStmt]:
    out: list[AssignStmt] = []
    stack = [stmt]
    while stack:
        s = stack.pop()
        if isinstance(s, AssignStmt):
            out.append(s)
        elif isinstance(s, SeqStmts):
            stack.extend(s.stmts)
        elif isinstance(s, IfStmt):
            stack.extend(b for b in (s.then_body, s.else_body) if b is not None)
        elif isinstance(s, (ForStmt, WhileStmt, ScopeStmt)):
            stack.append(s.body)
    return out


def _no_trips(loop: ForStmt) -> bool:
    bounds = (loop.start, loop.stop, loop.step)
    if not all(isinstance(b, ConstInt) for b in bounds):
        return False
    start, stop, step = (b.value for b in bounds)  # type: ignore[union-attr]
    return (stop - start) * step <= 0


def _outs_written_first(func: Function) -> bool:
    """True when each Out tensor parameter of ``func`` is written by a statement of its body's top
    block, which returns at its last statement only (or nowhere): then every path to a return or the
    end passes through that write. Read from :func:`_direct_writes` (no path walk)."""
    body = func.body
    direct = _direct_writes(func) if type(body) is SeqStmts else None
    if not direct:
        return False
    returns = function_index(func).of(ReturnStmt)
    if len(returns) > 1 or (returns and returns[0] is not body.stmts[-1]):
        return False
    outs = {p for p, d in zip(func.params, func.param_directions)
            if d is ParamDirection.Out and isinstance(p.type, TensorType)}
    by_call: dict[int, list[Var]] = {}
    for var, call in direct:
        by_call.setdefault(id(call), []).append(var)
    # The calls that are a top statement's whole value (_Paths.block counts their writes), from the
    # end: a kernel stores its outputs last.
    for s in reversed(body.stmts):
        kind = type(s)
        written = by_call.get(id(s.value) if kind is AssignStmt else id(s.expr) if kind is EvalStmt else None)
        if written:
            outs.difference_update(written)
            if not outs:
                return True
    return not outs


def _check_outs(func: Function, program: Program, report: Reporter) -> None:
    if not _checked(func) or ParamDirection.Out not in func.param_directions or _outs_written_first(func):
        return
    _Paths(func, program, report).run()


OutParamsWritten = Invariant.per_function(
    "OutParamsWritten",
    "every Out tensor parameter is written on every path through its function",
    _check_outs,
    reads_bodies=Bodies(callees=True),  # the writes and returns of its callees, through theirs
)
