"""InitMemRef: a MemRef for every on-chip tile of a kernel, and the allocations behind them
(docs/passes.md#initmemref)."""

from __future__ import annotations

import functools

from pypto.languages.invariants import (
    HasMemRefs,
    SSAForm,
)
from pypto.languages.invariants.kernels import TPOPS
from pypto.languages.memref import memref
from pypto.languages.split_core import split_core

from pypto.analysis import op_name
from pypto.ir.datatype import DataType
from pypto.ir.enums import MemorySpace
from pypto.ir.expr import Call, ConstInt, Op, Var
from pypto.ir.function import Function, Program
from pypto.ir.memref import MemRef
from pypto.ir.op_registry import Effect, get_entry, lookup
from pypto.ir.parts import copy_parts
from pypto.ir.span import Span
from pypto.ir.stmt import AssignStmt, ForStmt, IfStmt, ScopeStmt, SeqStmts, Stmt, WhileStmt, YieldStmt
from pypto.ir.transforms import flatten_to_stmts
from pypto.ir.type_base import PtrType
from pypto.ir.types import TileType

from pypto.transform.context import PassContext
from .memory_lifetimes import lifetimes
from pypto.transform.memref_util import (
    KERNELS, MemRefMemo, Prototype, Retype, block_like, new_memref, on_chip, tile_nbytes,
)
from pypto.transform.rewrite import RewritePass

# The offset of a MemRef whose allocation has no address yet.
UNASSIGNED = -1
_ALLOC = get_entry("tile.alloc").op
_NO_SPAN = Span.unknown()
# Read once: Enum members (and their names) go through Python-level lookups on 3.11, once per tile here.
_WRITE, _READ_WRITE = Effect.WRITE, Effect.READ_WRITE
_PREFIX = {space: f"mem_{space.name.lower()}_" for space in MemorySpace}


def unassigned(span: Span) -> ConstInt:
    """The byte offset of a MemRef before AllocateMemoryAddr."""
    return ConstInt(UNASSIGNED, DataType.INT64, span)


@functools.cache
def _index(n: int) -> ConstInt:
    """One shared INDEX constant per value: constants are immutable, and two per allocation were a
    fifth of this pass's time."""
    return ConstInt(n, DataType.INDEX, _NO_SPAN)


def alloc_call(space: MemorySpace, size: int, span: Span) -> Call:
    """``pl.tile.alloc(space, size)``, the Call its builder makes, built directly: the builder's
    argument binding was a third of this pass's time (the result type is always ``Ptr``)."""
    return Call(op=_ALLOC, args=[_index(int(space)), _index(size)], type=PtrType.get(), span=span)


# The unassigned offset and the parts of an allocation statement (the MemRefs: memref_util.new_memref).
_UNASSIGNED: Prototype[ConstInt] = Prototype(lambda: unassigned(_NO_SPAN))
_BASE: Prototype[Var] = Prototype(lambda: Var("mem", PtrType.get(), _NO_SPAN))
_ALLOC_CALL: Prototype[Call] = Prototype(lambda: alloc_call(MemorySpace.Vec, 0, _NO_SPAN))
_ALLOC_STMT: Prototype[AssignStmt] = Prototype(
    lambda: AssignStmt(Var("mem", PtrType.get(), _NO_SPAN), alloc_call(MemorySpace.Vec, 0, _NO_SPAN), _NO_SPAN))


def allocation(name: str, space: MemorySpace, size: int, span: Span) -> AssignStmt:
    """``name: pl.Ptr = pl.tile.alloc(space, size)``, the statement allocating a buffer."""
    base = _BASE.make({"name_hint": name, "span": span})
    call = _ALLOC_CALL.make({"args": [_index(int(space)), _index(size)], "span": span})
    return _ALLOC_STMT.make({"var": base, "value": call, "span": span})


