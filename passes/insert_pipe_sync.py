"""InsertPipeSync: set_flag/wait_flag pairs and barriers between the pipes of a kernel."""

from __future__ import annotations

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
from pypto.ir.node import replace
from pypto.ir.parts import replace_parts
from pypto.ir.op_registry import Effect, get_op, lookup
from pypto.ir.span import Span
from pypto.ir.stmt import AssignStmt, EvalStmt, ForStmt, IfStmt, ReturnStmt, ScopeStmt, SeqStmts, Stmt, WhileStmt
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
# distinct one (:class:`_Buffers`) and compares the numbers.
Region = tuple[object, ...]


class _Access:
    """What one op reads and writes (buffer numbers of :class:`_Buffers`). Compared by identity:
    ``_Run.access`` returns the same object for equal accesses of one statement."""

    __slots__ = ("reads", "writes")

    def __init__(self, reads: frozenset[int], writes: frozenset[int]) -> None:
        self.reads = reads
        self.writes = writes


def _tile_regions(t: object) -> list[Region]:
    """The buffer of a variable of type ``t`` other than a tensor (none unless an on-chip tile with a MemRef)."""
    if isinstance(t, TileType) and t.memref is not None and t.memory_space not in (None, MemorySpace.DDR):
        ref, off = t.memref, t.memref.byte_offset
        value = getattr(off, "value", None)
        if isinstance(value, int) and value >= 0:
            return [("chip", t.memory_space, value, value + ref.size)]
        return [("base", t.memory_space, ref.base_)]
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
    """The distinct buffers of one kernel, numbered in the order met, each with the numbers of those
    it overlaps. A hazard test is then two set intersections in C instead of a Python comparison
    of every pair of regions (most of the pass's time)."""

    def __init__(self) -> None:
        self.numbers: dict[tuple[object, ...], int] = {}  # by region, its variables by id (see _overlap)
        self.regions: list[Region] = []  # by number (holding the variables the keys name by id)
        self.overlaps: list[set[int]] = []  # by number: the buffers it overlaps (itself unless empty)
        self.chips: dict[object, list[int]] = {}  # by memory space: its placed ranges (the only partial overlaps)

    def number(self, region: Region) -> int:
        """The number of ``region`` (a new one the first time)."""
        key = region if region[0] == "chip" else (*region[:-1], id(region[-1]))
        found = self.numbers.get(key)
        if found is not None:
            return found
        found = self.numbers[key] = len(self.regions)
        self.regions.append(region)
        # Regions of other kinds never overlap; a base or GM region only overlaps itself.
        clash = {found} if _overlap(region, region) else set()
        if region[0] == "chip":
            same_space = self.chips.setdefault(region[1], [])
            for other in same_space:
                if _overlap(region, self.regions[other]):
                    clash.add(other)
                    self.overlaps[other].add(found)
            same_space.append(found)
        self.overlaps.append(clash)
        return found


_NO_BUFFERS: frozenset[int] = frozenset()


def _hazard(prior: _Access, hit_any: frozenset[int], hit_written: frozenset[int]) -> bool:
    """RAW, WAR or WAW between an earlier access and one whose reads or writes overlap ``hit_any``
    and whose writes overlap ``hit_written``."""
    return not prior.writes.isdisjoint(hit_any) or not prior.reads.isdisjoint(hit_written)


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
            into = out.setdefault(key, {})
            for a in accs:
                into.setdefault(a, before.get(key, {}).get(a, pos))
    return out


def _same(a: State, b: State) -> bool:
    keys = {k for k, v in a.items() if v} | {k for k, v in b.items() if v}
    return all(set(a.get(k, {})) == set(b.get(k, {})) for k in keys)


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
        if any(isinstance(s.expr, Call) and _auto_sync(s.expr) for s in index.of(EvalStmt)):
            body, _ = _Strip().block(body, None)
        body, _ = _Run(_user_events(index)).block(body, {})
        synced_func = replace(func, body=body)
        derive_index(synced_func, func)  # the boundary check and codegen read it; most statements are kept
        return synced_func


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
    return replace_parts(template, expr=replace_parts(template.expr, args=[], span=span), span=span)


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


