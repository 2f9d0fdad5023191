"""Build the :class:`~pypto.graph.model.TaskGraph` of a compiled program from its final IR.

The walk follows the Orchestration function in program order, one task per task site, with two
flows: which task sites a TaskId (or TaskId array) may name, for ``deps=`` edges, and the runtime's
tensor map (:mod:`pypto.graph.tensor_map`), for automatic edges. A loop's body is walked until both
flows reach a fixed point (a TaskId carried into the next trip, a buffer written late in the body and
read early in the next trip), then once more to record the edges: the body appears once, and an edge
from a task of an earlier trip is marked carried.
"""

from __future__ import annotations

from collections.abc import Callable

from pypto.analysis.loops import const_trip_count
from pypto.analysis.roots import Roots
from pypto.codegen.cpp_exprs import INFIX
from pypto.codegen.groups import group_calls
from pypto.codegen.op_table import argument, keyword
from pypto.codegen.orchestration import orchestration_function, spmd_kernel
from pypto.codegen.orchestration_predicate import PREDICATE_OPS, dispatch_predicate
from pypto.ir.enums import ArgDirection, ForKind, FunctionType
from pypto.ir.errors import PyptoError
from pypto.ir.expr import Call, ConstInt, Expr, GlobalVar, MakeTuple, Submit, TupleGetItemExpr, Var
from pypto.ir.function import Function, Program
from pypto.ir.printer import python_print
from pypto.ir.stmt import AssignStmt, EvalStmt, ForStmt, IfStmt, RuntimeScopeStmt, SeqStmts, Stmt, WhileStmt, YieldStmt
from pypto.ir.types import TensorType

from .model import Edge, EdgeKind, Frame, FrameKind, Task, TaskGraph
from .tensor_map import Box, TensorMap

_READS = (ArgDirection.Input, ArgDirection.InOut)
_WRITES = (ArgDirection.InOut, ArgDirection.OutputExisting)
# A loop body's flows settle within a few walks (each walk can only add sites); this bounds a pathological one.
_MAX_WALKS = 50


def build_task_graph(program: Program) -> TaskGraph:
    """The task graph of ``program``'s Orchestration function (a ``runtime`` or later program)."""
    func = orchestration_function(program)
    if func is None:
        raise PyptoError(f"program '{program.name}' has no Orchestration function: it submits no tasks, so there "
                         "is no task graph to draw (hint: the graph shows the kernel calls of a function of "
                         "type pl.FunctionType.Orchestration)")
    return _Builder(program, func).graph


def _text(expr: Expr) -> str:
    return python_print(expr)