class InitMemRef(RewritePass):
    """Give every on-chip tile variable of an AIV/AIC function a MemRef and allocate its buffer.

    before:  ta: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, ...)
             tc: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.add(ta, tb)
             acc: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(acc0, l, r)
    after:   mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
             ...
             ta: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_0, pl.const(-1, pl.INT64), 16384), pl.Mem.Vec] = ...
             acc: pl.Tile[[64, 64], pl.FP32, <acc0's MemRef>, pl.Mem.Acc] = pl.tile.matmul_acc(acc0, l, r)

    Sharing: a view (reshape, slice) shares its source's MemRef, an op writing a tile argument in place
    (``matmul_acc``, ``tile.write``) shares that argument's, ``a = b`` shares ``b``'s; a loop's
    iter_arg shares its init's and its return var its yielded value's; an if's return var shares
    the value the then-branch yields. Such a take-over is refused (PassError) when the old value
    is still read after the new one is written (a read in the other branch of an if that makes an
    in-place update in one branch never is), or when one init starts two carries: copying it
    out is not done here, the user copies it with ``pl.move``. Tiles popped from a pipe (and their
    views) get none. Each other tile gets a fresh ``mem_<space>_<n>`` allocation of its size (§4.21; Acc rows padded);
    offsets stay unassigned (-1) until AllocateMemoryAddr. Variables are still defined once, but
    several now name one buffer, so SSAForm is given up.
    """

    source = split_core
    target = memref
    produces = frozenset({HasMemRefs})
    invalidates = frozenset({SSAForm})

    def run_function(self, func: Function, program: Program) -> Function:
        if func.func_type not in KERNELS:
            return func
        plan = _Plan(func)
        plan.stmts(func.body)
        if not plan.types:
            return func
        run = Retype(plan.types)
        run.start(func, program)
        # The body only: parameters and return types keep their types. One rebuild with the
        # allocations in front (the lifetimes then count them too: every number moves alike).
        stmts = run.block(flatten_to_stmts(func.body))
        # A function derives nothing from its body: the copy needs no validation (as Rewrite.function).
        out = copy_parts(func, {"body": block_like(func.body, [*plan.allocs, *stmts])})
        # The remap holds each retyped variable's new one (every tile the checks look at is retyped).
        _check_shares(out, plan.shares, run.remap.maps[-1], plan.aliases())
        return out


