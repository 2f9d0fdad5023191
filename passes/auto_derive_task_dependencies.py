"""AutoDeriveTaskDependencies: explicit task edges in place of the runtime's automatic tracking
(docs/passes.md#autoderivetaskdependencies)."""

from __future__ import annotations

from dataclasses import dataclass, field

from pypto.languages.invariants import CallDirectionsResolved, SplitIncoreOrch
from pypto.languages.memref import memref

from pypto.analysis.loops import const_trip_count
from pypto.analysis.roots import VIEW_OPS
from pypto.analysis.task_access import TaskAccess
from pypto.ir.datatype import DataType
from pypto.ir.enums import ArgDirection, ForKind, FunctionType
from pypto.ir.expr import Call, GlobalVar, IterArg, Submit, TupleGetItemExpr, Var
from pypto.ir.function import Function
from pypto.ir.node import replace
from pypto.ir.op_registry import create_op_call
from pypto.ir.span import Span
from pypto.ir.stmt import AssignStmt, EvalStmt, ForStmt, ReturnStmt, RuntimeScopeStmt, Stmt, YieldStmt
from pypto.ir.transforms import flatten_to_stmts
from pypto.ir.type_base import ScalarType, TupleType, Type
from pypto.ir.types import TensorType
from pypto.transform.rewrite import RewritePass
from pypto.transform.util import block_of

# The name of the manual scope the pass owns.
SCOPE_NAME = "auto_derived_deps"
_TASK_ID = ScalarType(DataType.TASK_ID)


