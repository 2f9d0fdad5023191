"""Dependencies of orchestration tasks that the PTO2 runtime would drop without a word
(docs/tasks.md#dependency-checks).

* A dependency on a TaskId array slot that no statement before it can have written (an ``invalid``
  id, which the generated code skips): nothing orders the task.
* An ordering across the edge of a manual scope: a task in a ``pl.manual_scope()`` neither looks up
  nor registers the tensors it touches, so a task on the other side of the scope's edge (tracked by
  the runtime) that reads or writes a tensor the first one wrote is not ordered after it unless its
  ``deps=`` reach that task's TaskId. The orchestration's own element accesses (``pl.tensor.read``,
  ``pl.tensor.write``) wait only for the tasks the runtime tracks (a read for the last writer, a write
  also for the last reader), so one whose last such task is in a manual scope is never ordered after it.
* A dispatch predicate read before its gate is written: the scheduler reads the gate element when the
  task is ready, which it is once its own dependencies are done; the gate tensor is not looked up. So
  the gate's last writer must be reached by the task's ``deps=``, or be a tracked task whose tensor
  the (tracked) task itself reads as an argument.

Explicit edges themselves need no check: a dependency names a TaskId defined before the task (so
explicit edges cannot form a cycle), and the runtime honours an edge to a task of any scope, ended
or not (a task that has already retired is done).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pypto.ir.expr import BinaryExpr, Call, Cast, ConstInt, Expr, GlobalVar, IterArg, Submit, TupleGetItemExpr, Var
from pypto.ir.function import Function, Program
from pypto.ir.span import Span
from pypto.ir.stmt import (
    AssignStmt,
    EvalStmt,
    ForStmt,
    IfStmt,
    RuntimeScopeStmt,
    ScopeStmt,
    SeqStmts,
    Stmt,
    WhileStmt,
    YieldStmt,
)
from pypto.ir.types import ArrayType

from .defuse import base_name
from .index import function_index
from .task_access import Access, TaskAccess


@dataclass(frozen=True)
class DepProblem:
    """One dependency the runtime would drop: what, where, and what to write instead."""

    message: str
    span: Span
    hint: str


@dataclass
class _Task:
    node: Call | Submit
    span: Span
    scope: int | None  # the outermost manual scope holding the task (its id), None outside every one
    deps: list[Expr]
    block: bool  # launches a kernel outlined from a ``with pl.at(...)`` (pl.spmd, pl.cluster) block
    host: bool = False  # the orchestration's own element access (``tensor.read``/``tensor.write``), no task
    loops: tuple[int, ...] = ()  # the loops around the task (ids), outermost first

    @property
    def manual(self) -> bool:
        return self.scope is not None


@dataclass
class _Walk:
    """One program-order walk of an Orchestration body, recording what the checks need."""

    access: TaskAccess
    program: Program
    # the span of each statement being walked, outermost first: a statement a pass made without a span
    # takes the nearest enclosing one (the function's at the bottom)
    where: list[Span]
    order: int = 0
    manual: list[int] = field(default_factory=list)  # the manual scopes entered, outermost first
    loops: list[int] = field(default_factory=list)
    # array root -> (order, enclosing loops, constant slot or None) of each slot write
    writes: dict[int, list[tuple[int, tuple[int, ...], int | None]]] = field(default_factory=dict)
    array_root: dict[int, Var] = field(default_factory=dict)
    slot_reads: dict[int, tuple[Var, int | None]] = field(default_factory=dict)  # var -> (array root, slot)
    dep_reads: list[tuple[int, tuple[int, ...], Expr, Span]] = field(default_factory=list)
    sources: dict[int, list[object]] = field(default_factory=dict)  # TaskId var -> vars / Submits it comes from
    tuples: dict[int, Submit] = field(default_factory=dict)
    tasks: list[_Task] = field(default_factory=list)

    def stmt(self, s: Stmt) -> None:
        self.order += 1
        self.where.append(s.span if s.span.is_valid() else self.where[-1])
        self._stmt(s)
        self.where.pop()

    def _stmt(self, s: Stmt) -> None:
        if isinstance(s, SeqStmts):
            for child in s.stmts:
                self.stmt(child)
        elif isinstance(s, RuntimeScopeStmt):
            if s.manual:
                self.manual.append(id(s))
            self.stmt(s.body)
            if s.manual:
                self.manual.pop()
        elif isinstance(s, ScopeStmt):
            self.stmt(s.body)
        elif isinstance(s, (ForStmt, WhileStmt)):
            self.loops.append(id(s))
            for ia, rv in zip(s.iter_args, s.return_vars, strict=True):
                self._alias(ia, ia.initValue)
                self._alias(rv, ia)
            self.stmt(s.body)
            self._yielded(s.body, [*s.iter_args], s.return_vars)
            self.loops.pop()
        elif isinstance(s, IfStmt):
            for body in (s.then_body, s.else_body):
                if body is not None:
                    self.stmt(body)
                    self._yielded(body, [], s.return_vars)
        elif isinstance(s, AssignStmt):
            self._value(s.value, s.var, self.where[-1])
        elif isinstance(s, EvalStmt):
            self._value(s.expr, None, self.where[-1])

    def _alias(self, var: Var, value: Expr) -> None:
        if isinstance(value, Var):
            self.sources.setdefault(id(var), []).append(value)
            if isinstance(var.type, ArrayType) and id(value) in self.array_root:
                self.array_root[id(var)] = self.array_root[id(value)]

    def _yielded(self, body: Stmt, iter_args: list[Var], results: list[Var]) -> None:
        """The values a body's trailing yield gives the loop's iter_args (the next trip) and results,
        or the if's results."""
        tail = body.stmts[-1] if isinstance(body, SeqStmts) and body.stmts else body
        if not isinstance(tail, YieldStmt):
            return
        for k, value in enumerate(tail.value):
            for targets in (iter_args, results):
                if k < len(targets):
                    self._alias(targets[k], value)

    def _value(self, value: Expr, var: Var | None, span: Span) -> None:
        if isinstance(value, Var) and var is not None:
            self._alias(var, value)
        elif isinstance(value, TupleGetItemExpr) and var is not None:
            submit = self.tuples.get(id(value.tuple)) if isinstance(value.tuple, Var) else None
            if submit is not None and value.index == len(submit.type.types) - 1:  # the trailing TaskId
                self.sources.setdefault(id(var), []).append(submit)
        elif isinstance(value, (Call, Submit)):
            self._call(value, var, span)

    def _call(self, call: Call | Submit, var: Var | None, span: Span) -> None:
        name = call.op.name
        if isinstance(call.op, GlobalVar):
            deps = list(call.deps) if isinstance(call, Submit) else []
            for dep in deps:
                self.dep_reads.append((self.order, tuple(self.loops), dep, span))
            callee = self.program.get_function(call.op.name)
            block = callee is not None and callee.span == call.span  # outlining gives both the block's span
            self.tasks.append(
                _Task(call, span, self.manual[0] if self.manual else None, deps, block, loops=tuple(self.loops))
            )
            if isinstance(call, Submit) and var is not None:
                self.tuples[id(var)] = call
            return
        if name in _HOST_ACCESSES and isinstance(call.args[0], Var):
            self.tasks.append(_Task(call, span, self.manual[0] if self.manual else None, [], False, host=True))
        elif name == "array.create" and var is not None:
            self.array_root[id(var)] = var
        elif name == "array.update_element" and var is not None:
            arr, index, value = call.args[0], call.args[1], call.args[2]
            root = self.array_root.get(id(arr))
            if root is not None:
                self.array_root[id(var)] = root
                slot = index.value if isinstance(index, ConstInt) else None
                self.writes.setdefault(id(root), []).append((self.order, tuple(self.loops), slot))
            self._alias(var, arr)
            self._alias(var, value)
        elif name == "array.get_element" and var is not None:
            arr, index = call.args[0], call.args[1]
            root = self.array_root.get(id(arr))
            if root is not None:
                self.slot_reads[id(var)] = (root, index.value if isinstance(index, ConstInt) else None)
            self._alias(var, arr)
        elif name == "system.task_dummy":
            for dep in call.attrs.get("manual_dep_edges") or []:
                self.dep_reads.append((self.order, tuple(self.loops), dep, span))
                if var is not None:
                    self._alias(var, dep)