class _Plan:
    """Walks a kernel in order and decides each tile variable's MemRef."""

    def __init__(self, func: Function) -> None:
        self.func = func
        self.platform = PassContext.current().platform
        self.types: dict[Var, TileType] = {}
        self.allocs: list[Stmt] = []
        self.piped: set[Var] = set()
        self.count = 0
        span = func.span
        self.offset = _UNASSIGNED.make({"span": span})  # shared by every MemRef of the kernel
        # (new var, var whose buffer it takes over, why, span): checked against lifetimes afterwards.
        self.shares: list[tuple[Var, Var, str, Span]] = []
        # A view (or a copy ``a = b``) and the tile it sees: taking over one takes over the buffer
        # they both read.
        self.viewed: dict[Var, Var] = {}
        self.buffers: dict[int, tuple[int, MemorySpace, str]] = {}  # by tile type object: see buffer
        self.retyped = MemRefMemo()

    def take_over(self, var: Var, source: object, why: str, span: Span) -> None:
        """``var`` reuses ``source``'s buffer: ``source``, and every view of that buffer, must be dead
        once ``var`` is written."""
        if isinstance(source, Var) and self.memref_of(source) is not None:
            self.shares.append((var, source, why, span))

    def aliases(self) -> dict[Var, list[Var]]:
        """Each viewed or viewing tile -> every tile seeing the same buffer through views."""
        def root(v: Var) -> Var:
            while v in self.viewed:
                v = self.viewed[v]
            return v

        family: dict[Var, list[Var]] = {}
        for v in self.viewed:
            family.setdefault(root(v), [root(v)]).append(v)
        return {v: members for members in family.values() for v in members}

    def memref_of(self, e: object) -> MemRef | None:
        if not isinstance(e, Var):
            return None
        t = self.types.get(e, e.type)
        return t.memref if isinstance(t, TileType) else None

    def share(self, var: Var, memref: MemRef | None) -> None:
        if memref is None:
            self.fresh(var)
        else:
            self.types[var] = self.retyped.get(var.type, memref)

    def fresh(self, var: Var) -> None:
        t = var.type
        found = self.buffers.get(id(t))  # the kernel's tiles share a few type objects
        size, space, prefix = found if found is not None else self.buffer(var)
        span = var.span
        alloc = allocation(f"{prefix}{self.count}", space, size, span)
        self.count += 1
        self.allocs.append(alloc)
        self.types[var] = self.retyped.get(t, new_memref(alloc.var, self.offset, size, span))

    def buffer(self, var: Var) -> tuple[int, MemorySpace, str]:
        """The size, space and name prefix of the buffer of a tile of ``var``'s type (kept per type object)."""
        t = var.type
        size = tile_nbytes(t, self.platform)
        if size is None:
            raise InitMemRef().error(
                f"tile '{var.name_hint}' of function '{self.func.name}' has a dynamic shape {t}; "
                "memory planning needs static tile shapes (give the tile a constant shape and a valid_shape)",
                var.span,
            )
        space = t.memory_space
        found = self.buffers[id(t)] = (size, space, _PREFIX[space])
        return found

    def stmts(self, stmt: Stmt) -> None:
        if isinstance(stmt, SeqStmts):
            for s in stmt.stmts:
                self.stmts(s)
        elif isinstance(stmt, AssignStmt):
            self.assign(stmt)
        elif isinstance(stmt, (ForStmt, WhileStmt)):
            for ia in stmt.iter_args:
                if on_chip(ia.type):
                    self.share(ia, self.memref_of(ia.initValue))
                    self.take_over(ia, ia.initValue, "iter_arg", stmt.span)
            self.stmts(stmt.body)
            self.phis(stmt.return_vars, stmt.body)
        elif isinstance(stmt, IfStmt):
            self.stmts(stmt.then_body)
            if stmt.else_body is not None:
                self.stmts(stmt.else_body)
            self.phis(stmt.return_vars, stmt.then_body, stmt.span)
        elif isinstance(stmt, ScopeStmt):
            self.stmts(stmt.body)

    def phis(self, targets: list[Var], body: Stmt, if_span: Span | None = None) -> None:
        last = body.stmts[-1] if isinstance(body, SeqStmts) and body.stmts else body
        values = last.value if isinstance(last, YieldStmt) else []
        for k, var in enumerate(targets):
            if on_chip(var.type):
                self.share(var, self.memref_of(values[k]) if k < len(values) else None)
                if if_span is not None and k < len(values):
                    self.take_over(var, values[k], "if", if_span)

    def assign(self, stmt: AssignStmt) -> None:
        var, value = stmt.var, stmt.value
        if not on_chip(var.type):
            return
        if var.type.memref is not None:
            raise InitMemRef().error(
                f"tile '{var.name_hint}' of function '{self.func.name}' already has a MemRef; "
                "declared allocations (pl.MemRef(...) in a tile annotation) are not planned yet",
                stmt.span,
            )
        # op_name, inlined for the common op call: isinstance against other IR classes is slow.
        name = value.op.name if type(value) is Call and type(value.op) is Op else op_name(value)
        kind = _op_kind(name)
        if kind is _PIPED:  # a pipe-slot tile: its data stays in the pipe buffer, no MemRef (nor its views)
            self.piped.add(var)
            return
        if isinstance(value, Var):
            self.share(var, self.memref_of(value))
            self.viewed[var] = value
            return
        if kind is _FRESH and type(value) is Call:  # most ops: no buffer of an argument is taken over
            self.fresh(var)
            return
        if not isinstance(value, Call) or name is None:
            self.fresh(var)
            return
        args = value.args
        if kind is _VIEW and args:
            if args[0] in self.piped:
                self.piped.add(var)
                return
            self.share(var, self.memref_of(args[0]))
            if isinstance(args[0], Var):
                self.viewed[var] = args[0]
            return
        written = _written_tile(name, args)
        self.share(var, self.memref_of(written))
        self.take_over(var, written, name, stmt.span)


