"""The task sites and frames of an Orchestration function: what the task graph draws, before its edges.

One walk over the body's structure in program order: every runtime scope, loop and ``if`` branch is
a :class:`~pypto.graph.model.Frame`; every kernel call, ``pl.submit`` and ``task_dummy`` a
:class:`~pypto.graph.model.Task` (numbered in program order) in the innermost frame around it.
"""

from __future__ import annotations

from pypto.analysis.loops import const_trip_count
from pypto.codegen.cpp_exprs import INFIX
from pypto.codegen.groups import group_calls
from pypto.codegen.orchestration import spmd_kernel
from pypto.codegen.orchestration_predicate import PREDICATE_OPS, dispatch_predicate
from pypto.ir.enums import ForKind, FunctionType
from pypto.ir.errors import PyptoError
from pypto.ir.expr import Call, ConstInt, Expr, GlobalVar, Submit, Var
from pypto.ir.function import Function, Program
from pypto.ir.printer import python_print
from pypto.ir.stmt import AssignStmt, EvalStmt, ForStmt, IfStmt, RuntimeScopeStmt, SeqStmts, Stmt, WhileStmt

from .model import Frame, FrameKind, Task, TaskGraph


def task_call(s: Stmt) -> Call | Submit | None:
    """The task ``s`` submits (a kernel call, a submit, a ``system.task_dummy``), or None."""
    value = s.value if isinstance(s, AssignStmt) else s.expr if isinstance(s, EvalStmt) else None
    if isinstance(value, (Call, Submit)) and (isinstance(value.op, GlobalVar) or value.op.name == "system.task_dummy"):
        return value
    return None


def name_of(var: Var) -> str:
    """A variable's name without the suffixes the passes add (``acc__ssa_v3`` is ``acc``)."""
    return var.name_hint.split("__")[0] or var.name_hint


class Sites:
    """The frames and tasks of ``func``; ``task[id(stmt)]`` is the task a statement submits."""

    def __init__(self, program: Program, func: Function) -> None:
        self.program = program
        self.graph = TaskGraph(func.name, frames=[Frame(0, FrameKind.FUNCTION, func.name, None)])
        self.task: dict[int, int] = {}
        self.stmt(func.body, 0)

    def stmt(self, s: Stmt | None, frame: int) -> None:
        if s is None:
            return
        if isinstance(s, SeqStmts):
            for child in s.stmts:
                self.stmt(child, frame)
        elif isinstance(s, RuntimeScopeStmt):
            kind, label = (FrameKind.MANUAL, "manual scope") if s.manual else (FrameKind.SCOPE, "PTO2 scope")
            self.stmt(s.body, self.frame(kind, label, frame))
        elif isinstance(s, ForStmt):
            word = "parallel" if s.kind is ForKind.Parallel else "for"
            label = f"{word} {name_of(s.loop_var)} in range({_range(s)})"
            self.stmt(s.body, self.frame(FrameKind.LOOP, label, frame, const_trip_count(s)))
        elif isinstance(s, WhileStmt):
            self.stmt(s.body, self.frame(FrameKind.LOOP, f"while {python_print(s.condition)}", frame))
        elif isinstance(s, IfStmt):
            cond = python_print(s.condition)
            self.stmt(s.then_body, self.frame(FrameKind.BRANCH, f"if {cond}", frame))
            if s.else_body is not None:
                self.stmt(s.else_body, self.frame(FrameKind.BRANCH, f"else (not {cond})", frame))
        elif isinstance(getattr(s, "body", None), Stmt):  # other scopes
            self.stmt(s.body, frame)
        else:
            call = task_call(s)
            if call is not None:
                self.task[id(s)] = len(self.graph.tasks)
                self.graph.tasks.append(self.describe(len(self.graph.tasks), call, s, frame))

    def frame(self, kind: FrameKind, label: str, parent: int, trips: int | None = None) -> int:
        self.graph.frames.append(Frame(len(self.graph.frames), kind, label, parent, trips))
        return len(self.graph.frames) - 1

    def describe(self, n: int, call: Call | Submit, s: Stmt, frame: int) -> Task:
        """The task a statement submits: its kernel, core type, block count and predicate."""
        line = s.span.begin_line if s.span is not None and s.span.begin_line > 0 else None
        if not isinstance(call.op, GlobalVar):  # system.task_dummy
            barrier = bool(call.attrs.get("dummy_task"))
            return Task(n, "phase fence barrier" if barrier else "task_dummy", "dummy", frame, line, barrier=barrier)
        target = self.program.get_function(call.op.name)
        if target is None:
            raise PyptoError(f"the orchestration calls '{call.op.name}', which is not a function of the program")
        blocks = call.core_num if isinstance(call, Submit) else call.attrs.get("core_num")
        if target.func_type is FunctionType.Spmd:
            if blocks is None:
                blocks = target.attrs.get("core_num")
            target = spmd_kernel(self.program, target)[0]
        if target.func_type is FunctionType.Group:
            kinds = {k.func_type for k, _ in group_calls(self.program, target)}
            core = "mixed" if kinds == {FunctionType.AIC, FunctionType.AIV} else "Group"
        else:
            core = target.func_type.name  # AIV or AIC
        if isinstance(blocks, ConstInt):
            blocks = blocks.value
        shown = None if blocks is None else (str(blocks) if isinstance(blocks, int) else python_print(blocks))
        predicate = call.predicate if isinstance(call, Submit) else None
        return Task(n, target.name, core, frame, line, blocks=shown,
                    predicate=None if predicate is None else _predicate(predicate))


def _range(loop: ForStmt) -> str:
    """``range``'s arguments as a user writes them (``4``, not ``0, 4, 1``)."""
    start, stop, step = (python_print(b) for b in (loop.start, loop.stop, loop.step))
    if step != "1":
        return f"{start}, {stop}, {step}"
    return stop if start == "0" else f"{start}, {stop}"


def _predicate(predicate: Expr) -> str:
    """A dispatch predicate as the scheduler reads it: ``rc[0, 1] > 0`` (a mirrored one flipped)."""
    found = dispatch_predicate(predicate)
    compare = next(kind for kind, name in PREDICATE_OPS.items() if name == found.op)
    indices = ", ".join(python_print(i) for i in found.indices)
    return f"{name_of(found.tensor)}[{indices}] {INFIX[compare]} {found.target}"