# Element accesses the orchestration makes itself: get_tensor_data / set_tensor_data wait for the
# writers the runtime's tensor map knows of, which a manual-scope task never registers.
_HOST_ACCESSES = ("tensor.read", "tensor.write")


def dependency_problems(func: Function, program: Program) -> list[DepProblem]:
    """The dependencies of ``func`` (an Orchestration function with call directions) that the
    runtime would drop, in program order."""
    if nothing_to_drop(func):
        return []
    walk = _Walk(TaskAccess(func, program), program, [func.span])
    walk.stmt(func.body)
    return [*_unwritten_slots(walk), *_scope_edges(walk)]


def nothing_to_drop(func: Function) -> bool:
    """True when ``func`` can have no dependency problem, read off its node index: each one needs a
    dependency (a Submit's ``deps=``, a dependency-only task's edges), a manual scope (a boundary
    crossed, an element access after a manual task) or a dispatch predicate (a gate)."""
    index = function_index(func)
    if "system.task_dummy" in index.op_names or any(s.manual for s in index.of(RuntimeScopeStmt)):
        return False
    return not any(s.deps or s.predicate is not None for s in index.of(Submit))


def _reach(walk: _Walk, start: Expr) -> set[int]:
    """The Submits whose TaskId may flow into ``start`` (through copies, carries, ifs, arrays and
    dependency-only tasks)."""
    found: set[int] = set()
    seen: set[int] = set()
    stack: list[object] = [start]
    while stack:
        x = stack.pop()
        if isinstance(x, Submit):
            found.add(id(x))
            continue
        if not isinstance(x, Var) or id(x) in seen:
            continue
        seen.add(id(x))
        stack.extend(walk.sources.get(id(x), []))
        if isinstance(x, IterArg):
            stack.append(x.initValue)
    return found


