"""AutoDeriveTaskDependencies: explicit task edges in place of the runtime's automatic tracking
(docs/passes.md#autoderivetaskdependencies)."""

from __future__ import annotations

from dataclasses import dataclass, field

from pypto.languages.invariants import CallDirectionsResolved, SplitIncoreOrch
from pypto.languages.memref import memref

from pypto.analysis.roots import Roots
from pypto.ir.datatype import DataType
from pypto.ir.enums import ArgDirection, FunctionType
from pypto.ir.expr import Call, GlobalVar, Submit, TupleGetItemExpr, Var
from pypto.ir.function import Function
from pypto.ir.node import replace
from pypto.ir.span import Span
from pypto.ir.stmt import AssignStmt, EvalStmt, ReturnStmt, RuntimeScopeStmt, Stmt
from pypto.ir.transforms import flatten_to_stmts
from pypto.ir.type_base import ScalarType, TupleType, Type
from pypto.ir.types import TensorType
from pypto.transform.rewrite import RewritePass
from pypto.transform.util import block_of

_READS = (ArgDirection.Input, ArgDirection.InOut)
_WRITES = (ArgDirection.InOut, ArgDirection.OutputExisting, ArgDirection.Output)
# Orchestration ops whose tensor result is a view of their first argument (the same buffer).
_VIEWS = frozenset({"tensor.slice", "tensor.reshape", "tensor.view", "tensor.transpose"})
# The name of the manual scope the pass owns.
SCOPE_NAME = "auto_derived_deps"
_TASK_ID = ScalarType(DataType.TASK_ID)