class AutoDeriveTaskDependencies(RewritePass):
    """With ``enabled`` (the compile option ``analyze_auto_scopes_for_deps``), derive every
    dependency of an Orchestration function's automatic region at compile time: the body becomes a
    compiler-owned manual scope (``name_hint="auto_derived_deps"``) whose tasks wait for exactly the
    TaskIds of the earlier tasks they conflict with.

    A conflict is a read after write, write after write or write after read of one buffer (the root
    of a tensor through call results and ``tensor.slice``/``reshape``/``view``/``transpose`` views,
    taken whole). Each task gets the TaskIds of the tasks it waits for in
    ``attrs["compiler_manual_dep_edges"]``; a plain kernel call whose TaskId is needed becomes a
    ``pl.submit``. Every conflict being an explicit edge, ``input`` arguments become ``no_dep`` and
    ``inout`` ones ``output_existing``::

        before:  tmp = pl.tensor.create([64, 64], dtype=pl.FP32)
                 tmp = twice(x, tmp)          # arg_directions [input, output_existing]
                 y = half_plus_one(tmp, y)    # arg_directions [input, output_existing]
                 return y
        after:   with pl.scope(mode=pl.ScopeMode.MANUAL, name_hint="auto_derived_deps"):
                     tmp = pl.tensor.create([64, 64], dtype=pl.FP32)
                     s = pl.submit(twice, x, tmp)              # arg_directions [no_dep, output_existing]
                     tmp = s[0]
                     twice_tid = s[1]
                     y = half_plus_one(tmp, y)                 # arg_directions [no_dep, output_existing],
                                                               # compiler_manual_dep_edges [twice_tid]
                 return y

    A task in a ``pl.range`` loop with a constant trip count may wait for a task of the trip before
    (or, after the loop, of the last trip): that task's TaskId is carried through the loop, seeded
    with ``pl.system.task_invalid()`` (no edge on the first trip)::

        before:  for i, (acc_it,) in pl.range(3, init_values=(acc,)):
                     acc_2 = shift(acc_it, acc_it)                    # [input, inout]
                     acc_rv = pl.yield_(acc_2)
        after:   for i, (acc_it, shift_tid_it) in pl.range(3, init_values=(acc, pl.system.task_invalid())):
                     s = pl.submit(shift, acc_it, acc_it)             # [no_dep, output_existing],
                     acc_2 = s[0]                                     # compiler_manual_dep_edges
                     shift_tid = s[1]                                 #   [scale_tid, shift_tid_it]
                     acc_rv, shift_tid_rv = pl.yield_(acc_2, shift_tid)

    Only a region whose tasks and buffers are known statically is rewritten: a body of kernel
    calls, submits without a predicate, ``tensor.create`` and views, scalar values and such loops
    (whose bodies hold no loop, ``if`` or scope), of a function with ``auto_scope``. Anything else
    (a ``while``, a parallel or computed-trip loop, an ``if``, a user scope, a TaskId array, a
    dependency-only task, another tensor op, or a buffer written after several trips of a loop
    read it) keeps the runtime's automatic tracking and gets no edge at all. User manual scopes
    are never touched. Off (the default), the pass changes nothing.
    """

    source = memref
    requires = frozenset({SplitIncoreOrch, CallDirectionsResolved})
    produces = frozenset({CallDirectionsResolved})

    enabled: bool = False

    def applies(self, func: Function) -> bool:
        return self.enabled and func.func_type is FunctionType.Orchestration and func.attrs.get("auto_scope", True)

    def function(self, func: Function) -> Function:
        stmts = flatten_to_stmts(func.body)
        tail = [stmts.pop()] if stmts and isinstance(stmts[-1], ReturnStmt) else []
        tasks = _Analysis(TaskAccess(func, self.program)).run(stmts)
        if not tasks:
            return func
        self.tasks = tasks
        self.ids: dict[int, Var] = {}  # site -> the TaskId of its latest instance in the statement being built
        self.after: dict[int, Var] = {}  # a carried loop site -> the loop's result: its last trip's TaskId
        out: list[Stmt] = []
        for stmt in stmts:
            out += self._loop(stmt) if isinstance(stmt, ForStmt) else self._stmt(stmt)
        body = self.block(out)
        scope = RuntimeScopeStmt(manual=True, name_hint=SCOPE_NAME, body=block_of(body, func.body.span),
                                 span=func.body.span)
        return replace(func, body=block_of([scope, *tail], func.body.span))

    def _loop(self, loop: ForStmt) -> list[Stmt]:
        """``loop`` with its tasks rewritten and the TaskIds of later trips or statements carried."""
        body = flatten_to_stmts(loop.body)
        sites = [self.tasks[id(s)].site for s in body if id(s) in self.tasks]
        carry = sorted({p for t in self.tasks.values() for p in t.preds if p in sites
                        and (t.loop is not loop or t.site <= p)})
        span = loop.span
        iter_args, results = list(loop.iter_args), list(loop.return_vars)
        for site in carry:
            kernel = next(t.call.op.name for t in self.tasks.values() if t.site == site)
            init = create_op_call("system.task_invalid", [], span)
            it = IterArg(self._fresh(f"{kernel}_tid_iter"), _TASK_ID, init, span)
            rv = Var(self._fresh(f"{kernel}_tid_rv"), _TASK_ID, span)
            self.after[site] = rv
            self.ids[site] = it
            iter_args.append(it)
            results.append(rv)
        out: list[Stmt] = []
        for stmt in _work(body):
            out += self._stmt(stmt)
        tail = body[-1] if body and isinstance(body[-1], YieldStmt) else None
        yielded = [*(tail.value if tail is not None else []), *(self.ids[site] for site in carry)]
        if yielded:
            out.append(YieldStmt(yielded, tail.span if tail is not None else span))
        for site in carry:
            self.ids[site] = self.after[site]
        return [replace(loop, iter_args=iter_args, return_vars=results, body=block_of(out, loop.body.span))]

    def _stmt(self, stmt: Stmt) -> list[Stmt]:
        task = self.tasks.get(id(stmt))
        if task is None:
            return [stmt]
        edges = [self.ids[p] for p in sorted(task.preds)]
        needed = any(task.site in t.preds for t in self.tasks.values())
        return self._task(stmt, task, edges, needed)

    def _task(self, stmt: Stmt, task: _Task, edges: list[Var], needed: bool) -> list[Stmt]:
        """The statements of one task: its directions demoted and its edges added; a plain call with
        edges, or whose TaskId a later task waits for (``needed``), becomes a submit."""
        call = task.call
        directions = list(call.attrs.get("arg_directions") or [])
        demoted = [ArgDirection.NoDep if d is ArgDirection.Input else
                   ArgDirection.OutputExisting if d is ArgDirection.InOut else d for d in directions]
        attrs = {**call.attrs, "arg_directions": demoted}
        if edges:
            attrs["compiler_manual_dep_edges"] = edges
        span = stmt.span
        old = stmt.var if isinstance(stmt, AssignStmt) else None
        if isinstance(call, Call) and not edges and not needed:
            return [replace(stmt, value=replace(call, attrs=attrs)) if old is not None
                    else replace(stmt, expr=replace(call, attrs=attrs))]
        if isinstance(call, Submit):
            call = replace(call, attrs=attrs)
        else:
            results = _results(call.type)
            kind = TupleType([*results, _TASK_ID]) if results else _TASK_ID
            call = Submit(call.op, list(call.args), [], dict(call.kwargs), attrs, kind, call.span)
        if not isinstance(call.type, TupleType):  # a task without results: the submit is its TaskId
            tid = old if isinstance(task.call, Submit) and old is not None else self._tid(call, span)
            self.ids[task.site] = tid
            return [AssignStmt(tid, call, span)]
        if isinstance(task.call, Submit) and old is not None:
            tup, made = old, [replace(stmt, value=call)]
        elif old is not None and isinstance(old.type, TupleType):
            tup = Var(self._fresh(old.name_hint), call.type, old.span)
            self.bind(old, tup)  # old[i] is the same result of the longer tuple
            made = [AssignStmt(tup, call, span)]
        else:
            tup = Var(self._fresh("_submit_tmp"), call.type, span)
            made = [AssignStmt(tup, call, span)]
            if old is not None:
                made.append(AssignStmt(old, TupleGetItemExpr(tup, 0, span), span))
        if needed:
            tid = self._tid(call, span)
            self.ids[task.site] = tid
            made.append(AssignStmt(tid, TupleGetItemExpr(tup, len(call.type.types) - 1, span), span))
        return made

    def _tid(self, call: Call | Submit, span: Span) -> Var:
        """A fresh TaskId variable named after the task's kernel."""
        return Var(self._fresh(f"{call.op.name}_tid"), _TASK_ID, span)

    def _fresh(self, base: str) -> str:
        return self.names.name(base, lambda i: f"{base}_{i}")