def _written_before(walk: _Walk, root: Var, slot: int | None, order: int, loops: tuple[int, ...]) -> bool:
    """Whether a write to ``root`` that can fill ``slot`` (None: any) precedes the read at ``order``:
    earlier in program order, or in a loop enclosing the read (an earlier trip)."""
    for w_order, w_loops, w_slot in walk.writes.get(id(root), []):
        if slot is not None and w_slot is not None and w_slot != slot:
            continue
        if w_order < order or any(loop in loops for loop in w_loops):
            return True
    return False


def _slot_read(walk: _Walk, dep: Expr) -> tuple[Var, int | None] | None:
    """The array root and constant slot (None: computed) a dependency reads, when it reads one."""
    if isinstance(dep, Var):
        return walk.slot_reads.get(id(dep))
    if isinstance(dep, Call) and dep.op.name == "array.get_element" and id(dep.args[0]) in walk.array_root:
        index = dep.args[1]
        return walk.array_root[id(dep.args[0])], index.value if isinstance(index, ConstInt) else None
    return None


def _unwritten_slots(walk: _Walk) -> list[DepProblem]:
    problems = []
    for order, loops, dep, span in walk.dep_reads:
        what = None
        read = _slot_read(walk, dep)
        if read is not None:
            root, slot = read
            if not _written_before(walk, root, slot, order, loops):
                what = f"slot {slot} of " if slot is not None else "any slot of "
        elif isinstance(dep, Var) and isinstance(dep.type, ArrayType) and id(dep) in walk.array_root:
            root = walk.array_root[id(dep)]
            if not _written_before(walk, root, None, order, loops):
                what = ""
        if what is None:
            continue
        name = base_name(root.name_hint)
        problems.append(DepProblem(
            f"a dependency on {what}the TaskId array '{name}', to which no task id is written before this task: "
            "it holds only invalid ids, which the runtime skips, so nothing orders this task",
            span, f"write the producer's TaskId into it first ({name}[k] = tid), or drop the dependency"))
    return problems