class _Builder:
    def __init__(self, program: Program, func: Function) -> None:
        self.program = program
        self.roots = Roots(func, program)
        self.graph = TaskGraph(func.name)
        self.graph.frames.append(Frame(0, FrameKind.FUNCTION, func.name, None))
        self.frame = 0
        self.frames: dict[int, int] = {}  # id(stmt) -> its frame (made at the first walk)
        self.sites: dict[int, int] = {}  # id(task statement) -> its task
        self.tids: dict[Var, frozenset[int]] = {}  # TaskId scalars and arrays -> the sites they may name
        self.tuples: dict[Var, int] = {}  # a submit's result tuple -> its site
        self.views: dict[Var, tuple[Var, Box | None]] = {}  # a slice or reshape -> (its base, its box in it)
        self.manual_dep: set[Var] = set()  # roots created with manual_dep=True
        self.manual: list[bool] = [False]  # per enclosing runtime scope: is it manual?
        self.tmap = TensorMap()
        self.yields: list[list[Expr]] = []  # per enclosing loop or if branch: the values its yield gives
        self.aliases: dict[Var, Var] = {}  # an if's tensor result -> the tensor both branches yield
        self.record = True
        self.edges: dict[tuple[int, int, EdgeKind], str | None] = {}
        self.stmt(func.body)
        self.graph.edges = [Edge(s, d, k, carried=s >= d, buffer=b) for (s, d, k), b in self.edges.items()]

    # ---- structure -------------------------------------------------------------------------------

    def stmt(self, s: Stmt | None) -> None:
        if s is None:
            return
        if isinstance(s, SeqStmts):
            for child in s.stmts:
                self.stmt(child)
        elif isinstance(s, AssignStmt):
            self.assign(s)
        elif isinstance(s, EvalStmt):
            if isinstance(s.expr, (Call, Submit)):
                self.value(s, s.expr, None)
        elif isinstance(s, RuntimeScopeStmt):
            kind = FrameKind.MANUAL if s.manual else FrameKind.SCOPE
            self.manual.append(s.manual)
            self.within(s, kind, "manual scope" if s.manual else "PTO2 scope", None, lambda: self.stmt(s.body))
            self.manual.pop()
        elif isinstance(s, (ForStmt, WhileStmt)):
            self.loop(s)
        elif isinstance(s, IfStmt):
            self.branches(s)
        elif isinstance(s, YieldStmt):
            if self.yields:
                self.yields[-1][:] = list(s.value)
        elif isinstance(getattr(s, "body", None), Stmt):  # other scopes
            self.stmt(s.body)

    def within(self, s: Stmt, kind: FrameKind, label: str, trips: int | None, walk: Callable[[], None],
               key: int | None = None) -> None:
        """Walk ``walk()`` inside the frame of ``s`` (made at the first visit)."""
        key = id(s) if key is None else key
        if key not in self.frames:
            self.frames[key] = len(self.graph.frames)
            self.graph.frames.append(Frame(self.frames[key], kind, label, self.frame, trips))
        outer, self.frame = self.frame, self.frames[key]
        try:
            walk()
        finally:
            self.frame = outer

    def loop(self, s: ForStmt | WhileStmt) -> None:
        if isinstance(s, ForStmt):
            trips = const_trip_count(s)
            word = "parallel" if s.kind is ForKind.Parallel else "for"
            label = f"{word} {_name(s.loop_var)} in range({_range(s)})"
        else:
            trips = None
            label = f"while {_text(s.condition)}"
        # A TaskId a parallel loop carries as an array (a phase fence) is read by every trip as it was before
        # the loop (docs/tasks.md#dependency-forms); any other carry takes the previous trip's value.
        fence = [isinstance(s, ForStmt) and s.kind is ForKind.Parallel and f"iter_arg_array_size_{i}" in s.attrs
                 for i in range(len(s.iter_args))]
        init = [self.sources(ia.initValue) for ia in s.iter_args]
        carried: list[frozenset[int]] = [frozenset()] * len(s.iter_args)
        entry, after = self.tmap, TensorMap()

        def walk() -> tuple[list[frozenset[int]], TensorMap]:
            for k, ia in enumerate(s.iter_args):
                self.tids[ia] = init[k] if fence[k] else init[k] | carried[k]
            self.tmap = entry.join(after)
            return self.body_walk(s, label, trips), self.tmap

        recording, self.record = self.record, False
        for _ in range(_MAX_WALKS):
            yielded, end = walk()
            if all(y <= c for y, c in zip(yielded, carried)) and end == after:
                break
            carried, after = [c | y for c, y in zip(carried, yielded)], end
        self.record = recording
        yielded, after = walk()  # settled: this walk records the edges
        maybe_skipped = trips is None or trips == 0
        for k, rv in enumerate(s.return_vars):
            self.tids[rv] = yielded[k] | (init[k] if maybe_skipped else frozenset())
        self.tmap = after.join(entry) if maybe_skipped else after

    def body_walk(self, s: ForStmt | WhileStmt, label: str, trips: int | None) -> list[frozenset[int]]:
        """Walk a loop body once; the TaskId sources of what its trailing yield carries."""
        self.yields.append([])
        try:
            self.within(s, FrameKind.LOOP, label, trips, lambda: self.stmt(s.body))
        finally:
            yielded = self.yields.pop()
        return [self.sources(v) for v in yielded] or [frozenset()] * len(s.iter_args)

    def branches(self, s: IfStmt) -> None:
        cond = _text(s.condition)
        entry = self.tmap
        results: list[list[Expr]] = []
        maps: list[TensorMap] = []
        for n, body in enumerate((s.then_body, s.else_body)):
            self.tmap = entry.copy()
            self.yields.append([])
            try:
                if body is not None:
                    label = f"if {cond}" if n == 0 else f"else (not {cond})"
                    self.within(body, FrameKind.BRANCH, label, None, lambda b=body: self.stmt(b), key=id(body))
            finally:
                results.append(self.yields.pop() or [None] * len(s.return_vars))
            maps.append(self.tmap)
        self.tmap = maps[0].join(maps[1])
        for k, rv in enumerate(s.return_vars):
            then, other = results[0][k], results[1][k]
            self.tids[rv] = self.sources(then) | self.sources(other)
            tensors = isinstance(then, Var) and isinstance(other, Var) and isinstance(rv.type, TensorType)
            if tensors and self.buffer(then)[0] is self.buffer(other)[0]:
                self.aliases[rv] = then

    # ---- values ----------------------------------------------------------------------------------

    def assign(self, s: AssignStmt) -> None:
        var, value = s.var, s.value
        if isinstance(value, (Call, Submit)):
            self.value(s, value, var)
        elif isinstance(value, TupleGetItemExpr) and isinstance(value.tuple, Var) and value.tuple in self.tuples:
            if _is_task_id(var):
                self.tids[var] = frozenset({self.tuples[value.tuple]})
        elif isinstance(value, Var) and value in self.tids:
            self.tids[var] = self.tids[value]

    def value(self, s: Stmt, call: Call | Submit, var: Var | None) -> None:
        if isinstance(call.op, GlobalVar):
            site = self.task(s, call)
            if var is not None and isinstance(call, Submit):
                self.tuples[var] = site
            return
        name = call.op.name
        if name == "system.task_dummy":
            site = self.dummy(s, call)
            if var is not None:
                self.tids[var] = frozenset({site})
        elif name == "array.update_element" and var is not None:
            self.tids[var] = self.sources(call.args[0]) | self.sources(call.args[2])
        elif name == "array.get_element" and var is not None:
            self.tids[var] = self.sources(call.args[0])
        elif name in ("tensor.create", "tensor.full") and var is not None and keyword(call, "manual_dep"):
            self.manual_dep.add(var)
        elif name == "tensor.slice" and var is not None and isinstance(call.args[0], Var):
            self.views[var] = (call.args[0], _box(call))
        elif name in ("tensor.reshape", "tensor.view", "tensor.transpose") and var is not None \
                and isinstance(call.args[0], Var):
            self.views[var] = (call.args[0], None)

    def sources(self, expr: Expr | None) -> frozenset[int]:
        """The task sites a TaskId expression (or a TaskId array) may name."""
        if isinstance(expr, Var):
            return self.tids.get(expr, frozenset())
        if isinstance(expr, MakeTuple):
            return frozenset().union(*(self.sources(e) for e in expr.elements))
        if isinstance(expr, Call) and not isinstance(expr.op, GlobalVar) and expr.op.name == "array.get_element":
            return self.sources(expr.args[0])
        return frozenset()

    def buffer(self, var: Var) -> tuple[Var, Box | None]:
        """The root buffer a tensor variable names and the box of it (None: all, or not known)."""
        box: Box | None = None
        known = True
        while True:
            var = self.roots.root(self.aliases.get(var, var))
            if var not in self.views:
                return var, box if known else None
            base, inner = self.views[var]
            if inner is None:
                known = False
            elif box is None:
                box = inner
            else:
                box = tuple((lo + b_lo, lo + b_hi) for (lo, _), (b_lo, b_hi) in zip(inner, box))
            var = base

    # ---- tasks -----------------------------------------------------------------------------------

    def site(self, s: Stmt, make: Callable[[int], Task]) -> int:
        """The task of statement ``s``, made by ``make(id)`` at the first walk."""
        if id(s) not in self.sites:
            task = make(len(self.graph.tasks))
            self.sites[id(s)] = task.id
            self.graph.tasks.append(task)
        return self.sites[id(s)]

    def task(self, s: Stmt, call: Call | Submit) -> int:
        site = self.site(s, lambda n: self.describe(n, call, s))
        sources = list(call.deps) if isinstance(call, Submit) else []
        for dep in sources:
            for src in self.sources(dep):
                self.edge(src, site, EdgeKind.EXPLICIT)
        for dep in call.attrs.get("compiler_manual_dep_edges") or []:
            for src in self.sources(dep):
                self.edge(src, site, EdgeKind.DERIVED)
        if self.manual[-1]:
            return site
        directions = list(call.attrs.get("arg_directions") or [])
        tensors = [(a, d) for a, d in zip(call.args, directions)
                   if isinstance(a, Var) and isinstance(a.type, TensorType)]
        for arg, direction in tensors:
            root, box = self.buffer(arg)
            if direction in _READS and root not in self.manual_dep:
                for src in self.tmap.read(root, box, direction is ArgDirection.InOut):
                    self.edge(src, site, EdgeKind.AUTO, _name(root))
        for arg, direction in tensors:
            root, box = self.buffer(arg)
            if direction in _WRITES and root not in self.manual_dep:
                self.tmap.write(root, box, site)
        return site

    def dummy(self, s: Stmt, call: Call) -> int:
        barrier = bool(call.attrs.get("dummy_task"))
        label = "phase fence barrier" if barrier else "task_dummy"
        site = self.site(s, lambda n: Task(n, label, "dummy", self.frame, _line(s), barrier=barrier))
        for dep in [*call.args, *(call.attrs.get("manual_dep_edges") or [])]:
            for src in self.sources(dep):
                self.edge(src, site, EdgeKind.EXPLICIT)
        return site

    def edge(self, src: int, dst: int, kind: EdgeKind, buffer: str | None = None) -> None:
        if not self.record:
            return
        if kind is EdgeKind.EXPLICIT and (self.graph.tasks[src].barrier or self.graph.tasks[dst].barrier):
            kind = EdgeKind.FENCE
        key = (src, dst, kind)
        if key not in self.edges or self.edges[key] is None:
            self.edges[key] = buffer

    def describe(self, n: int, call: Call | Submit, s: Stmt) -> Task:
        """The task a kernel call submits: its kernel, core type, block count and predicate."""
        target = self.program.get_function(call.op.name)
        if target is None:
            raise PyptoError(f"the orchestration calls '{call.op.name}', which is not a function of the program")
        blocks = call.core_num if isinstance(call, Submit) else call.attrs.get("core_num")
        name = call.op.name
        if target.func_type is FunctionType.Spmd:
            if blocks is None:
                blocks = target.attrs.get("core_num")
            target = spmd_kernel(self.program, target)[0]
            name = target.name
        if target.func_type is FunctionType.Group:
            kinds = {k.func_type for k, _ in group_calls(self.program, target)}
            core = "mixed" if kinds == {FunctionType.AIC, FunctionType.AIV} else "Group"
        else:
            core = target.func_type.name  # AIV or AIC
        if isinstance(blocks, ConstInt):
            blocks = blocks.value
        shown = None if blocks is None else (str(blocks) if isinstance(blocks, int) else _text(blocks))
        predicate = call.predicate if isinstance(call, Submit) else None
        return Task(n, name, core, self.frame, _line(s), blocks=shown,
                    predicate=None if predicate is None else _predicate(predicate))


