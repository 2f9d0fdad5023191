"""The dependency edges between the task sites of an Orchestration function.

A forward walk (:class:`~pypto.analysis.flow.ForwardWalk`, loops to a fixed point) threads two
flows: which task sites each TaskId (or TaskId array) may name, for ``deps=`` edges, and the
runtime's tensor map (:mod:`pypto.graph.tensor_map`), for automatic edges. A TaskId a loop carries
names the sites of the trip before; a buffer written late in a loop body is seen by a reader early in
the next trip. Both only grow from one walk of a body to the next, so the edges met on any walk are
edges of the settled one. An edge from a site at or after its destination in program order can only
come from an earlier trip: it is marked carried.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from pypto.analysis.flow import ForwardWalk
from pypto.analysis.loops import const_trip_count
from pypto.analysis.task_access import TaskAccess
from pypto.ir.enums import ArgDirection, ForKind
from pypto.ir.expr import Call, Expr, GlobalVar, MakeTuple, Submit, TupleGetItemExpr, Var
from pypto.ir.function import Function, Program
from pypto.ir.stmt import AssignStmt, ForStmt, IfStmt, RuntimeScopeStmt, ScopeStmt, Stmt, WhileStmt, YieldStmt
from pypto.ir.transforms import flatten_to_stmts

from .model import Edge, EdgeKind, Task
from .sites import name_of, task_call
from .tensor_map import TensorMap

Sources = frozenset[int]


@dataclass(frozen=True)
class _State:
    """The sites each TaskId may name, the registered writers, and whether the innermost scope is manual."""

    tids: dict[Var, Sources]
    tmap: TensorMap
    manual: bool = False

    def named(self, updates: dict[Var, Sources]) -> _State:
        return replace(self, tids={**self.tids, **updates})

    def union(self, other: _State) -> _State:
        tids = dict(self.tids)
        for var, sites in other.tids.items():
            tids[var] = tids.get(var, frozenset()) | sites
        return _State(tids, self.tmap.join(other.tmap), self.manual)


def dependency_edges(program: Program, func: Function, tasks: list[Task], task: dict[int, int]) -> list[Edge]:
    """The edges between ``tasks`` (``task[id(stmt)]`` is the task a statement submits), in the order met."""
    flow = _Flow(program, func, tasks, task)
    flow.block(func.body, _State({}, TensorMap()))
    return [Edge(s, d, k, carried=s >= d, buffer=b) for (s, d, k), b in flow.edges.items()]


class _Flow(ForwardWalk[_State]):
    loop_passes = None

    def __init__(self, program: Program, func: Function, tasks: list[Task], task: dict[int, int]) -> None:
        self.tasks, self.task = tasks, task
        self.access = TaskAccess(func, program)
        self.tuples: dict[Var, int] = {}  # a submit's result tuple -> its site (the same on every walk)
        self.edges: dict[tuple[int, int, EdgeKind], str | None] = {}

    # ---- structure -------------------------------------------------------------------------------

    def enter_scope(self, s: ScopeStmt, state: _State) -> _State:
        return replace(state, manual=s.manual) if isinstance(s, RuntimeScopeStmt) else state

    def exit_scope(self, s: ScopeStmt, before: _State, end: _State) -> _State:
        return replace(end, manual=before.manual)

    def enter_loop(self, s: ForStmt | WhileStmt, state: _State) -> _State:
        return state.named({ia: _sources(state, ia.initValue) for ia in s.iter_args})

    def back_edge(self, s: ForStmt | WhileStmt, head: _State, end: _State) -> _State:
        # A TaskId a parallel loop carries as an array (a phase fence) is read by every trip as it was
        # before the loop (docs/tasks.md#dependency-forms); any other carry takes the previous trip's value.
        yielded = _yielded(s.body)
        carried = {ia: head.tids[ia] | _sources(end, v) for k, (ia, v) in enumerate(zip(s.iter_args, yielded))
                   if not (isinstance(s, ForStmt) and s.kind is ForKind.Parallel
                           and f"iter_arg_array_size_{k}" in s.attrs)}
        return head.union(end).named(carried)

    def exit_loop(self, s: ForStmt | WhileStmt, before: _State, end: _State) -> _State:
        skippable = not isinstance(s, ForStmt) or not const_trip_count(s)
        results = {rv: _sources(end, v) | (_sources(before, ia.initValue) if skippable else frozenset())
                   for rv, ia, v in zip(s.return_vars, s.iter_args, _yielded(s.body))}
        after = end.union(before) if skippable else end
        return replace(after.named(results), manual=before.manual)

    def join(self, s: IfStmt, before: _State, then_end: _State, else_end: _State) -> _State:
        results: dict[Var, Sources] = {}
        for rv, then, other in zip(s.return_vars, _yielded(s.then_body), _yielded(s.else_body)):
            results[rv] = _sources(then_end, then) | _sources(else_end, other)
        return then_end.union(else_end).named(results)

    # ---- statements ------------------------------------------------------------------------------

    def leaf(self, s: Stmt, state: _State) -> _State:
        call = task_call(s)
        if call is not None:
            state = self.submit(self.task[id(s)], call, state)
        if not isinstance(s, AssignStmt):
            return state
        var, value = s.var, s.value
        if call is not None:
            if isinstance(call, Submit):
                self.tuples[var] = self.task[id(s)]
            return state.named({var: frozenset({self.task[id(s)]})}) if not isinstance(value.op, GlobalVar) else state
        if isinstance(value, TupleGetItemExpr) and value.tuple in self.tuples and _is_task_id(var):
            return state.named({var: frozenset({self.tuples[value.tuple]})})
        if isinstance(value, Var) and value in state.tids:
            return state.named({var: state.tids[value]})
        if not isinstance(value, Call) or isinstance(value.op, GlobalVar):
            return state
        name = value.op.name
        if name == "array.update_element":
            return state.named({var: _sources(state, value.args[0]) | _sources(state, value.args[2])})
        if name == "array.get_element":
            return state.named({var: _sources(state, value.args[0])})
        return state

    def submit(self, site: int, call: Call | Submit, state: _State) -> _State:
        """The edges into ``site``, and the tensor map after it registered what it writes."""
        deps = list(call.deps) if isinstance(call, Submit) else []
        if not isinstance(call.op, GlobalVar):  # task_dummy: its deps live in attrs
            deps = [*call.args, *(call.attrs.get("manual_dep_edges") or [])]
        for dep in deps:
            for src in _sources(state, dep):
                self.edge(src, site, EdgeKind.EXPLICIT)
        for dep in call.attrs.get("compiler_manual_dep_edges") or []:
            for src in _sources(state, dep):
                self.edge(src, site, EdgeKind.DERIVED)
        accesses = self.access.accesses(call)
        if state.manual or not accesses:
            return state
        tmap = state.tmap.copy()
        for a in accesses:
            if a.reads:
                for src in tmap.read(a.buffer, a.box, a.direction is ArgDirection.InOut and a.sure):
                    self.edge(src, site, EdgeKind.AUTO, name_of(a.buffer))
        # the runtime registers inout and output_existing tensors, not output ones (tensor_map)
        for a in accesses:
            if a.writes and a.direction is not ArgDirection.Output:
                tmap.write(a.buffer, a.box, site)
        return replace(state, tmap=tmap)

    def edge(self, src: int, dst: int, kind: EdgeKind, buffer: str | None = None) -> None:
        if kind is EdgeKind.EXPLICIT and (self.tasks[src].barrier or self.tasks[dst].barrier):
            kind = EdgeKind.FENCE
        if self.edges.get((src, dst, kind)) is None:
            self.edges[(src, dst, kind)] = buffer


def _sources(state: _State, expr: Expr | None) -> Sources:
    """The task sites a TaskId expression (or a TaskId array) may name."""
    if isinstance(expr, Var):
        return state.tids.get(expr, frozenset())
    if isinstance(expr, MakeTuple):
        return frozenset().union(*(_sources(state, e) for e in expr.elements))
    if isinstance(expr, Call) and not isinstance(expr.op, GlobalVar) and expr.op.name == "array.get_element":
        return _sources(state, expr.args[0])
    return frozenset()


def _yielded(body: Stmt | None) -> list[Expr | None]:
    """The values the trailing yield of a loop body or branch gives (empty without one)."""
    stmts = flatten_to_stmts(body) if body is not None else []
    return list(stmts[-1].value) if stmts and isinstance(stmts[-1], YieldStmt) else []


def _is_task_id(var: Var) -> bool:
    dtype = getattr(var.type, "dtype", None)
    return dtype is not None and dtype.is_task_id()