def _scope_edges(walk: _Walk) -> list[DepProblem]:
    """Tasks on the two sides of a manual scope's edge touching one tensor, the earlier one writing it,
    with no explicit edge between them (also two different manual scopes: neither side is tracked);
    element accesses and dispatch predicates reading what nothing orders them after."""
    problems = []
    writers: dict[int, list[_Task]] = {}  # root -> the tasks writing it
    last_writer: dict[int, _Task] = {}  # root -> the last task writing it
    touching: dict[int, _Task] = {}  # root -> the last task reading or writing it
    for i, task in enumerate(walk.tasks):
        if task.host:
            # a read waits for the last tracked writer, a write also for the last tracked reader; each of
            # those waited for the tasks before it, so only the last one's scope matters
            last_of = touching if task.node.op.name == "tensor.write" else last_writer
            for buffer in walk.access.buffers(task.node.args[0]):
                last = last_of.get(id(walk.access.buffer(buffer)[0]))
                if last is not None and last.manual:
                    problems.append(_host_problem(task, last, buffer))
                    break
            continue  # an element access is done when the orchestration goes on: no later task waits for it
        accessed = walk.access.accesses(task.node)
        reached: set[int] | None = None
        found = len(problems)
        for a in accessed:
            for earlier in writers.get(id(a.buffer), []):
                if earlier.scope == task.scope:  # both tracked by the runtime, or one manual scope: the user's
                    continue
                if reached is None:
                    reached = _reached(walk, task)
                if id(earlier.node) in reached:
                    continue
                problems.append(_boundary_problem(task, earlier, a.buffer))
                break
        gate = _gate(task.node)
        if gate is not None and len(problems) == found:  # one problem per task
            for buffer in walk.access.buffers(gate):
                root = walk.access.buffer(buffer)[0]
                # the last writer before the task, and in a loop a later one of the same body (the
                # last writer when the next trip reads the gate)
                candidates = [last_writer.get(id(root)), *_carried_writers(walk, i, root)]
                for last in candidates:
                    if last is None or _looked_up(task, last, root, accessed):
                        continue
                    if reached is None:
                        reached = _reached(walk, task)
                    if id(last.node) not in reached:
                        problems.append(_gate_problem(task, last, root, carried=last is not candidates[0]))
                        break
                if len(problems) > found:
                    break
        for a in accessed:
            touching[id(a.buffer)] = task
            if a.writes:
                writers.setdefault(id(a.buffer), []).append(task)
                last_writer[id(a.buffer)] = task
    return problems


def _carried_writers(walk: _Walk, at: int, root: Var) -> list[_Task]:
    """The tasks after ``walk.tasks[at]`` in a loop around it that write ``root``: on the loop's next
    trip they wrote last before the task."""
    loops = set(walk.tasks[at].loops)
    if not loops:
        return []
    return [t for t in walk.tasks[at + 1:] if not t.host and loops.intersection(t.loops)
            and any(a.writes and a.buffer is root for a in walk.access.accesses(t.node))]


def _reached(walk: _Walk, task: _Task) -> set[int]:
    """The Submits whose TaskId may flow into the task's ``deps=``."""
    return set().union(*(_reach(walk, d) for d in task.deps)) if task.deps else set()


def _looked_up(task: _Task, writer: _Task, root: Var, accessed: list[Access]) -> bool:
    """Whether the runtime's tensor map orders ``task`` after ``writer`` of ``root``: both tracked, and the
    task reads ``root`` as an argument (a pure output is not looked up)."""
    return not task.manual and not writer.manual and any(a.reads and a.buffer is root for a in accessed)