def _plan(name: str) -> tuple[PipeType | object | None, tuple[Effect, ...]]:
    """What the walk needs of op ``name``, looked up once per op: its pipe (None: not issued to a
    pipe; ``_BY_SOURCE``: see :func:`op_pipe`) and its parameter effects (unregistered: all reads)."""
    rule = op_rule(name)
    entry = lookup(name)
    return (_BY_SOURCE if rule == BY_SOURCE else rule), (entry.param_effects if entry is not None else ())


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
        self.tiles: dict[Expr, list[int]] = {}  # the buffers of each tile variable (or constant) seen
        self.by_type: dict[int, tuple[Type, list[int]]] = {}  # by tile type (held): its buffers
        self.plans: dict[str, tuple[PipeType | object | None, tuple[Effect, ...]]] = {}  # _plan per op name seen
        self.gm = GmAliases()  # store results and tensor loop carries -> the tensor they name
        self.blocks: list[_Block] = []  # the blocks being walked, innermost last

    # ---- accesses ------------------------------------------------------------------------------
    def _regions(self, e: Expr) -> list[int]:
        found = self.tiles.get(e)  # a tile's (or a constant's) buffers never change: worked out once
        if found is not None:
            return found
        kind = _kind(type(e))
        if kind == _TUPLE:
            return [r for x in e.elements for r in self._regions(x)]
        if kind == _OTHER:
            found = self.tiles[e] = []
            return found
        t = e.type
        if _kind(type(t)) == _TENSOR:
            return [self.buffers.number(("gm", self.gm.root(e)))]
        # Tile variables of one buffer share their type object (most of a kernel's tiles are a few buffers).
        typed = self.by_type.get(id(t))
        if typed is None:
            typed = self.by_type[id(t)] = (t, [self.buffers.number(r) for r in _tile_regions(t)])
        found = self.tiles[e] = typed[1]
        return found

    def access(self, stmt: Stmt, call: Call) -> tuple[PipeType, _Access] | None:
        """The pipe and accesses of op ``call``, the value of ``stmt`` (None: not issued to a pipe)."""
        name = call.op.name
        plan = self.plans.get(name)
        if plan is None:
            plan = self.plans[name] = _plan(name)
        pipe, effects = plan
        if pipe is None:
            return None
        if pipe is _BY_SOURCE:
            pipe = op_pipe(call)
        tiles = self.tiles
        reads: list[int] = []
        writes: list[int] = []
        for i, arg in enumerate(call.args):
            regions = tiles.get(arg)
            if regions is None:
                regions = self._regions(arg)
            if not regions:  # a scalar or a constant
                continue
            effect = effects[i] if i < len(effects) else _READ
            if effect is not _WRITE:
                reads += regions
            if effect is not _READ:
                writes += regions
        if type(stmt) is AssignStmt:
            var = stmt.var
            regions = tiles.get(var)  # a tile variable met before (a loop's next pass)
            if regions is None:
                if _kind(type(var.type)) == _TENSOR:
                    self.gm.assign(stmt)  # a GM write's result names the tensor it wrote
                regions = self._regions(var)
            writes += regions
        read_set, write_set = frozenset(reads), frozenset(writes)
        known = self.accesses.get(id(stmt))
        if known is not None and known.reads == read_set and known.writes == write_set:
            return pipe, known
        now = self.accesses[id(stmt)] = _Access(read_set, write_set)
        return pipe, now

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
        if type(body) is SeqStmts and same_list(out, body.stmts):
            return body
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
        overlaps = self.buffers.overlaps
        hit_written = _NO_BUFFERS.union(*[overlaps[b] for b in now.writes])  # the buffers that overlap what it writes
        hit_any = hit_written.union(*[overlaps[b] for b in now.reads])  # ... or reads
        get = state.get
        while hit_any:
            # The pipe with the latest conflicting pending access (its position), the earliest pipe on a tie.
            top = -2
            for q, key in _FROM[pipe]:
                pending = get(key)
                if pending:
                    for a, at in pending.items():  # _hazard, inlined: this runs for every pending access
                        if at > top and (not a.writes.isdisjoint(hit_any) or not a.reads.isdisjoint(hit_written)):
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
        self._covered(state, placed.snaps[pair.s] if pair.s < k else _copy(state), q, pipe, pair.s)

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

    out: list[Stmt] = []
    waits: dict[int, list[_Pair]] = {}
    sets: dict[int, list[_Pair]] = {}
    for p in placed.pairs:  # in placement order, which the flags keep
        waits.setdefault(p.w, []).append(p)
        sets.setdefault(p.s, []).append(p)
    barriers = placed.barriers
    synced = waits.keys() | sets.keys() | barriers.keys()
    for k, s in enumerate(stmts):
        if k not in synced:  # most statements
            out.append(s)
            continue
        wait = waits.get(k, ())
        out += [sync("system.sync_dst", p) for p in wait if p.s < k]
        out += [sync("system.sync_src", p) for p in sets.get(k, ()) if p.w > k]
        for p in wait:
            if p.s == k:
                out += [sync("system.sync_src", p), sync("system.sync_dst", p)]
        out += [sync(_BARRIER[pipe]) for pipe in barriers.get(k, ())]
        out.append(s)
    if at_end:
        out.insert(len(out) - 1 if out and type(out[-1]) is ReturnStmt else len(out), sync("system.bar_all"))
    return out
