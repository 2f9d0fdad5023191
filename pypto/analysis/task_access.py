"""Which buffer each tensor argument of an orchestration task names, and how the task touches it.

The one account of "which buffer, and does this task read or write it" that the task graph's
automatic edges (:mod:`pypto.graph.flows`), AutoDeriveTaskDependencies and the manual-scope check
(:mod:`.task_deps`) share; each keeps its own flow over the accesses. A tensor's buffer is its root
(:mod:`.roots`) followed through views (``tensor.slice``/``reshape``/``view``/``transpose`` of a
tensor: its base) and through an ``if`` whose branches both yield that buffer. A ``tensor.slice``
with constant offsets and extents selects a box of its base; the box of a view of a view is nested.
A ``tensor.create(..., manual_dep=True)`` tensor is not tracked by the runtime: its user orders its
tasks, so it is no access here.

A loop carry is its initial buffer to the roots, but a carry whose trips yield another buffer
(``t, u = u, t``, or a tensor created in the body) may name any of them: each access through it is
one record per buffer it may name, marked not ``sure`` (its box unknown), so a user can treat it as
touching them all.
"""

from __future__ import annotations

from dataclasses import dataclass

from pypto.ir.enums import ArgDirection
from pypto.ir.expr import Call, ConstInt, Expr, GlobalVar, MakeTuple, Submit, Var
from pypto.ir.function import Function, Program
from pypto.ir.stmt import AssignStmt, ForStmt, IfStmt, Stmt, WhileStmt, YieldStmt
from pypto.ir.transforms import flatten_to_stmts
from pypto.ir.types import TensorType

from .roots import VIEW_OPS, Roots
from .call_args import argument

# A region of a buffer: per axis the half-open range [lo, hi).
Box = tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class Access:
    """One tensor argument of a task call: the buffer it is part of, the box of it (None: all of it,
    or not known), the argument's direction and the argument itself."""

    buffer: Var
    box: Box | None
    direction: ArgDirection
    arg: Var
    sure: bool = True  # False: the argument may name another buffer (a loop carry that takes several)

    @property
    def reads(self) -> bool:
        """Whether the task reads the buffer."""
        return self.direction.reads

    @property
    def writes(self) -> bool:
        """Whether the task writes the buffer."""
        return self.direction.writes