def _gate(node: Call | Submit) -> Var | None:
    """The tensor a Submit's dispatch predicate reads an element of (``Gt(Cast(tensor.read(t, ...)), 0)``)."""
    predicate = node.predicate if isinstance(node, Submit) else None
    if not isinstance(predicate, BinaryExpr):
        return None
    for side in (predicate.left, predicate.right):
        read = side.operand if isinstance(side, Cast) else side
        if isinstance(read, Call) and read.op.name == "tensor.read" and isinstance(read.args[0], Var):
            return read.args[0]
    return None


def _boundary_problem(task: _Task, earlier: _Task, root: Var) -> DepProblem:
    where = f"{earlier.span.filename.rsplit('/', 1)[-1]}:{earlier.span.begin_line}"
    tensor = base_name(root.name_hint)
    kernel = earlier.node.op.name
    # a block's kernel has a name the user never wrote: name the block by its line instead
    named = f"the block at {where}" if earlier.block else f"'{kernel}' ({where})"
    writer = named if earlier.block else f"the task {named}"
    if task.manual:
        message = (f"this task in a manual scope touches '{tensor}', which {writer} outside the scope writes: "
                   "a task in a manual scope looks up no tensor, so nothing orders it after that task")
    else:
        message = (f"this task touches '{tensor}', which {writer} in a manual scope writes: a task in a "
                   "manual scope registers no tensor, so nothing orders this one after it")
    return DepProblem(message, task.span, _edge_hint(task, earlier))


def _edge_hint(task: _Task, earlier: _Task) -> str:
    """What to write so that ``task`` waits for ``earlier``: its TaskId in the task's ``deps=``."""
    where = f"{earlier.span.filename.rsplit('/', 1)[-1]}:{earlier.span.begin_line}"
    kernel = earlier.node.op.name
    named = f"the block at {where}" if earlier.block else f"'{kernel}' ({where})"
    deps = "the deps=[...] of this block's 'with' line" if task.block else "this task's deps=[...]"
    if isinstance(earlier.node, Submit):
        hint = f"add the TaskId of {named} to {deps}"
    elif earlier.block:
        hint = f"name the TaskId of {named} ('as tid' on its 'with' line) and add it to {deps}"
    else:
        hint = f"submit '{kernel}' with pl.submit(...) and add its TaskId to {deps}"
    if not isinstance(task.node, Submit) and not task.block:
        hint = f"make this call a pl.submit(...) with deps=[...]: {hint}"
    return hint


def _host_problem(access: _Task, earlier: _Task, root: Var) -> DepProblem:
    where = f"{earlier.span.filename.rsplit('/', 1)[-1]}:{earlier.span.begin_line}"
    tensor = base_name(root.name_hint)
    named = f"the block at {where}" if earlier.block else f"the task '{earlier.node.op.name}' ({where})"
    reads = access.node.op.name == "tensor.read"
    what, tracked = ("reads", "writers") if reads else ("writes", "tasks")
    message = (f"this {access.node.op.name} {what} '{tensor}', which {named} in a manual scope "
               f"{'writes' if reads else 'touches'}: the orchestration waits only for {tracked} the runtime tracks, "
               "and a task in a manual scope registers no tensor, so the element may be accessed before that task "
               "has finished")
    hint = ("write the tensor outside the manual scope (an automatically tracked task), or pass it to a kernel "
            "submitted with deps=[...] on the writer's TaskId and read the element there")
    return DepProblem(message, access.span, hint)


def _gate_problem(task: _Task, writer: _Task, root: Var, carried: bool = False) -> DepProblem:
    where = f"{writer.span.filename.rsplit('/', 1)[-1]}:{writer.span.begin_line}"
    tensor = base_name(root.name_hint)
    named = f"the block at {where}" if writer.block else f"the task '{writer.node.op.name}' ({where})"
    scope = " in a manual scope" if writer.manual else ""
    trip = " on the loop's previous trip" if carried else ""
    message = (f"this task's predicate reads '{tensor}', which {named}{scope} writes{trip}: the scheduler reads the gate "
               "element once the task's own dependencies are done, and nothing orders this task after that writer, "
               "so the predicate may read the element before it is written")
    return DepProblem(message, task.span, _edge_hint(task, writer))
