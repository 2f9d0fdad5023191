"""The tensor windows a kernel reads and writes, bounded in terms of its parameters (docs/simulator.md#bounds).

``kernel_windows(kernel)`` lists, for every ``tile.load`` / ``tile.store`` of a tensor parameter, the
least first index and the greatest end index of the window on each axis over every run of the
kernel body, as scalar expressions over the kernel's scalar parameters, the dynamic dimensions of
its tensor parameters and :data:`BLOCK_NUM`. The orchestration substitutes the values it passes
and checks each window against the tensor before it submits the task.

Bounds come from interval arithmetic: a loop variable spans its first to its last value, a scalar
assignment its value's bounds, ``get_block_idx`` spans ``[0, BLOCK_NUM)``, a while-loop counter
that only grows and that the condition keeps below a bound spans its start to that bound. Anything
else (a value read from a tile, another while-loop carry, a symbolic step) leaves the window unbounded
(``Window.bounded`` is False). A window inside loops and ifs whose conditions are expressible in
the parameters carries them in ``when``: it is only checked when the access can happen.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from pypto.ir import op_registry
from pypto.ir import scalar_ops as ops
from pypto.ir.datatype import DataType
from pypto.ir.expr import Add, And, Call, Cast, ConstInt, Expr, IterArg, Le, Lt, MakeTuple, Max, Min, Neg, Var
from pypto.ir.function import Function
from pypto.ir.span import Span
from pypto.ir.stmt import AssignStmt, EvalStmt, ForStmt, IfStmt, SeqStmts, Stmt, WhileStmt, YieldStmt
from pypto.ir.type_base import ScalarType
from pypto.ir.types import TensorType, TileType, effective_valid_shape
from pypto.util import IdentityCache

from .call_args import argument
from .intervals import RULES, Interval, add, distribute, index_const, last_value, negate, subtract

# The number of blocks a kernel runs on (its launch's core_num; 1 for a plain task).
BLOCK_NUM = Var("block_num", ScalarType(DataType.INDEX))


@dataclass(frozen=True)
class Window:
    """One access of a kernel to its tensor parameter ``param`` (an index into the kernel's params).

    ``lo[a]`` / ``hi[a]`` bound the first index and the end (exclusive) of the window on axis ``a``
    (None when unbounded); ``when`` lists conditions that all hold whenever the access happens.
    """

    param: int
    op: str
    lo: tuple[Expr | None, ...]
    hi: tuple[Expr | None, ...]
    when: tuple[Expr, ...]
    span: Span

    @property
    def bounded(self) -> bool:
        """True when every axis has both bounds."""
        return all(b is not None for b in self.lo + self.hi)


def describe_window(kernel: str, where: str, op: str, tensor: str, axes: list[str], shape: list[str]) -> str:
    """The message of a window outside its tensor, shared by the run-time guard and the check before a run:
    ``task 'k' (prog.py:27) reads x[64:80, 0:64] outside its shape [64, 64]``."""
    name = _WINDOWS[op][0]
    writes = name in op_registry.get_entry(op).written_params()
    verb = "writes" if writes else "reads"
    return f"task '{kernel}'{where} {verb} {tensor}[{', '.join(axes)}] outside its shape [{', '.join(shape)}]"


def kernel_windows(kernel: Function) -> list[Window]:
    """The windows of ``kernel``'s tensor parameters, in program order (cached per function)."""
    found = _CACHE.get(kernel)
    if found is None:
        walker = _Walker(kernel)
        walker.stmt(kernel.body, ())
        found = _CACHE.put(kernel, walker.windows)
    return found


_CACHE: IdentityCache[Function, list[Window]] = IdentityCache(1_000)


def _plain_int(e: Expr) -> bool:
    """An integer scalar that is no min/max: ``distribute`` leaves a sum of two of them as it is."""
    kind = type(e)
    return kind is not Min and kind is not Max and isinstance(e.type, ScalarType) and e.type.dtype.is_int()


def _passed_over(s: Stmt) -> bool:
    """True for a statement of a block that accesses no tensor window and defines no scalar or tensor
    (most are tile ops): told by exact classes, before assign and access would test it step by step."""
    kind = type(s)
    if kind is AssignStmt:
        value = s.value
        return type(value) is Call and type(s.var.type) is TileType and value.op.name not in _WINDOWS
    if kind is EvalStmt:
        expr = s.expr
        return type(expr) is Call and expr.op.name not in _WINDOWS
    return False


class _Walker:
    def __init__(self, kernel: Function) -> None:
        self.windows: list[Window] = []
        self.tensors: dict[Var, int] = {}  # tensor variable -> the parameter it is (or aliases)
        self.env: dict[Var, Interval] = {}  # scalar variable -> its bounds
        self.leaves: set[Var] = {BLOCK_NUM}  # variables that stand for themselves in the bounds
        for k, p in enumerate(kernel.params):
            if isinstance(p.type, TensorType):
                self.tensors[p] = k
                self.leaves.update(d for d in p.type.shape if isinstance(d, Var))
            else:
                self.leaves.add(p)

    # ---- statements ------------------------------------------------------------------------------

    def stmt(self, s: Stmt | None, when: tuple[Expr, ...]) -> None:
        if s is None:
            return
        if isinstance(s, SeqStmts):
            for child in s.stmts:
                if not _passed_over(child):
                    self.stmt(child, when)
        elif isinstance(s, AssignStmt):
            self.assign(s.var, s.value, when)
        elif isinstance(s, EvalStmt):
            self.access(s.expr, None, when)
        elif isinstance(s, ForStmt):
            self.loop(s, when)
        elif isinstance(s, IfStmt):
            self.branch(s, when)
        elif isinstance(s, WhileStmt):
            self.carries(s.iter_args, s.return_vars)
            self.counters(s)
            self.stmt(s.body, when)
        elif isinstance(getattr(s, "body", None), Stmt):  # scopes
            self.stmt(s.body, when)

    def assign(self, var: Var, value: Expr, when: tuple[Expr, ...]) -> None:
        if isinstance(var.type, TensorType):
            root = value if isinstance(value, Var) else None
            if isinstance(value, Call):
                self.access(value, var, when)
                return
            if root in self.tensors:
                self.tensors[var] = self.tensors[root]
            return
        if isinstance(var.type, ScalarType):
            bounds = self.bounds(value)
            if bounds is not None:
                self.env[var] = bounds
        if isinstance(value, Call):
            self.access(value, None, when)

    def access(self, call: Expr, result: Var | None, when: tuple[Expr, ...]) -> None:
        if not isinstance(call, Call) or call.op.name not in _WINDOWS:
            return
        tensor, offsets, extents = _WINDOWS[call.op.name][1](call)
        param = self.tensors.get(tensor) if isinstance(tensor, Var) else None
        if param is None:
            return
        if result is not None:
            self.tensors[result] = param
        rank = len(tensor.type.shape) if isinstance(tensor.type, TensorType) else 0
        if len(offsets) != rank or len(extents) != rank:  # a window the op's operands do not spell out
            offsets, extents = [None] * rank, [None] * rank
        lo: list[Expr | None] = []
        hi: list[Expr | None] = []
        for off, ext in zip(offsets, extents):
            first = None if off is None else self.bounds(off)
            lo.append(None if first is None else first[0])
            if type(off) is ConstInt and type(ext) is ConstInt and off.dtype == ext.dtype and off.dtype.is_int():
                # what the bounds of their sum fold to, without building it (most windows are constant)
                hi.append(index_const(off.value + ext.value))
                continue
            hi.append(None if off is None or ext is None else self.end(off, ext, first))
        self.windows.append(Window(param, call.op.name, tuple(lo), tuple(hi), when, call.span))

    def end(self, off: Expr, ext: Expr, first: Interval | None) -> Expr | None:
        """The greatest end ``off + ext`` of a window axis (``first``: the bounds of ``off``)."""
        if _plain_int(off) and _plain_int(ext):
            # what the bounds of the sum below come to, without building it: no min/max to distribute,
            # and the cast ops.add puts between ints of two widths is one bounds reads through
            size = self.bounds(ext)
            return None if first is None or size is None else add(first[1], size[1])
        end = self.bounds(distribute(ops.add(off, ext)))
        return None if end is None else end[1]

    def loop(self, s: ForStmt, when: tuple[Expr, ...]) -> None:
        self.carries(s.iter_args, s.return_vars)
        span = self.loop_span(s)
        inner = when
        if span is not None:
            self.env[s.loop_var] = span[0]
            if span[1] is not None:
                inner = (*when, span[1])
        self.stmt(s.body, inner)

    def loop_span(self, s: ForStmt) -> tuple[Interval, Expr | None] | None:
        """The loop variable's bounds, and the loop's non-empty condition when it is expressible."""
        step = s.step.value if isinstance(s.step, ConstInt) else None
        start, stop = self.bounds(s.start), self.bounds(s.stop)
        if not step or start is None or stop is None:
            return None
        last = self.bounds(last_value(s.start, s.stop, step))
        if last is None:
            return None
        if step > 0:
            nonempty, span = ops.lt(s.start, s.stop), (start[0], last[1])
        else:
            nonempty, span = ops.gt(s.start, s.stop), (last[0], start[1])
        return span, (nonempty if self.expressible(nonempty) else None)

    def branch(self, s: IfStmt, when: tuple[Expr, ...]) -> None:
        cond = s.condition if self.expressible(s.condition) else None
        self.stmt(s.then_body, when if cond is None else (*when, cond))
        self.stmt(s.else_body, when if cond is None else (*when, ops.not_(cond)))
        for k, rv in enumerate(s.return_vars):
            yielded = _yielded(s.then_body, k)
            if isinstance(rv.type, TensorType) and isinstance(yielded, Var) and yielded in self.tensors:
                self.tensors[rv] = self.tensors[yielded]

    def carries(self, iter_args: list[IterArg], return_vars: list[Var]) -> None:
        """Tensor carries alias their initial value; scalar carries are unbounded (not in ``env``)."""
        for ia, rv in zip(iter_args, return_vars):
            init = ia.initValue
            if isinstance(ia.type, TensorType) and isinstance(init, Var) and init in self.tensors:
                self.tensors[ia] = self.tensors[rv] = self.tensors[init]

    def counters(self, s: WhileStmt) -> None:
        """A scalar carry that never decreases and that the condition keeps below a bound (a conjunct
        ``c < e`` or ``c <= e``) spans its initial value to that bound in the body: the counter of a
        ``for`` loop with a ``break``, which CtrlFlowTransform turns into such a while loop."""
        definitions = _definitions(s.body)
        guards = [c for c in _conjuncts(s.condition) if isinstance(c, (Lt, Le))]
        for k, ia in enumerate(s.iter_args):
            start = self.bounds(ia.initValue) if isinstance(ia.type, ScalarType) else None
            if start is None or not _grows(ia, _yielded(s.body, k), definitions):
                continue
            for guard in (g for g in guards if g.left is ia):
                stop = self.bounds(guard.right)
                if stop is not None:
                    last = stop[1] if isinstance(guard, Le) else subtract(stop[1], index_const(1))
                    self.env[ia] = (start[0], last)
                    break

    # ---- expressions -----------------------------------------------------------------------------

    def expressible(self, e: Expr) -> bool:
        """True when ``e`` is built from leaves and constants only (printable by the caller)."""
        stack = [e]
        while stack:
            node = stack.pop()
            if isinstance(node, Var):
                if node not in self.leaves:
                    return False
            elif isinstance(node, Call):
                return False
            else:
                stack.extend(c for c in (getattr(node, "left", None), getattr(node, "right", None),
                                         getattr(node, "operand", None)) if c is not None)
        return True

    def bounds(self, e: Expr) -> Interval | None:
        """``(least, greatest)`` value of the integer expression ``e``, or None when unknown."""
        if isinstance(e, ConstInt):
            return e, e
        if isinstance(e, Var):
            if e in self.leaves:
                return e, e
            return self.env.get(e)
        if isinstance(e, Cast):
            return self.bounds(e.operand) if e.dtype.is_int() or e.dtype == DataType.INDEX else None
        if isinstance(e, Neg):
            b = self.bounds(e.operand)
            return None if b is None else (negate(b[1]), negate(b[0]))
        if isinstance(e, Call):
            return _BLOCK_CALLS[e.op.name]() if e.op.name in _BLOCK_CALLS else None
        left, right = getattr(e, "left", None), getattr(e, "right", None)
        rule = RULES.get(type(e))
        if rule is None or left is None or right is None:
            return None
        a, b = self.bounds(left), self.bounds(right)
        if a is None or b is None:
            return None
        return rule(a, b)


_BLOCK_CALLS: dict[str, Callable[[], Interval]] = {
    "tile.get_block_idx": lambda: (index_const(0), subtract(BLOCK_NUM, index_const(1))),
    "tile.get_block_num": lambda: (BLOCK_NUM, BLOCK_NUM),
    "tile.get_subblock_idx": lambda: (index_const(0), index_const(1)),
}



# ---- the windows of each op ----------------------------------------------------------------------

# A window: the accessed tensor, then per axis the first index and the extent (None: decided by data).
_Region = tuple[Expr, list[Expr | None], list[Expr | None]]


def _elements(e: Expr | None) -> list[Expr | None]:
    return list(e.elements) if isinstance(e, MakeTuple) else []


def _load(call: Call) -> _Region:
    """What a load reads: the valid region of its result (the requested one clipped, with clamp)."""
    offsets = _elements(argument(call, "offsets"))
    valid = list(effective_valid_shape(call.type)) if isinstance(call.type, TileType) else []
    if len(valid) != len(offsets):  # flatten=True: the result merges the leading axes
        valid = _elements(argument(call, "valid_shape"))
    return argument(call, "tensor"), offsets, valid


def _store(call: Call) -> _Region:
    """What a store writes: its ``shapes``, else the tile's valid region."""
    shapes = argument(call, "shapes")
    extents = _elements(shapes) if shapes is not None else list(effective_valid_shape(call.args[0].type))
    return argument(call, "output_tensor"), _elements(argument(call, "offsets")), extents


def _gather_row(call: Call) -> _Region:
    """What a row gather reads from ``src``: ``shapes`` at ``src_offset`` (transposed: left unbounded)."""
    src = argument(call, "src")
    offsets = _elements(argument(call, "src_offset"))
    if call.kwargs.get("transpose"):
        return src, [None] * len(offsets), [None] * len(offsets)
    return src, offsets, _elements(argument(call, "shapes"))


def _element(call: Call) -> _Region:
    """A scalar read or write: one element at ``indices``."""
    indices = _elements(argument(call, "indices"))
    return argument(call, "tensor"), indices, [index_const(1) for _ in indices]


def _cacheinvalid(call: Call) -> _Region:
    """A cache invalidation of a window (``tensor, shapes, offsets``); without operands, of no tensor."""
    tensor = argument(call, "tensor")
    return tensor, _elements(argument(call, "offsets")), _elements(argument(call, "shapes"))


def _indexed(tensor_param: str) -> Callable[[Call], _Region]:
    """An access at indices held in a tile: nothing bounds it before the kernel runs."""
    def region(call: Call) -> _Region:
        tensor = argument(call, tensor_param)
        rank = len(tensor.type.shape) if isinstance(tensor.type, TensorType) else 0
        return tensor, [None] * rank, [None] * rank
    return region


def _mgather(call: Call) -> _Region:
    """What MGATHER reads: with ``gather_oob`` clamp, wrap or zero every index lands inside the table, so
    the whole table bounds it; with ``'undefined'`` an index reads wherever it points (unbounded)."""
    if call.kwargs.get("gather_oob", "undefined") == "undefined":
        return _indexed("mem")(call)
    table = argument(call, "mem")
    shape = list(table.type.shape)
    return table, [index_const(0)] * len(shape), shape


# op -> (the tensor parameter it accesses, its window).
_WINDOWS: dict[str, tuple[str, Callable[[Call], _Region]]] = {
    "tile.load": ("tensor", _load),
    "tile.store": ("output_tensor", _store),
    "tile.gather_row": ("src", _gather_row),
    "tensor.read": ("tensor", _element),
    "tensor.write": ("tensor", _element),
    "system.cacheinvalid": ("tensor", _cacheinvalid),
}
# Ops accessing their tensor at indices held in a tile (op -> that tensor parameter): unless the op bounds
# them (MGATHER's gather_oob), nothing bounds the window before the kernel runs, so the orchestration
# refuses them (docs/simulator.md#bounds).
_INDEXED: dict[str, str] = {"tile.mgather": "mem", "tile.mscatter": "output_tensor"}
INDEX_DRIVEN = frozenset(_INDEXED)
_WINDOWS.update({"tile.mgather": ("mem", _mgather), "tile.mscatter": ("output_tensor", _indexed("output_tensor"))})

# Ops that take a kernel's tensor but access no window of its elements.
NO_WINDOW: dict[str, str] = {
    "tensor.dim": "reads the shape only",
    "system.set_ffts": "its type check requires the 256 elements the FFTS workspace uses",
    "system.syncall": "a2a3sim's CPU model of a soft syncall leaves the workspace alone",
}

def _conjuncts(e: Expr) -> list[Expr]:
    return [*_conjuncts(e.left), *_conjuncts(e.right)] if isinstance(e, And) else [e]


def _definitions(body: Stmt) -> dict[Var, AssignStmt | tuple[IfStmt, int]]:
    """Where each scalar of a loop body (outside nested loops) gets its value: an assignment, or
    the ``k``-th result of an if."""
    found: dict[Var, AssignStmt | tuple[IfStmt, int]] = {}
    todo = [body]
    while todo:
        s = todo.pop()
        if isinstance(s, SeqStmts):
            todo.extend(s.stmts)
        elif isinstance(s, AssignStmt):
            found[s.var] = s
        elif isinstance(s, IfStmt):
            found.update({rv: (s, k) for k, rv in enumerate(s.return_vars)})
            todo.extend(b for b in (s.then_body, s.else_body) if b is not None)
    return found


def _grows(counter: IterArg, value: Expr | None, definitions: dict[Var, AssignStmt | tuple[IfStmt, int]]) -> bool:
    """True when ``value`` is ``counter`` plus a constant >= 0, through assignments and if results."""
    if value is counter:
        return True
    if isinstance(value, Add):
        step = value.right if value.left is counter else value.left if value.right is counter else None
        return isinstance(step, ConstInt) and step.value >= 0
    where = definitions.get(value) if isinstance(value, Var) else None
    if isinstance(where, AssignStmt):
        return _grows(counter, where.value, definitions)
    if isinstance(where, tuple):
        branch, k = where
        return all(b is not None and _grows(counter, _yielded(b, k), definitions)
                   for b in (branch.then_body, branch.else_body))
    return False


def _yielded(body: Stmt, k: int) -> Expr | None:
    last = body.stmts[-1] if isinstance(body, SeqStmts) and body.stmts else body
    if isinstance(last, YieldStmt) and k < len(last.value):
        return last.value[k]
    return None