def _name(var: Var) -> str:
    """A variable's name without the suffixes the passes add (``acc__ssa_v3`` is ``acc``)."""
    return var.name_hint.split("__")[0] or var.name_hint


def _range(loop: ForStmt) -> str:
    """``range``'s arguments as a user writes them (``4``, not ``0, 4, 1``)."""
    start, stop, step = (_text(b) for b in (loop.start, loop.stop, loop.step))
    if step != "1":
        return f"{start}, {stop}, {step}"
    return stop if start == "0" else f"{start}, {stop}"


def _predicate(predicate: Expr) -> str:
    """A dispatch predicate as the scheduler reads it: ``rc[0, 1] > 0`` (a mirrored one flipped)."""
    found = dispatch_predicate(predicate)
    compare = next(kind for kind, name in PREDICATE_OPS.items() if name == found.op)
    return f"{_name(found.tensor)}[{', '.join(_text(i) for i in found.indices)}] {INFIX[compare]} {found.target}"


def _is_task_id(var: Var) -> bool:
    dtype = getattr(var.type, "dtype", None)
    return dtype is not None and dtype.is_task_id()


def _line(s: Stmt) -> int | None:
    line = s.span.begin_line if s.span is not None else -1
    return line if line > 0 else None


def _box(call: Call) -> Box | None:
    """The box a ``tensor.slice`` selects in its source, when its offsets and extents are constants."""
    valid, shape, offset = argument(call, "valid_shape"), argument(call, "shape"), argument(call, "offset")
    extents = valid if isinstance(valid, MakeTuple) and valid.elements else shape
    if not isinstance(extents, MakeTuple) or not isinstance(offset, MakeTuple):
        return None
    dims = [(o.value, o.value + n.value) for o, n in zip(offset.elements, extents.elements)
            if isinstance(o, ConstInt) and isinstance(n, ConstInt)]
    return tuple(dims) if len(dims) == len(extents.elements) == len(offset.elements) else None