class TaskAccess(Roots):
    """The roots of a function (or a scope body) with its views, if results and untracked tensors:
    the buffer behind a tensor variable and the accesses of a task call."""

    def __init__(self, func: Function | Stmt, program: Program) -> None:
        """Record the views, if aliases and ``manual_dep=True`` tensors of ``func`` in one walk."""
        self.views: dict[Var, tuple[Var, Box | None]] = {}  # a view -> (its base, its box in it)
        self.aliases: dict[Var, Var] = {}  # an if's tensor result -> the tensor both branches yield
        self.untracked: set[Var] = set()  # tensors created with manual_dep=True
        self.may: dict[Var, tuple[Var, ...]] = {}  # a carry or loop result that may name several buffers
        self._loops: list[ForStmt | WhileStmt] = []
        super().__init__(func, program)
        self._carries()

    def leaf(self, s: Stmt, state: None) -> None:
        super().leaf(s, state)
        if not isinstance(s, AssignStmt) or not isinstance(s.value, Call) or isinstance(s.value.op, GlobalVar):
            return
        name = s.value.op.name
        if name == "tensor.create" and s.value.kwargs.get("manual_dep"):
            self.untracked.add(s.var)
        elif name in VIEW_OPS and s.value.args and isinstance(s.value.args[0], Var):
            self.views[s.var] = (s.value.args[0], _box(s.value) if name == "tensor.slice" else None)

    def exit_loop(self, s: ForStmt | WhileStmt, before: None, end: None) -> None:
        self._loops.append(s)

    def join(self, s: IfStmt, before: None, then_end: None, else_end: None) -> None:
        for rv, then, other in zip(s.return_vars, _yielded(s.then_body), _yielded(s.else_body)):
            tensors = isinstance(then, Var) and isinstance(other, Var) and isinstance(rv.type, TensorType)
            if tensors and self.buffer(then)[0] is self.buffer(other)[0]:
                self.aliases[rv] = then

    def _carries(self) -> None:
        """The buffers each tensor carry may name: its initial one and those its trips yield, to a fixed
        point over every loop (a yield of another carry brings all of that carry's)."""
        changed = True
        while changed:
            changed = False
            for loop in self._loops:
                for it, rv, value in zip(loop.iter_args, loop.return_vars, _yielded(loop.body)):
                    if not isinstance(it.type, TensorType) or not isinstance(value, Var) \
                            or not isinstance(it.initValue, Var):
                        continue
                    now = self.buffers(it)
                    found = _ordered([*now, *self.buffers(it.initValue), *self.buffers(value)])
                    if found != now and len(found) > 1:
                        self.may[it] = self.may[rv] = found
                        changed = True

    def buffers(self, var: Var) -> tuple[Var, ...]:
        """Every buffer a tensor variable may name (more than one for a carry that takes several)."""
        while var not in self.may:
            step = self._step(var)
            if step is None:
                return (var,)
            var = step
        return self.may[var]

    def _step(self, var: Var) -> Var | None:
        """The variable ``var`` aliases or views, if any."""
        if var in self.aliases:
            return self.aliases[var]
        if var in self.edges:
            return self.edges[var]
        return self.views[var][0] if var in self.views else None

    def buffer(self, var: Var) -> tuple[Var, Box | None]:
        """The buffer a tensor variable is part of and its box in it (None: all of it, or not known);
        a carry's initial buffer (:meth:`buffers` has every one it may name)."""
        box: Box | None = None
        known = True
        while True:
            var = self.root(self.aliases.get(var, var))
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

    def accesses(self, call: Call | Submit) -> list[Access]:
        """The tensors a task call may read or write, in argument order: each tensor argument whose
        direction is neither ``no_dep`` nor ``scalar``, unless its buffer is untracked."""
        out: list[Access] = []
        for arg, direction in zip(call.args, list(call.attrs.get("arg_directions") or [])):
            if not isinstance(arg, Var) or not isinstance(arg.type, TensorType):
                continue
            direction = ArgDirection(direction)
            if direction in (ArgDirection.NoDep, ArgDirection.Scalar):
                continue
            several = self.buffers(arg)
            if len(several) > 1:
                out += [Access(b, None, direction, arg, sure=False) for b in several if b not in self.untracked]
                continue
            buffer, box = self.buffer(arg)
            if buffer not in self.untracked:
                out.append(Access(buffer, box, direction, arg))
        return out


def _ordered(vs: list[Var]) -> tuple[Var, ...]:
    """``vs`` without repeats, in first-met order."""
    return tuple(dict.fromkeys(vs))


def _yielded(body: Stmt | None) -> list[Expr | None]:
    """The values the trailing yield of a branch or loop body gives (empty without one)."""
    stmts = flatten_to_stmts(body) if body is not None else []
    return list(stmts[-1].value) if stmts and isinstance(stmts[-1], YieldStmt) else []


def _box(call: Call) -> Box | None:
    """The box a ``tensor.slice`` selects in its source, when its offsets and extents are constants."""
    valid, shape, offset = argument(call, "valid_shape"), argument(call, "shape"), argument(call, "offset")
    extents = valid if isinstance(valid, MakeTuple) and valid.elements else shape
    if not isinstance(extents, MakeTuple) or not isinstance(offset, MakeTuple):
        return None
    dims = [(o.value, o.value + n.value) for o, n in zip(offset.elements, extents.elements)
            if isinstance(o, ConstInt) and isinstance(n, ConstInt)]
    return tuple(dims) if len(dims) == len(extents.elements) == len(offset.elements) else None
