"""InsertPipeSync: set_flag/wait_flag pairs and barriers between the pipes of a kernel."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from pypto.analysis.flow import ForwardWalk
from pypto.analysis.gm_alias import GmAliases
from pypto.analysis.index import FunctionIndex, derive_index, function_index
from pypto.analysis.pipes import BY_SOURCE, op_pipe, op_rule
from pypto.languages.invariants import PipeSyncPlaced
from pypto.languages.runtime import runtime
from pypto.languages.synced import synced

from pypto.ir.attrs import CallAttrs
from pypto.ir.enums import FunctionType, MemorySpace, PipeType
from pypto.ir.expr import Call, Expr, MakeTuple, Var
from pypto.ir.function import Function, Program
from pypto.ir.memref import MemRef
from pypto.ir.parts import copy_parts
from pypto.ir.op_registry import Effect, get_op, lookup
from pypto.ir.span import Span
from pypto.ir.stmt import AssignStmt, EvalStmt, ForStmt, IfStmt, ReturnStmt, ScopeStmt, SeqStmts, Stmt, WhileStmt
from pypto.ir.transforms import flatten_to_stmts
from pypto.ir.type_base import Type, UnknownType
from pypto.ir.types import TensorType, TileType

from pypto.transform.base import FunctionPass
from pypto.transform.errors import PassError
from pypto.transform.util import block_of, same_list

_KERNELS = (FunctionType.AIV, FunctionType.AIC)
_EVENTS = 8  # event ids 0-7 per pipe pair
_BARRIER = {PipeType.V: "system.bar_v", PipeType.M: "system.bar_m"}  # pipes that need one inside themselves
_PIPES = (PipeType.MTE2, PipeType.MTE1, PipeType.M, PipeType.V, PipeType.S, PipeType.FIX, PipeType.MTE3)
_SYNC_OPS = frozenset({"system.sync_src", "system.sync_dst", "system.bar_v", "system.bar_m", "system.bar_all"})
# Read once: Enum members go through the slow class attribute path on Python 3.11 (per operand here).
_READ, _WRITE = Effect.READ, Effect.WRITE

# A buffer an op touches: ("chip", space, lo, hi) for a placed tile (any on-chip space), ("base",
# space, base var) for an unplaced one, ("gm", root var) for a GM tensor. The walk numbers each
# distinct one (:class:`_Buffers`) and compares sets of them as bit masks (bit n: buffer n): a
# hazard test is two ANDs of ints.
Region = tuple[object, ...]


class _Access:
    """What one op reads and writes (masks of buffer numbers of :class:`_Buffers`). Compared by
    identity: ``_Run.access`` returns the same object for equal accesses of one statement."""

    __slots__ = ("reads", "writes")

    def __init__(self, reads: int, writes: int) -> None:
        self.reads = reads
        self.writes = writes


def _tile_regions(t: object) -> list[Region]:
    """The buffer of a variable of type ``t`` other than a tensor (none unless an on-chip tile with a MemRef)."""
    if isinstance(t, TileType) and t.memref is not None and t.memory_space_ not in (None, MemorySpace.DDR):
        ref = t.memref
        value = getattr(ref.byte_offset_, "value", None)
        if isinstance(value, int) and value >= 0:
            return [("chip", t.memory_space_, value, value + ref.size_)]
        return [("base", t.memory_space_, ref.base_)]
    return []


def _overlap(a: Region, b: Region) -> bool:
    # Vars by identity: ``==`` on two Vars builds an Eq expression and asks it for a truth value.
    kind = a[0]
    if kind != b[0]:
        return False
    if kind == "chip":
        return a[1] == b[1] and a[2] < b[3] and b[2] < a[3]
    if kind == "base":
        return a[1] == b[1] and a[2] is b[2]
    return a[1] is b[1]


class _Buffers:
    """The distinct buffers of one kernel, numbered in the order met, each with the mask of those
    it overlaps. A hazard test is then two ANDs of ints instead of a Python comparison of every
    pair of regions (most of the pass's time)."""

    def __init__(self) -> None:
        self.numbers: dict[tuple[object, ...], int] = {}  # by region, its variables by id (see _overlap)
        self.regions: list[Region] = []  # by number (holding the variables the keys name by id)
        self.overlaps: list[int] = []  # by number: the mask of the buffers it overlaps (itself unless empty)
        self.chips: dict[object, list[int]] = {}  # by memory space: its placed ranges (the only partial overlaps)
        self._hits: dict[tuple[int, int], tuple[int, int]] = {}  # hits() per access masks, until a new buffer

    def hits(self, reads: int, writes: int) -> tuple[int, int]:
        """The masks of the buffers that overlap what an access reads or writes, and of those that
        overlap what it writes (the ops of a kernel repeat a few access masks: worked out once each)."""
        found = self._hits.get((reads, writes))
        if found is None:
            written = self._spread(writes)
            found = self._hits[reads, writes] = (written | self._spread(reads), written)
        return found

    def _spread(self, mask: int) -> int:
        out = 0
        while mask:
            low = mask & -mask
            out |= self.overlaps[low.bit_length() - 1]
            mask ^= low
        return out

    def number(self, region: Region) -> int:
        """The number of ``region`` (a new one the first time)."""
        key = region if region[0] == "chip" else (*region[:-1], id(region[-1]))
        found = self.numbers.get(key)
        if found is not None:
            return found
        found = self.numbers[key] = len(self.regions)
        self.regions.append(region)
        self._hits.clear()  # the new buffer may overlap those of a mask worked out before
        # Regions of other kinds never overlap; a base or GM region only overlaps itself.
        clash = 1 << found if _overlap(region, region) else 0
        if region[0] == "chip":
            same_space = self.chips.setdefault(region[1], [])
            for other in same_space:
                if _overlap(region, self.regions[other]):
                    clash |= 1 << other
                    self.overlaps[other] |= 1 << found
            same_space.append(found)
        self.overlaps.append(clash)
        return found


def _hazard(prior: _Access, hit_any: int, hit_written: int) -> bool:
    """RAW, WAR or WAW between an earlier access and one whose reads or writes overlap ``hit_any``
    and whose writes overlap ``hit_written``."""
    return bool(prior.writes & hit_any or prior.reads & hit_written)


# Pending accesses per (producer pipe, consumer pipe) (its :func:`_key`): those the consumer pipe is
# not yet ordered after, each with the index of its statement in the current block (-1: before the block).
State = dict[int, dict[_Access, int]]
_NONE: dict[_Access, int] = {}  # read only


def _key(q: PipeType, p: PipeType) -> int:
    """The state key of producer pipe ``q`` and consumer pipe ``p``: an int, not a tuple of pipes (a
    tuple is built and hashed anew at each lookup, about a dozen per op)."""
    return int(q) * 8 + int(p)


# Per pipe P (lists indexed by the pipe's value): the pipes P may wait for with their keys, in
# _PIPES order (of two pipes with hazards equally late, the earlier waits first); the keys of
# those that may wait for P (P itself when it has a barrier); the key of P's barrier, if any.
_FROM = [[(q, _key(q, p)) for q in _PIPES if q is not p] for p in sorted(PipeType)]
_TO = [[_key(p, r) for r in _PIPES if r is not p or p in _BARRIER] for p in sorted(PipeType)]
_BARRIER_KEY = [_key(p, p) if p in _BARRIER else None for p in sorted(PipeType)]
# Per pipe Q: each pipe that may wait for Q with its entry (Q, key) of _FROM.
_WAITERS = [[(p, (q, key)) for p, sources in enumerate(_FROM) for q, key in sources if q is pipe] for pipe in sorted(PipeType)]
_PIPE_VALUES = max(PipeType) + 1
_KEY_COUNT = _key(max(PipeType), max(PipeType)) + 1
# Per key of (q, p): the keys of (r, p) and (r, q) for every other pipe r (what a wait of p for q orders).
_THIRD = {_key(q, p): [(_key(r, p), _key(r, q)) for r in _PIPES if r not in (q, p)] for q in PipeType for p in PipeType}


def _copy(state: State, pos: int | None = None) -> State:
    """A copy of ``state`` (with every access moved to ``pos`` if given). The pending dicts are
    shared: none is changed in place once made (an update replaces it), so a snapshot before each
    statement copies only the table of them."""
    if pos is None:
        return dict(state)
    return {k: dict.fromkeys(v, pos) for k, v in state.items()}


def _join(before: State, ends: list[State], pos: int) -> State:
    """Control-flow join of the states at the ends of the paths through a statement at ``pos``:
    pending on any path; an access pending before keeps its position, a new one sits at ``pos``."""
    out: State = {}
    for s in ends:
        for key, accs in s.items():
            into = out.get(key)
            if into is None:
                out[key] = dict.fromkeys(accs, pos)
            else:
                into.update(dict.fromkeys(accs, pos))
    # (The order of a pending dict decides nothing: it is only scanned for a latest hazard and filtered.)
    for key, into in out.items():
        prior = before.get(key)
        if prior:
            if prior.keys() <= into.keys():  # a loop's joins (the state before is one of the ends)
                into.update(prior)
            else:
                for a in prior.keys() & into.keys():
                    into[a] = prior[a]
    return out


def _same(a: State, b: State) -> bool:
    keys = {k for k, v in a.items() if v} | {k for k, v in b.items() if v}
    return all(a.get(k, _NONE).keys() == b.get(k, _NONE).keys() for k in keys)


@dataclass
class _Pair:
    """One set_flag/wait_flag pair of a block: set before statement ``s``, wait before ``w``."""

    src: PipeType
    dst: PipeType
    s: int
    w: int
    event: int = 0

    def times(self) -> tuple[int, int]:
        # Order at one point: waits of earlier sets, then new long-lived sets, then adjacent pairs.
        return (3 * self.w + 2, 3 * self.w + 2) if self.s == self.w else (3 * self.s + 1, 3 * self.w)


@dataclass
class _Block:
    """The syncs placed before each statement of one block, and the walk's place in it."""

    pairs: list[_Pair] = field(default_factory=list)
    barriers: dict[int, list[PipeType]] = field(default_factory=dict)
    snaps: list[State] = field(default_factory=list)  # the pending state before each statement
    last_compound: int = -1  # the latest loop, if or scope statement
    user_sets: dict[tuple[int, int, int], int] = field(default_factory=dict)  # user sync_src -> its statement


class InsertPipeSync(FunctionPass):
    """Place the intra-core synchronisation of each AIV/AIC kernel (the last pass before codegen).

    Each op runs on one pipe (:func:`pypto.analysis.pipes.op_pipe`). When an op on pipe P touches
    a buffer (a tile's address range in its space, or a GM tensor) that an earlier op on another
    pipe Q wrote, or writes one that Q read or wrote (RAW, WAR, WAW), and P is not yet ordered
    after that op, P waits for Q: ``system.sync_src(set_pipe=Q, wait_pipe=P, event_id=E)`` goes
    right after the latest such producer of the same block (but not before a loop or branch
    between them) and ``system.sync_dst(...)`` right before the consumer; a producer in an outer
    block, an earlier iteration or a branch gets the pair right before the consumer. A wait
    orders P after every op Q issued before the set, and after every op Q itself was ordered
    after. Loops are solved to a fixpoint, so a hazard across the back edge (a buffer reused by the
    next iteration) is synchronised too. Event ids: per pipe pair, the lowest of 0-7 no live pair
    holds and the user's own flags of that pair do not use (if all are held, the set moves down to
    the wait). User-written syncs count: a ``sync_src``/``sync_dst`` pair of the same block orders
    its pipes as an inserted one would, and ``bar_v``/``bar_m``/``bar_all`` complete the pipes they
    name, so no second pair is placed where they already order. Hazards inside the V or M pipe get a
    ``system.bar_v()`` / ``system.bar_m()``; the kernel ends with ``system.bar_all()``. Every
    inserted call carries ``attrs={"auto_sync": True}`` and replaces those of an earlier run::

        before:  ta = pl.load(a, ...)                    after:  ta = pl.load(a, ...)
                 tb = pl.load(b, ...)                            tb = pl.load(b, ...)
                 tc = pl.add(ta, tb)                             sync_src(MTE2, V, 0); sync_dst(MTE2, V, 0)
                 c = pl.store(tc, [0, 0], c)                     tc = pl.add(ta, tb)
                 return c                                        sync_src(V, MTE3, 0); sync_dst(V, MTE3, 0)
                                                                 c = pl.store(tc, [0, 0], c)
                                                                 bar_all()
                                                                 return c
    """

    source = runtime
    target = synced
    produces = frozenset({PipeSyncPlaced})

    def run_function(self, func: Function, program: Program) -> Function:
        if func.func_type not in _KERNELS:
            return func
        # The function's cached node index (the boundary check before this pass built it) tells a
        # body that holds no sync of an earlier run: most kernels, which need no strip walk.
        index = function_index(func)
        body = func.body
        stripped = any(isinstance(s.expr, Call) and _auto_sync(s.expr) for s in index.of(EvalStmt))
        if stripped:
            body, _ = _Strip().block(body, None)
        run = _Run(_user_events(index))
        body = run.straight(body) if _straight_line(index) else run.block(body, {})[0]
        # Only the body changes, and a function derives nothing from its body: the copy needs no
        # validation (a malformed body is still refused at the next boundary check).
        synced_func = copy_parts(func, {"body": body})
        # The boundary check and codegen read it; most statements are kept, the others are syncs (the
        # lookups of ``func``'s index carry over only when nothing was stripped: any op can be auto_sync).
        derive_index(synced_func, func, frozenset() if stripped else _SYNC_OPS)
        return synced_func


def _straight_line(index: FunctionIndex) -> bool:
    """The kernel (``index`` of its nodes) is one block of statements without syncs: no loop,
    branch or scope, no user sync and none of an earlier run (:meth:`_Run.straight` applies)."""
    return index.op_names.isdisjoint(_SYNC_OPS) and not index.has(ForStmt, WhileStmt, IfStmt, ScopeStmt)


class _Strip(ForwardWalk[None]):
    """A body without the syncs an earlier run of the pass inserted."""

    def exit_block(self, body: Stmt, stmts: list[Stmt], state: None) -> Stmt:
        kept = [s for s in stmts if not (isinstance(s, EvalStmt) and isinstance(s.expr, Call) and _auto_sync(s.expr))]
        # a first run finds none: the body stays the same object, nothing is rebuilt
        return super().exit_block(body, kept, state) if len(kept) == len(stmts) else block_of(kept, body.span)


def _user_events(index: FunctionIndex) -> dict[tuple[PipeType, PipeType], set[int]]:
    """The event ids the kernel (``index`` of its nodes) takes with its own sync_src/sync_dst, per
    (set pipe, wait pipe). The calls an earlier run inserted are skipped, as a strip would drop them."""
    events: dict[tuple[PipeType, PipeType], set[int]] = {}
    if index.op_names.isdisjoint(("system.sync_src", "system.sync_dst")):
        return events
    for call in index.of(Call):
        if call.op.name in ("system.sync_src", "system.sync_dst") and not call.attrs.get("auto_sync"):
            key = (PipeType(call.kwargs["set_pipe"]), PipeType(call.kwargs["wait_pipe"]))
            events.setdefault(key, set()).add(call.kwargs["event_id"])
    return events


# The attrs and ops of the inserted calls, made once: validating ``{"auto_sync": True}`` for every
# inserted call was a fifth of the pass.
_AUTO_SYNC = CallAttrs.for_node("Call", {"auto_sync": True})
_OPS = {name: get_op(name) for name in _SYNC_OPS}
# One validated statement per distinct sync (op and flags); each inserted one is a copy of it with its
# own span (pypto.ir.parts): building and validating every call and statement was a sixth of the pass.
_TEMPLATES: dict[tuple[str, tuple[tuple[str, int], ...]], EvalStmt] = {}


def _sync_call(op: str, kwargs: dict[str, int], span: Span) -> EvalStmt:
    key = (op, tuple(kwargs.items()))
    template = _TEMPLATES.get(key)
    if template is None:
        call = Call(op=_OPS[op], args=[], kwargs=kwargs, attrs=_AUTO_SYNC, type=UnknownType.get(), span=span)
        template = _TEMPLATES[key] = EvalStmt(expr=call, span=span)
    # copy_parts: the template is a node this pass validated; only its span changes.
    return copy_parts(template, {"expr": copy_parts(template.expr, {"args": [], "span": span}), "span": span})


# What an expression or type class is to the walk, asked once per class: isinstance against a node
# class other than the object's own runs a slower check, and the walk asks it of every operand.
_OTHER, _TUPLE, _VAR, _TENSOR = 0, 1, 2, 3
_KINDS: dict[type, int] = {}


def _kind(cls: type) -> int:
    found = _KINDS.get(cls)
    if found is None:
        if issubclass(cls, MakeTuple):
            found = _TUPLE
        elif issubclass(cls, TensorType):
            found = _TENSOR
        else:
            found = _VAR if issubclass(cls, Var) and not issubclass(cls, MemRef) else _OTHER
        _KINDS[cls] = found
    return found


_BY_SOURCE = object()  # a plan's pipe for an op whose pipe follows its operands' memory spaces


# An op's pipe (or _BY_SOURCE) and the effect of each of its parameters.
_Plan = tuple[PipeType | object | None, tuple[Effect, ...]]
# The plans of registered ops (an entry is never replaced; an unregistered name may be registered later).
_PLANS: dict[str, _Plan] = {}


def _plan(name: str) -> _Plan:
    """What the walk needs of op ``name``: its pipe (None: not issued to a pipe; ``_BY_SOURCE``: see
    :func:`op_pipe`) and its parameter effects (unregistered: all reads)."""
    rule = op_rule(name)
    entry = lookup(name)
    plan = (_BY_SOURCE if rule == BY_SOURCE else rule), (entry.param_effects if entry is not None else ())
    if entry is not None:
        _PLANS[name] = plan
    return plan


def _auto_sync(call: Call) -> bool:
    """The call is a sync an earlier run inserted (most calls have no attrs: no mapping lookup)."""
    attrs = call.attrs
    return bool(attrs.__pydantic_fields_set__) and bool(attrs.get("auto_sync"))


class _Run(ForwardWalk[State]):
    """The sync placement of one kernel: blocks processed in order, loops to a fixpoint."""

    loop_passes = None

    def __init__(self, user_events: dict[tuple[PipeType, PipeType], set[int]]) -> None:
        self.user_events = user_events  # event ids the user's own flags take, per pipe pair
        self.span: Span | None = None  # the statement being synchronised
        self.accesses: dict[int, _Access] = {}  # by statement id: the one object of each distinct access
        self.buffers = _Buffers()
        self.tiles: dict[Expr, int] = {}  # the buffer mask of each non-tensor variable seen
        self.by_type: dict[int, tuple[Type, int]] = {}  # by tile type (held): its buffer mask
        self.gm = GmAliases()  # store results and tensor loop carries -> the tensor they name
        self.blocks: list[_Block] = []  # the blocks being walked, innermost last

    # ---- accesses ------------------------------------------------------------------------------
    def _mask(self, e: Expr) -> int:
        """The mask of the buffers expression ``e`` (not in ``tiles``) names; 0 for a scalar or a constant."""
        kind = _KINDS.get(type(e))
        if kind is None:
            kind = _kind(type(e))
        if kind == _VAR:
            t = e.type
            # Tile variables of one buffer may share their type object: the buffers are worked out once per type.
            typed = self.by_type.get(id(t))
            if typed is None:
                if _kind(type(t)) == _TENSOR:  # its buffer follows the aliases known so far: not kept
                    return 1 << self.buffers.number(("gm", self.gm.root(e)))
                found = 0
                for region in _tile_regions(t):
                    found |= 1 << self.buffers.number(region)
                typed = self.by_type[id(t)] = (t, found)
            found = self.tiles[e] = typed[1]  # a tile's buffers never change
            return found
        if kind == _TUPLE:
            found = 0
            tiles = self.tiles
            for x in e.elements:  # mostly constant offsets and shapes
                mask = tiles.get(x)
                if mask is None:
                    if _KINDS.get(type(x)) == _OTHER:
                        continue
                    mask = self._mask(x)
                found |= mask
            return found
        return 0  # a constant (new objects mostly: not kept) or another expression

    def access(self, stmt: Stmt, call: Call) -> tuple[PipeType, _Access] | None:
        """The pipe and accesses of op ``call``, the value of ``stmt`` (None: not issued to a pipe)."""
        got = self.masks(stmt, call)
        if got is None:
            return None
        pipe, reads, writes = got
        known = self.accesses.get(id(stmt))
        if known is not None and known.reads == reads and known.writes == writes:
            return pipe, known
        now = self.accesses[id(stmt)] = _Access(reads, writes)
        return pipe, now

    def masks(self, stmt: Stmt, call: Call) -> tuple[PipeType, int, int] | None:
        """The pipe of op ``call``, the value of ``stmt``, and the masks of the buffers it reads and
        writes (None: not issued to a pipe)."""
        name = call.op.name
        plan = _PLANS.get(name)
        if plan is None:
            plan = _plan(name)
        pipe, effects = plan
        if pipe is None:
            return None
        if pipe is _BY_SOURCE:
            pipe = op_pipe(call)
        tiles = self.tiles
        reads = writes = 0
        args = call.args
        for arg, effect in zip(args, effects):
            mask = tiles.get(arg)
            if mask is None:
                if _KINDS.get(type(arg)) == _OTHER:  # a constant (a new object each time)
                    continue
                mask = self._mask(arg)
            if effect is not _WRITE:
                reads |= mask
            if effect is not _READ:
                writes |= mask
        for arg in args[len(effects):]:  # arguments past the parameters (unregistered ops: all) are read
            mask = tiles.get(arg)
            reads |= self._mask(arg) if mask is None else mask
        if type(stmt) is AssignStmt:
            var = stmt.var
            mask = tiles.get(var)  # a tile variable met before (a loop's next pass)
            if mask is None:
                typed = self.by_type.get(id(var.type))  # a tile of a type met before (not a tensor)
                if typed is not None:
                    mask = tiles[var] = typed[1]
                else:
                    if _kind(type(var.type)) == _TENSOR:
                        self.gm.assign(stmt)  # a GM write's result names the tensor it wrote
                    mask = self._mask(var)
            writes |= mask
        return pipe, reads, writes

    # ---- the walk ------------------------------------------------------------------------------
    # Positions in a state are those of the current block: a block starts with everything pending
    # at -1, and what a loop, if or scope adds sits at that statement's index.
    def enter_block(self, state: State) -> State:
        self.blocks.append(_Block())
        return _copy(state, -1)

    def exit_block(self, body: Stmt, stmts: list[Stmt], state: State) -> Stmt:
        placed = self.blocks.pop()
        at_end = not self.blocks  # the function's body (the outermost block) ends with a barrier on every pipe
        out = stmts if not (at_end or placed.pairs or placed.barriers) else _materialize(stmts, placed, body.span, at_end)
        # block_of(out), knowing that no walked statement is a block (the walk flattens them); a block
        # left as it was stays the same object.
        if len(out) == 1:
            return out[0]
        if type(body) is SeqStmts:
            # A copy of a validated block holding statements of the kernel and validated syncs needs no
            # validation of its hundreds of statements (a malformed one is still refused at the next
            # boundary check).
            return body if same_list(out, body.stmts) else copy_parts(body, {"stmts": out})
        return SeqStmts(out, body.span)

    # Each statement first records the state before it (where a set before it would see it); a
    # loop, if or scope then becomes the block's latest compound statement.
    def _before(self, state: State) -> _Block:
        placed = self.blocks[-1]
        placed.snaps.append(_copy(state))
        return placed

    def _after_compound(self) -> int:
        placed = self.blocks[-1]
        placed.last_compound = len(placed.snaps) - 1
        return placed.last_compound

    def leaf(self, s: Stmt, state: State) -> State:
        placed = self.blocks[-1]
        placed.snaps.append(dict(state))  # _before, inlined: this runs for every statement
        cls = type(s)
        call = s.value if cls is AssignStmt else s.expr if cls is EvalStmt else None
        if call is None or (type(call) is not Call and not isinstance(call, Call)) or _auto_sync(call):
            return state
        if call.op.name in _SYNC_OPS:
            self._user(call, len(placed.snaps) - 1, state, placed)
            return state
        got = self.access(s, call)
        if got is not None:
            self.span = s.span
            self._consume(len(placed.snaps) - 1, *got, state, placed)
        return state

    def straight(self, body: Stmt) -> Stmt:
        """``body`` synced as :meth:`block` syncs it, for a kernel body that is one block with no
        sync of its own (see :func:`_straight_line`). A pending set is then always a suffix of one
        pipe's accesses in program order (an op adds the latest; a wait or a barrier drops those
        before some statement), so one position per pipe pair stands for it (its ``cut``): an op
        is recorded by one append instead of a new pending dict per pipe pair, and a hazard scan
        runs from a pipe's latest access back to the first hazard."""
        placed = _Block()
        self.blocks.append(placed)  # exit_block takes it off
        stmts = flatten_to_stmts(body)
        # Per pipe (by value): its accesses' statement positions and buffer masks, in program order.
        issued: list[list[int]] = [[] for _ in range(_PIPE_VALUES)]
        read: list[list[int]] = [[] for _ in range(_PIPE_VALUES)]
        written: list[list[int]] = [[] for _ in range(_PIPE_VALUES)]
        # Per state key (q, p) of two pipes: q's accesses at this position or later are pending for p.
        # The cut before each statement (where a set there would see it) shares the list until it
        # changes: it is copied before each change.
        cut = [0] * _KEY_COUNT
        cuts: list[list[int]] = []
        # Per pipe with a barrier (key (p, p), which no wait reads): its accesses at this position or
        # later are pending for the barrier. Apart from ``cut``: a barrier, after most V ops, copies none.
        bar_cut = [0] * _PIPE_VALUES
        hits = self.buffers.hits
        # Per pipe: the entries of _FROM whose pipe has issued an access (a kernel uses a few pipes: the
        # hazard scan skips the others). Their order does not matter here: positions are distinct.
        sources: list[list[tuple[PipeType, int]]] = [[] for _ in range(_PIPE_VALUES)]
        for k, s in enumerate(stmts):
            cuts.append(cut)
            cls = type(s)
            call = s.value if cls is AssignStmt else s.expr if cls is EvalStmt else None
            if call is None or (type(call) is not Call and not isinstance(call, Call)):
                continue
            got = self.masks(s, call)
            if got is None:
                continue
            pipe, r, w = got
            if not (r or w):  # a pending access that touches no buffer is never a hazard
                continue
            hit_any, hit_written = hits(r, w)
            if hit_any:
                while True:
                    # The latest hazard on another pipe (positions are distinct: one op per statement).
                    top = -1
                    for q, key in sources[pipe]:
                        positions = issued[q]
                        i = len(positions) - 1
                        lo = cut[key] if cut[key] > top else top + 1
                        while i >= 0 and positions[i] >= lo:
                            if written[q][i] & hit_any or read[q][i] & hit_written:
                                top, waits_for = positions[i], q
                                break
                            i -= 1
                    if top < 0:
                        break
                    self.span = s.span
                    at = self._place(waits_for, pipe, top, k, placed)
                    cut = _cut_covered(cut, cuts[at] if at < k else cut, waits_for, pipe, at)
                if pipe in _BARRIER:
                    positions, reads_of, writes_of = issued[pipe], read[pipe], written[pipe]
                    i = len(positions) - 1
                    while i >= 0 and positions[i] >= bar_cut[pipe]:
                        if writes_of[i] & hit_any or reads_of[i] & hit_written:
                            placed.barriers[k] = [pipe]  # (the one barrier of statement k)
                            bar_cut[pipe] = k
                            break
                        i -= 1
            first = not issued[pipe]
            issued[pipe].append(k)
            read[pipe].append(r)
            written[pipe].append(w)
            if first:
                for p, source in _WAITERS[pipe]:
                    sources[p].append(source)
        return self.exit_block(body, stmts, {})

    def enter_loop(self, s: ForStmt | WhileStmt, state: State) -> State:
        self._before(state)
        self.gm.loop(s)
        return _copy(state, -1)

    def back_edge(self, s: ForStmt | WhileStmt, head: State, end: State) -> State:
        return _join(head, [head, end], -1)

    def same(self, a: State, b: State) -> bool:
        return _same(a, b)

    def exit_loop(self, s: ForStmt | WhileStmt, before: State, end: State) -> State:
        return _join(before, [before, end], self._after_compound())  # it may run no iteration

    def enter_branch(self, s: IfStmt, state: State) -> State:
        self._before(state)
        return state

    def join(self, s: IfStmt, before: State, then_end: State, else_end: State) -> State:
        return _join(before, [then_end, else_end], self._after_compound())

    def enter_scope(self, s: ScopeStmt, state: State) -> State:
        self._before(state)
        return state

    def exit_scope(self, s: ScopeStmt, before: State, end: State) -> State:
        return _join(before, [end], self._after_compound())

    def _user(self, call: Call, k: int, state: State, placed: _Block) -> None:
        """What a user-written sync (statement ``k``) orders."""
        name = call.op.name
        if name == "system.bar_all":
            state.clear()
        elif name in ("system.bar_v", "system.bar_m"):
            state.pop(_BARRIER_KEY[PipeType.V] if name == "system.bar_v" else _BARRIER_KEY[PipeType.M], None)
        else:
            key = (call.kwargs["set_pipe"], call.kwargs["wait_pipe"], call.kwargs["event_id"])
            if name == "system.sync_src":
                placed.user_sets[key] = k
            elif key in placed.user_sets:  # the wait of a set of this block
                at = placed.user_sets.pop(key)
                self._covered(state, placed.snaps[at], PipeType(key[0]), PipeType(key[1]), at)

    def _consume(self, k: int, pipe: PipeType, now: _Access, state: State, placed: _Block) -> None:
        """Sync op ``k`` (``now`` on ``pipe``) with every pipe it must wait for, then record it."""
        hit_any, hit_written = self.buffers.hits(now.reads, now.writes)
        get = state.get
        while hit_any:
            # The pipe with the latest conflicting pending access (its position), the earliest pipe on a tie.
            top = -2
            for q, key in _FROM[pipe]:
                pending = get(key)
                if pending:
                    for a, at in pending.items():  # _hazard, inlined: this runs for every pending access
                        if at > top and (a.writes & hit_any or a.reads & hit_written):
                            top, waits_for = at, q
            if top == -2:
                break
            self._pair(waits_for, pipe, top, k, state, placed)
        bar = _BARRIER_KEY[pipe]
        if bar is not None and hit_any:
            for a in get(bar, _NONE):
                if _hazard(a, hit_any, hit_written):
                    placed.barriers.setdefault(k, []).append(pipe)
                    state[bar] = {}
                    break
        # A new dict per old one (snapshots share the old): keys that held one dict hold one again (the
        # pipes a pipe has not synchronised with yet share theirs, mostly in a row), so it is copied
        # once, not per key.
        made: dict[int, dict[_Access, int]] = {}
        old = new = None
        for key in _TO[pipe]:
            pending = get(key, _NONE)
            if pending is not old:
                old = pending
                new = made.get(id(old))
                if new is None:
                    new = made[id(old)] = {**old, now: k}
            state[key] = new

    def _pair(self, q: PipeType, pipe: PipeType, latest: int, k: int, state: State, placed: _Block) -> None:
        """Place a ``q`` -> ``pipe`` pair for op ``k`` whose latest hazard on ``q`` is at ``latest``."""
        s = self._place(q, pipe, latest, k, placed)
        self._covered(state, placed.snaps[s] if s < k else _copy(state), q, pipe, s)

    def _place(self, q: PipeType, pipe: PipeType, latest: int, k: int, placed: _Block) -> int:
        """Add a ``q`` -> ``pipe`` pair for op ``k`` whose latest hazard on ``q`` is at ``latest`` to
        ``placed``; the statement its set goes before."""
        s = max(latest + 1, placed.last_compound + 1) if latest >= 0 else k
        pair = _Pair(q, pipe, s, k)
        taken = self.user_events.get((q, pipe), set())
        if not _allocate(pair, placed.pairs, taken):
            pair.s = k
            if not _allocate(pair, placed.pairs, taken):
                raise PassError("InsertPipeSync", f"no free event id for a {q.name} -> {pipe.name} flag: the "
                                f"kernel's own flags take {sorted(taken)}", self.span,
                                "leave some of event ids 0-7 of this pipe pair to the automatic synchronisation")
        placed.pairs.append(pair)
        return pair.s

    @staticmethod
    def _covered(state: State, at_set: State, q: PipeType, p: PipeType, s: int) -> None:
        """After ``p`` waits for a set on ``q`` placed before statement ``s``: what ``p`` is ordered after."""
        qp = _key(q, p)
        state[qp] = {a: pos for a, pos in state.get(qp, _NONE).items() if pos >= s}
        for rp, rq in _THIRD[qp]:
            pending = state.get(rp)
            if not pending:  # nothing to filter (an empty or missing entry means the same)
                continue
            issued = at_set.get(rp, _NONE)
            known_to_q = at_set.get(rq, _NONE)
            # an access re-issued after the set (pos >= s, a later loop iteration) stays pending
            state[rp] = {a: pos for a, pos in pending.items() if pos >= s or a not in issued or a in known_to_q}


def _cut_covered(cut: list[int], at_set: list[int], q: PipeType, p: PipeType, s: int) -> list[int]:
    """:meth:`_Run._covered` on cuts (a new list): ``at_set`` is the cut before statement ``s``. Of
    r's accesses before ``s`` pending for p, those q was ordered after at ``s`` are dropped."""
    out = cut[:]
    qp = _key(q, p)
    if out[qp] < s:
        out[qp] = s
    for rp, rq in _THIRD[qp]:
        drop = at_set[rq] if at_set[rq] < s else s
        if out[rp] < drop:
            out[rp] = drop
    return out


def _allocate(pair: _Pair, pairs: list[_Pair], taken: set[int]) -> bool:
    """Give ``pair`` the lowest event id no overlapping pair of the same pipes holds (nor the user's flags take)."""
    lo, hi = pair.times()
    held = {p.event for p in pairs if (p.src, p.dst) == (pair.src, pair.dst)
            and p.times()[0] <= hi and lo <= p.times()[1]} | taken
    free = [e for e in range(_EVENTS) if e not in held]
    if not free:
        return False
    pair.event = free[0]
    return True


def _materialize(stmts: list[Stmt], placed: _Block, span: Span, at_end: bool) -> list[Stmt]:
    """The statements of a block with its syncs placed (and, ``at_end``, the final ``bar_all`` before
    a trailing return or last). Equal syncs of one block are one statement object (immutable,
    like any node): made and checked once, not once per place."""
    made: dict[tuple[str, int, int, int], EvalStmt] = {}

    def sync(op: str, p: _Pair | None = None) -> EvalStmt:
        key = (op, -1, -1, -1) if p is None else (op, int(p.src), int(p.dst), p.event)
        found = made.get(key)
        if found is None:
            kwargs = {} if p is None else {"set_pipe": key[1], "wait_pipe": key[2], "event_id": key[3]}
            found = made[key] = _sync_call(op, kwargs, span)
        return found

    # Before a statement, in this order: the waits of earlier sets, the sets waited later, the
    # pairs set and waited right there, the barriers; each group in placement order (the flags keep it).
    before: dict[int, list[Stmt]] = {}
    for p in placed.pairs:
        if p.s < p.w:
            before.setdefault(p.w, []).append(sync("system.sync_dst", p))
    for p in placed.pairs:
        if p.s < p.w:
            before.setdefault(p.s, []).append(sync("system.sync_src", p))
    for p in placed.pairs:
        if p.s == p.w:
            before.setdefault(p.w, []).extend((sync("system.sync_src", p), sync("system.sync_dst", p)))
    if placed.barriers:  # often one after most V ops: each pipe's barrier is looked up once
        bars = {pipe: sync(_BARRIER[pipe]) for pipe in set(itertools.chain.from_iterable(placed.barriers.values()))}
        for k, pipes in placed.barriers.items():
            group = before.get(k)
            if group is None:
                before[k] = [bars[pipe] for pipe in pipes]
            else:
                group += [bars[pipe] for pipe in pipes]
    # The groups and statements interleaved in C: (group before statement 0, (statement 0,), ...).
    groups = map(before.get, range(len(stmts)), itertools.repeat(()))
    out = list(itertools.chain.from_iterable(itertools.chain.from_iterable(zip(groups, zip(stmts)))))
    out += before.get(len(stmts), ())
    if at_end:
        out.insert(len(out) - 1 if out and type(out[-1]) is ReturnStmt else len(out), sync("system.bar_all"))
    return out