# What InitMemRef gives the result of an op, by op name (registered ops only: an entry never changes).
_PIPED, _VIEW, _WRITES, _FRESH = "piped", "view", "writes", "fresh"
_KINDS: dict[str | None, str] = {}


def _op_kind(name: str | None) -> str:
    """``_PIPED`` for a pipe pop, ``_VIEW`` for a view op, ``_WRITES`` for an op that may update a tile
    argument in place, else ``_FRESH`` (its result gets a buffer of its own)."""
    kind = _KINDS.get(name)
    if kind is not None:
        return kind
    entry = lookup(name) if name is not None else None
    if name in TPOPS:
        kind = _PIPED
    elif entry is None:
        return _FRESH
    elif entry.view:
        kind = _VIEW
    elif _WRITE in entry.param_effects or _READ_WRITE in entry.param_effects:
        kind = _WRITES
    else:
        kind = _FRESH
    _KINDS[name] = kind
    return kind


def _written_tile(name: str, args: list) -> object:
    """The tile argument an op updates in place (its result is that buffer), if any."""
    entry = lookup(name)
    if entry is None:
        return None
    effects = entry.param_effects
    if _WRITE not in effects and _READ_WRITE not in effects:  # most ops: no bind
        return None
    for param, arg in zip(entry.bind(list(args)), args):
        if param.effect in (_WRITE, _READ_WRITE) and isinstance(arg, Var) and on_chip(arg.type):
            return arg
    return None


def _check_shares(func: Function, shares: list[tuple[Var, Var, str, Span]], renamed: dict[Var, Var],
                  aliases: dict[Var, list[Var]]) -> None:
    """Refuse a buffer take-over whose previous value (or a view of its buffer) is still read after
    the new one is written (copying it out is not implemented), and two iter_args started from one
    buffer."""
    if not shares:
        return
    shares = [(var, seen, why, span) for var, source, why, span in shares
              for seen in aliases.get(source, [source]) if seen is not var]
    life = lifetimes(func)

    def interval(v: Var) -> tuple[int, int] | None:
        w = renamed.get(v)
        return life.interval(w) if w in life.defs else None

    first_iter_arg: dict[tuple[int, int], Var] = {}
    for var, source, why, span in shares:
        new, old = interval(var), interval(source)
        if new is None or old is None:
            continue
        if why == "iter_arg":
            key = (id(source), new[0])
            other = first_iter_arg.setdefault(key, var)
            if other is not var:
                raise InitMemRef().error(
                    f"function '{func.name}': tile '{source.name_hint}' is the init of two loop carries "
                    f"('{other.name_hint}' and '{var.name_hint}'), which would share one buffer",
                    span,
                    f"give one carry its own copy, e.g. '{source.name_hint}_copy = pl.move({source.name_hint}, "
                    "target_memory=...)', and use it as that carry's init",
                )
        if why in ("iter_arg", "if"):
            if old[1] <= new[0]:
                continue
        elif life.last_read_on_path(renamed[source], new[0]) <= new[0]:
            continue  # an in-place update no later read can see (those left are in the other branch)
        if why == "iter_arg":
            what = f"the init of loop carry '{var.name_hint}'"
        elif why == "if":
            what = f"yielded by the then-branch for '{var.name_hint}'"
        else:
            what = f"updated in place by {why} (result '{var.name_hint}')"
        name = source.name_hint
        if source.type.memory_space == MemorySpace.Acc:
            hint = f"Acc -> Acc copies do not exist: finish reading '{name}' (e.g. store it) before this point"
        else:
            hint = (
                f"copy it first (e.g. '{name}_copy = pl.move({name}, target_memory=...)') and use the copy "
                f"there, so that '{name}' keeps its own buffer"
            )
        raise InitMemRef().error(
            f"function '{func.name}': tile '{name}' is {what}, which takes over its buffer, "
            f"but '{name}' is still read afterwards",
            span,
            hint,
        )