def _results(kind: Type | None) -> list[Type]:
    """The result types of a kernel call of type ``kind``."""
    if kind is None:
        return []
    return list(kind.types) if isinstance(kind, TupleType) else [kind]


def _work(body: list[Stmt]) -> list[Stmt]:
    """A loop body's statements without its trailing yield."""
    return body[:-1] if body and isinstance(body[-1], YieldStmt) else body


@dataclass
class _Task:
    """One task site of the region (numbered in program order), its loop, and the sites it waits for."""

    site: int
    call: Call | Submit
    loop: ForStmt | None
    preds: set[int] = field(default_factory=set)


@dataclass(frozen=True)
class _State:
    """Per buffer: the sites that may have written it last, and those that may have read it since."""

    writers: dict[Var, frozenset[int]]
    readers: dict[Var, frozenset[int]]

    def join(self, other: _State) -> _State:
        return _State(_union(self.writers, other.writers), _union(self.readers, other.readers))


def _union(a: dict[Var, frozenset[int]], b: dict[Var, frozenset[int]]) -> dict[Var, frozenset[int]]:
    out = dict(a)
    for key, sites in b.items():
        out[key] = out.get(key, frozenset()) | sites
    return out


class _Decline(Exception):
    """The region is not statically expressible."""


class _Analysis:
    """The conflicts between the task sites of a region, or None when it cannot be followed."""

    def __init__(self, access: TaskAccess) -> None:
        self.access = access
        self.tasks: dict[int, _Task] = {}  # id(statement) -> its task
        self.site_of: dict[int, _Task] = {}
        self.loop: ForStmt | None = None
        self.several: dict[Var, frozenset[int]] = {}  # buffer -> loop sites that read it on several trips

    def run(self, stmts: list[Stmt]) -> dict[int, _Task] | None:
        state = _State({}, {})
        try:
            for stmt in stmts:
                state = self.loop_stmt(stmt, state) if isinstance(stmt, ForStmt) else self.stmt(stmt, state)
        except _Decline:
            return None
        return self.tasks

    def loop_stmt(self, loop: ForStmt, state: _State) -> _State:
        trips = const_trip_count(loop)
        body = flatten_to_stmts(loop.body)
        if loop.kind is not ForKind.Sequential or not trips:
            raise _Decline
        # a carry that swaps buffers (t = u; u = v; v = t) names another buffer on each trip; the flow
        # below takes a carry as one buffer
        if any(len(self.access.buffers(it)) > 1 for it in loop.iter_args):
            raise _Decline
        body = _work(body)
        self.loop = loop
        head = state
        while True:
            end = head
            for stmt in body:
                end = self.stmt(stmt, end)
            new = head.join(end) if trips > 1 else head
            if new == head:
                break
            head = new
        self.loop = None
        if trips > 1:  # a buffer the loop reads and never writes was read by each trip's instance
            sites = {t.site for t in self.tasks.values() if t.loop is loop}
            for root, readers in end.readers.items():
                if readers & sites and not (end.writers.get(root, frozenset()) & sites):
                    self.several[root] = self.several.get(root, frozenset()) | (readers & sites)
        return end

    def stmt(self, stmt: Stmt, state: _State) -> _State:
        value = stmt.value if isinstance(stmt, AssignStmt) else stmt.expr if isinstance(stmt, EvalStmt) else None
        if not isinstance(value, (Call, Submit)):
            if not isinstance(stmt, AssignStmt):
                raise _Decline
            if isinstance(value, (Var, TupleGetItemExpr)) or not isinstance(value.type, (TensorType, TupleType)):
                return state  # a copy or a call's result (Roots follows both), or a scalar value
            raise _Decline
        if not isinstance(value.op, GlobalVar):
            name = value.op.name
            # creations and views: the task access analysis follows them
            if isinstance(stmt, AssignStmt) and (name == "tensor.create"
                                                 or name in VIEW_OPS and isinstance(value.args[0], Var)):
                return state
            if any(isinstance(a.type, TensorType) for a in value.args) or isinstance(value.type, TensorType):
                raise _Decline
            return state
        if isinstance(value, Submit) and value.predicate is not None:
            raise _Decline
        task = self.tasks.get(id(stmt))
        if task is None:
            task = self.tasks[id(stmt)] = _Task(len(self.tasks), value, self.loop)
        touched = [(a.buffer, a.reads, a.writes) for a in self.access.accesses(value)]
        writers, readers = dict(state.writers), dict(state.readers)
        for root, reads, writes in touched:
            if reads or writes:
                task.preds |= writers.get(root, frozenset())
            if writes:
                if readers.get(root, frozenset()) & self.several.get(root, frozenset()):
                    raise _Decline  # one TaskId cannot name every trip's reader
                task.preds |= readers.get(root, frozenset())
        for root, reads, writes in touched:
            if writes:
                writers[root] = frozenset({task.site})
                readers[root] = frozenset()
                self.several.pop(root, None)
            elif reads:
                readers[root] = readers.get(root, frozenset()) | {task.site}
        if task.loop is None:
            task.preds.discard(task.site)
        return _State(writers, readers)