@dataclass
class _Task:
    """One task of the region: its statement's index, and the earlier tasks it must wait for."""

    index: int
    call: Call | Submit
    preds: list[int] = field(default_factory=list)


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

    Only a region whose tasks and buffers are known statically is rewritten: a straight-line body
    (kernel calls, submits without a predicate, ``tensor.create`` and views, scalar values) of a
    function with ``auto_scope``. A body with a loop, an ``if``, a user scope, a TaskId array, a
    dependency-only task or another tensor op keeps the runtime's automatic tracking and gets no
    edge at all. User manual scopes are never touched. Off (the default), the pass changes nothing.
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
        tasks = self._tasks(stmts)
        if tasks is None or not tasks:
            return func
        needed = {p for t in tasks for p in t.preds}
        ids: dict[int, Var] = {}  # statement index -> the TaskId variable of its task
        out: list[Stmt] = []
        by_index = {t.index: t for t in tasks}
        for k, stmt in enumerate(stmts):
            task = by_index.get(k)
            if task is None:
                out.append(stmt)
                continue
            edges = [ids[p] for p in task.preds]
            out += self._task(stmt, task, edges, ids if k in needed else None)
        body = self.block(out)
        scope = RuntimeScopeStmt(manual=True, name_hint=SCOPE_NAME, body=block_of(body, func.body.span),
                                 span=func.body.span)
        return replace(func, body=block_of([scope, *tail], func.body.span))

    def _tasks(self, stmts: list[Stmt]) -> list[_Task] | None:
        """The tasks of a straight-line region with the earlier tasks each conflicts with, or None
        when the region is not statically expressible."""
        roots = Roots(self.func, self.program)
        views: dict[Var, Var] = {}
        untracked: set[Var] = set()  # manual_dep=True tensors: ordered by their user

        def buffer(var: Var) -> Var:
            var = roots.root(var)
            while var in views:
                var = roots.root(views[var])
            return var

        writers: dict[Var, int] = {}
        readers: dict[Var, set[int]] = {}
        tasks: list[_Task] = []
        for k, stmt in enumerate(stmts):
            value = stmt.value if isinstance(stmt, AssignStmt) else stmt.expr if isinstance(stmt, EvalStmt) else None
            if not isinstance(value, (Call, Submit)):
                if not isinstance(stmt, AssignStmt):
                    return None
                if isinstance(value, (Var, TupleGetItemExpr)) or not isinstance(value.type, (TensorType, TupleType)):
                    continue  # a copy or a call's result (Roots follows both), or a scalar value
                return None
            if not isinstance(value.op, GlobalVar):
                name = value.op.name
                if name == "tensor.create" and isinstance(stmt, AssignStmt):
                    if value.kwargs.get("manual_dep"):
                        untracked.add(stmt.var)
                elif name in _VIEWS and isinstance(stmt, AssignStmt) and isinstance(value.args[0], Var):
                    views[stmt.var] = value.args[0]
                elif any(isinstance(a.type, TensorType) for a in value.args) or isinstance(value.type, TensorType):
                    return None
                continue
            if isinstance(value, Submit) and value.predicate is not None:
                return None
            task = _Task(k, value)
            touched: list[tuple[Var, bool, bool]] = []
            for arg, direction in zip(value.args, value.arg_directions if isinstance(value, Submit)
                                      else list(value.attrs.get("arg_directions") or [])):
                if not isinstance(arg, Var) or not isinstance(arg.type, TensorType):
                    continue
                root = buffer(arg)
                if root in untracked or direction is ArgDirection.NoDep:
                    continue
                touched.append((root, direction in _READS, direction in _WRITES))
            preds: set[int] = set()
            for root, reads, writes in touched:
                if (reads or writes) and root in writers:
                    preds.add(writers[root])
                if writes:
                    preds |= readers.get(root, set())
            for root, reads, writes in touched:
                if writes:
                    writers[root] = k
                    readers[root] = set()
                elif reads:
                    readers.setdefault(root, set()).add(k)
            preds.discard(k)
            task.preds = sorted(preds)
            tasks.append(task)
        return tasks

    def _task(self, stmt: Stmt, task: _Task, edges: list[Var], ids: dict[int, Var] | None) -> list[Stmt]:
        """The statements of one task: its directions demoted and its edges added; a plain call with
        edges, or whose TaskId a later task waits for (``ids`` given), becomes a submit."""
        call = task.call
        directions = list(call.attrs.get("arg_directions") or [])
        demoted = [ArgDirection.NoDep if d is ArgDirection.Input else
                   ArgDirection.OutputExisting if d is ArgDirection.InOut else d for d in directions]
        attrs = {**call.attrs, "arg_directions": demoted}
        if edges:
            attrs["compiler_manual_dep_edges"] = edges
        span = stmt.span
        old = stmt.var if isinstance(stmt, AssignStmt) else None
        if isinstance(call, Call) and not edges and ids is None:
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
            if ids is not None:
                ids[task.index] = tid
            return [AssignStmt(tid, call, span)]
        if isinstance(task.call, Submit) and old is not None:
            tup, made = old, [replace(stmt, value=call)]
        elif old is not None and isinstance(old.type, TupleType):
            tup = Var(self.names.name(old.name_hint, lambda i: f"{old.name_hint}_{i}"), call.type, old.span)
            self.bind(old, tup)  # old[i] is the same result of the longer tuple
            made = [AssignStmt(tup, call, span)]
        else:
            tup = Var(self.names.name("_submit_tmp", lambda i: f"_submit_tmp_{i}"), call.type, span)
            made = [AssignStmt(tup, call, span)]
            if old is not None:
                made.append(AssignStmt(old, TupleGetItemExpr(tup, 0, span), span))
        if ids is not None:
            tid = self._tid(call, span)
            ids[task.index] = tid
            made.append(AssignStmt(tid, TupleGetItemExpr(tup, len(call.type.types) - 1, span), span))
        return made

    def _tid(self, call: Call | Submit, span: Span) -> Var:
        """A fresh TaskId variable named after the task's kernel."""
        name = call.op.name
        return Var(self.names.name(f"{name}_tid", lambda i: f"{name}_tid_{i}"), _TASK_ID, span)


def _results(kind: Type | None) -> list[Type]:
    """The result types of a kernel call of type ``kind``."""
    if kind is None:
        return []
    return list(kind.types) if isinstance(kind, TupleType) else [kind]
