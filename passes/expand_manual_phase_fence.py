"""ExpandManualPhaseFence: one dependency-only barrier instead of N x M explicit edges
(docs/passes.md#expandmanualphasefence)."""

from __future__ import annotations

from pypto.analysis import function_index, walk
from pypto.analysis.loops import const_trip_count
from pypto.analysis.task_deps import dependency_problems
from pypto.languages.invariants import CallDirectionsResolved, NoNestedCalls, NormalizedStmtStructure
from pypto.languages.memref import memref

from pypto.ir.datatype import DataType
from pypto.ir.enums import ForKind, FunctionType
from pypto.ir.expr import Call, Expr, IterArg, Submit, Var
from pypto.ir.function import Function, Program
from pypto.ir.node import replace
from pypto.ir.op import system
from pypto.ir.stmt import AssignStmt, ForStmt, RuntimeScopeStmt, Stmt, YieldStmt
from pypto.ir.transforms import flatten_to_stmts
from pypto.ir.type_base import ScalarType
from pypto.ir.types import ArrayType

from pypto.transform.rewrite import Result, RewritePass, on
from pypto.transform.util import block_of, rebuild


class ExpandManualPhaseFence(RewritePass):
    """In manual scopes of Orchestration functions, replace the ``N x M`` edges of ``M`` consumer
    Submits that each depend only on the same stable, read-only set of ``N`` TaskIds by ``N + M``
    edges through one dependency-only barrier, when ``N*M > N+M``.

    The set of ``N`` TaskIds is an ``Array[N, TASK_ID]`` defined before the loop and not updated in
    it, or the TaskId a ``pl.parallel`` loop carries (the previous phase of a phase fence: the
    branches of a sequential loop's previous trip, which codegen holds as an array of ``N`` slots).
    The ``M`` consumers are the loop's trip count times its Submits whose only dep is that set::

        before:  for b, (prev,) in pl.parallel(4, init_values=(phase_ids,)):     # phase_ids: 4 TaskIds
                     out, t = pl.submit(self.k, x, out, deps=[prev])
        after:   bar = pl.system.task_dummy(deps=[phase_ids])     # attrs dummy_task=True
                 for b, (prev,) in pl.parallel(4, init_values=(phase_ids,)):
                     out, t = pl.submit(self.k, x, out, deps=[bar])

    Anything else (other deps on the consumer, an array updated in the loop, too few edges to gain)
    stays direct.

    First, in every Orchestration function, a dependency the runtime would drop without a word is an
    error (:mod:`pypto.analysis.task_deps`): a TaskId array slot no task id is written to before,
    tasks on the two sides of a manual scope's edge ordered by nothing, an element access after a
    manual-scope task, or a dispatch predicate nothing orders after its gate's writer.
    """

    source = memref
    requires = frozenset({NoNestedCalls, NormalizedStmtStructure, CallDirectionsResolved})

    def run_function(self, func: Function, program: Program) -> Function:
        if func.func_type is FunctionType.Orchestration:
            for problem in dependency_problems(func, program)[:1]:
                raise self.error(problem.message, problem.span, problem.hint)
        return super().run_function(func, program)

    def applies(self, func: Function) -> bool:
        return func.func_type is FunctionType.Orchestration and any(
            n.manual for n in function_index(func).of(RuntimeScopeStmt))

    def function(self, func: Function) -> Function:
        self.manual = 0
        self.loops: list[ForStmt] = []  # the enclosing loops of the statement being rewritten
        return super().function(func)

    @on(RuntimeScopeStmt)
    def _scope(self, node: RuntimeScopeStmt) -> Result:
        self.manual += node.manual
        try:
            return self.children(node)
        finally:
            self.manual -= node.manual

    @on(ForStmt)
    def _for(self, node: ForStmt) -> Result:
        self.loops.append(node)
        try:
            new = self.children(node)
        finally:
            self.loops.pop()
        trips = const_trip_count(new)
        if not self.manual or trips is None:
            return new
        stmts = flatten_to_stmts(new.body)
        groups: dict[Var, list[int]] = {}
        for k, stmt in enumerate(stmts):
            dep = _single_dep(stmt)
            if dep is not None:
                groups.setdefault(dep, []).append(k)
        before: list[Stmt] = []
        for dep, consumers in groups.items():
            source, n = self._fence_source(new, dep, stmts)
            m = trips * len(consumers)
            if source is None or n * m <= n + m:
                continue
            bar = Var(self.names.name("phase_fence_barrier", lambda i: f"phase_fence_barrier_{i}"),
                      ScalarType(DataType.TASK_ID), new.span)
            dummy = system.task_dummy([source], span=new.span)
            dummy = replace(dummy, attrs={**dummy.attrs, "dummy_task": True})
            before.append(AssignStmt(bar, dummy, span=new.span))
            for k in consumers:
                stmts[k] = rebuild(stmts[k], value=replace(stmts[k].value, deps=[bar]))
        if not before:
            return new
        return [*before, rebuild(new, body=block_of(stmts, new.body.span))]

    def _fence_source(self, loop: ForStmt, dep: Var, stmts: list[Stmt]) -> tuple[Expr | None, int]:
        """What a barrier before ``loop`` waits for in place of ``dep``, and how many TaskIds it is."""
        if isinstance(dep.type, ArrayType):
            inside = {id(v) for s in stmts for v in _defined(s)} | {id(v) for v in loop.iter_args}
            if id(dep) in inside or _updates(stmts, dep):
                return None, 0
            return dep, dep.type.extent.value
        if loop.kind is not ForKind.Parallel or not any(dep is ia for ia in loop.iter_args):
            return None, 0
        i = next(i for i, ia in enumerate(loop.iter_args) if ia is dep)
        init = dep.initValue
        if isinstance(init, Var) and isinstance(init.type, ArrayType):
            return init, init.type.extent.value
        if self._threads(init, loop.return_vars[i]):
            return init, const_trip_count(loop) or 0
        return None, 0

    def _threads(self, init: Expr, result: Var) -> bool:
        """True when ``init`` is the iter_arg of an enclosing sequential loop that yields ``result``
        (the parallel loop's TaskId carry): codegen holds it as an array of the same size."""
        if not isinstance(init, IterArg):
            return False
        for outer in self.loops:
            if outer.kind is ForKind.Parallel:
                continue
            body = flatten_to_stmts(outer.body)
            tail = body[-1] if body else None
            for j, ia in enumerate(outer.iter_args):
                if ia is init and isinstance(tail, YieldStmt) and j < len(tail.value) and tail.value[j] is result:
                    return True
        return False


def _single_dep(stmt: Stmt) -> Var | None:
    """The only dependency of a Submit statement, when it has exactly one Var dep and no others."""
    value = stmt.value if isinstance(stmt, AssignStmt) else None
    if not isinstance(value, Submit) or len(value.deps) != 1 or value.attrs.get("compiler_manual_dep_edges"):
        return None
    dep = value.deps[0]
    return dep if isinstance(dep, Var) else None


def _defined(stmt: Stmt) -> list[Var]:
    return [n.var for n in walk(stmt) if isinstance(n, AssignStmt)] + [
        v for n in walk(stmt) if isinstance(n, ForStmt) for v in (*n.iter_args, *n.return_vars)]


def _updates(stmts: list[Stmt], array: Var) -> bool:
    """True when a statement writes a slot of ``array`` (codegen updates a TaskId array in place)."""
    for stmt in stmts:
        for node in walk(stmt):
            if isinstance(node, Call) and node.op.name == "array.update_element":
                if node.args and node.args[0] is array:
                    return True
    return False
