"""Invariants of split kernels: one side per kernel, well-formed cross-core pipes, and hard
syncalls launched at full occupancy."""

from __future__ import annotations

import functools

from math import prod

from pypto.analysis import FunctionIndex, callee, function_index, op_name
from pypto.analysis.lanes import needs_lane_replay, runs_on_both_lanes
from pypto.analysis.pipe_traffic import Counts, static_counts

from pypto.ir.enums import FunctionType, MemorySpace, is_incore_type
from pypto.ir.expr import Call, ConstInt, Expr, GlobalVar, MakeTuple, Op, Submit, TupleGetItemExpr, Var
from pypto.ir.function import Function, Program
from pypto.ir.op_registry import AIC, AIV, get_entry
from pypto.ir.ops.cross_core_ops import (
    GM_PIPE_BUFFER, PIPE_OP_DIRECTION, default_local_slot_num, free_pipe_id, pipe_flags, pipe_slot_num, slot_bytes,
)
from pypto.ir.stmt import AssignStmt, RuntimeScopeStmt
from pypto.ir.types import TileType

from .affinity import BY_OPERANDS, Affinity, AffinityRule, affinity, named_affinity
from .base import Invariant, Reporter, cached
from .grammar import Field, Forbid, NoNode, Ops, inside
from .reads import Bodies
from .walk import holds_any

_SIDE_OF = {FunctionType.AIC: AIC, FunctionType.AIV: AIV}
TPOPS = frozenset({"tile.tpop_from_aiv", "tile.tpop_from_aic"})
_TPUSHES = frozenset({"tile.tpush_to_aiv", "tile.tpush_to_aic"})
_PIPE_OPS = TPOPS | _TPUSHES
_TFREES = frozenset({"system.tfree_to_aic", "system.tfree_to_aiv"})
_PIPE_TRAFFIC = _PIPE_OPS | _TFREES
_INIT = {FunctionType.AIC: "system.aic_initialize_pipe", FunctionType.AIV: "system.aiv_initialize_pipe"}
_INITS = frozenset(_INIT.values())
_BUFFERS = frozenset({"system.reserve_buffer", "system.import_peer_buffer"})


def _calls_of(func: Function, names: frozenset[str]) -> list[Call]:
    """The calls of the ops ``names`` in ``func``, in pre-order (from the index's calls by op name:
    no op name is read per call)."""
    index = function_index(func)
    present = [n for n in names if n in index.op_names]
    if len(present) <= 1:
        return index.calls_to(present[0]) if present else []
    wanted = {id(c) for n in present for c in index.calls_to(n)}
    return [c for c in index.of(Call) if id(c) in wanted]


def _static_tile(t: object) -> bool:
    return isinstance(t, TileType) and all(isinstance(d, ConstInt) for d in t.shape)


def _placed_calls(index: FunctionIndex, names: set[str]) -> list[Call]:
    """The calls of the ops ``names`` and of program functions (whose side a placement attr may give)
    in a function (its ``index``), grouped by op name (not in pre-order): the index's calls by op
    name, not a loop over every call."""
    found = [c for n in names for c in index.calls_to(n)]
    if index.has(GlobalVar):
        found += [c for c in index.of(Call) if type(c.op) is not Op and isinstance(c.op, GlobalVar)]
    return found


@functools.lru_cache(maxsize=1_000)
def _named_sides(names: frozenset[str]) -> tuple[dict[str, AffinityRule], frozenset[AffinityRule]]:
    """``(side by op name, the sides)`` of the ops ``names`` (or BY_OPERANDS, see named_affinity): made
    once per set of op names, which kernels share (a set of Affinity members hashes each by a Python call)."""
    by_name = dict(zip(names, map(named_affinity, names)))
    return by_name, frozenset(by_name.values())


def _check_sides(func: Function, index: FunctionIndex, report: Reporter) -> None:
    kind = func.func_type
    forbidden = {FunctionType.AIC: Affinity.VECTOR, FunctionType.AIV: Affinity.CUBE}.get(kind)
    by_name, sides = _named_sides(index.op_names)
    # Most kernels call only ops whose names give their side: the names tell what every call would
    # (a call of a function may be placed on the vector side).
    if BY_OPERANDS not in sides and not index.has(GlobalVar) and (
            forbidden not in sides if forbidden else not {Affinity.CUBE, Affinity.VECTOR} <= sides):
        return
    if forbidden is None:  # an InCore function: only whether it mixes both sides
        # A call's side is its op name's when that decides it (affinity reads the same table).
        by_operands = {n for n, side in by_name.items() if side == BY_OPERANDS}
        sides = sides.union(map(affinity, _placed_calls(index, by_operands)))
        if Affinity.CUBE in sides and Affinity.VECTOR in sides:
            report.error("MIXED_KERNEL", "an InCore function mixes cube and vector work", func)
        return
    # A call of an op whose name gives an allowed side is fine: only the others are looked at.
    suspects = {n for n, side in by_name.items() if side in (forbidden, BY_OPERANDS)}
    wrong = {id(c) for c in _placed_calls(index, suspects) if affinity(c) is forbidden}
    for call in index.of(Call) if wrong else ():  # reported in pre-order
        if id(call) in wrong:
            name = op_name(call)
            what = f"op {name}" if name is not None else f"call of '{call.op.name}'"  # a function placed there
            report.error("WRONG_SIDE", f"{forbidden.value} {what} in an {kind.name} kernel", call)


def _tpop_space(name: str, func_type: FunctionType) -> MemorySpace | None:
    """The space a tpop lands in (its registry result space) in a kernel of its own side, else None."""
    entry = get_entry(name)
    if _SIDE_OF.get(func_type) != entry.core_side or entry.memory is None:
        return None
    space = entry.memory.output
    return space if isinstance(space, MemorySpace) else None


def _pipe_id(call: Call) -> int:
    return call.kwargs.get("id") or 0


def _tile_bytes(t: TileType) -> int:
    return prod(d.value for d in t.shape) * t.dtype.get_bit() // 8


def _slot_bytes(name: str, call: Call, t: TileType) -> int:
    return slot_bytes(name, _tile_bytes(t), int(call.kwargs.get("split") or 0))


def _check_setup(func: Function, pipe_calls: list[Call], report: Reporter) -> dict[int, Call]:
    """Each pipe op (``pipe_calls``, in pre-order) runs on a pipe the kernel initialises; returns the
    setups by pipe id."""
    names = function_index(func).op_names
    init = _INIT.get(func.func_type)
    setups = {_pipe_id(c): c for c in _calls_of(func, _INITS)}
    first = pipe_calls[0]
    spelled = str(init).replace("system.", "pl.")
    if init is not None and (init not in names or not names & _BUFFERS):
        report.error("MISSING_PIPE_SETUP", f"{op_name(first)} on a pipe that '{func.name}' never sets up: call "
                     f"{spelled} (with its id=) before the first push or pop, on a buffer the consumer reserves "
                     "(pl.reserve_buffer) and the producer imports (pl.import_peer_buffer)", first)
        return setups
    for call in pipe_calls if setups else ():
        setup = setups.get(_pipe_id(call))
        if setup is None:
            report.error("PIPE_NOT_INITIALISED", f"{op_name(call)} on pipe {_pipe_id(call)}, which '{func.name}' "
                         f"does not initialise (it sets up pipe {', '.join(map(str, sorted(setups)))}): call "
                         f"{spelled} with id={_pipe_id(call)} first", call)
        elif not PIPE_OP_DIRECTION[op_name(call)] & setup.kwargs["dir_mask"]:
            direction = PIPE_OP_DIRECTION[op_name(call)]
            way = ("cube to vector", "vector to cube")[direction - 1]
            report.error("PIPE_DIRECTION", f"{op_name(call)} moves a tile {way} on pipe {_pipe_id(call)}, which "
                         f"'{func.name}' sets up for the other direction only (dir_mask={setup.kwargs['dir_mask']}): "
                         f"initialise pipe {_pipe_id(call)} with dir_mask={direction} (or 3 for both directions) "
                         "in both kernels", call)
    return setups


def _flag_text(setup: Call) -> str:
    flags = pipe_flags(setup.kwargs["dir_mask"], _pipe_id(setup))
    return f"{flags[0]} to {flags[-1]}" if len(flags) > 2 else f"{flags[0]} and {flags[-1]}"


def _check_flags(setups: dict[int, Call], report: Reporter) -> None:
    """No two pipes of a kernel share a cross-core flag: on a2a3 one would take the other's signals."""
    taken: dict[int, int] = {}  # flag -> the pipe (lower id first) that takes it
    for pipe, setup in sorted(setups.items()):
        mask = setup.kwargs["dir_mask"]
        other = next((taken[f] for f in pipe_flags(mask, pipe) if f in taken), None)
        if other is None:
            taken.update(dict.fromkeys(pipe_flags(mask, pipe), pipe))
            continue
        others = {f for p, c in setups.items() if p != pipe for f in pipe_flags(c.kwargs["dir_mask"], p)}
        free = free_pipe_id(mask, others)
        fix = (f"give pipe {pipe} id={free}" if free is not None else
               "a core has 16 flags: at most 8 one-way or 4 two-way pipes a kernel")
        report.error("PIPE_FLAGS_OVERLAP", f"pipes {other} and {pipe} share cross-core flags: pipe {other} takes "
                     f"flags {_flag_text(setups[other])}, pipe {pipe} flags {_flag_text(setup)} (on a2a3 a pipe "
                     "signals its filled and freed slots through flags id and id + 1, and a two-way pipe id + 2 and "
                     f"id + 3 too, so the pipes would take each other's signals): {fix} (number one-way pipes 2 "
                     "apart and two-way pipes 4 apart)", setup)


def _ring_rule(report: Reporter) -> str:
    """How many bytes a consumer reserves for a pipe's slots on the platform being checked."""
    return "slot_size * local_slot_num" if report.platform.pipe_ring_in_gm else "slot_size * slot_num"


def _check_slot(name: str, call: Call, t: object, setups: dict[int, Call], report: Reporter, node: object) -> None:
    setup = setups.get(_pipe_id(call))
    if setup is None or not _static_tile(t):
        return
    need, size = _slot_bytes(name, call, t), setup.kwargs["slot_size"]
    if need > size:
        shape = "x".join(str(d.value) for d in t.shape)
        held = f"{need} bytes" if need == _tile_bytes(t) else f"a slot holds the cube's whole tile, {need} bytes"
        report.error("SLOT_TOO_SMALL", f"{name} moves a {shape} {t.dtype.name} tile ({held}) through pipe "
                     f"{_pipe_id(call)}, whose slots hold {size} bytes: set slot_size={need} or more in its "
                     f"initialize_pipe (and reserve {_ring_rule(report)} bytes for its slots)", node)


# The consumer's buffer operand of an initialize_pipe (c2v on the AIV, v2c on the AIC) and its dir_mask bit.
_CONSUMES = {FunctionType.AIV: (0, 1), FunctionType.AIC: (1, 2)}


def _check_rings(func: Function, setups: dict[int, Call], report: Reporter) -> None:
    """Each buffer a consumer reserves for a pipe holds the slots it keeps on chip."""
    operand, bit = _CONSUMES.get(func.func_type, (None, 0))
    index = function_index(func)
    # The reserving calls by op name (no op name read per assignment), and a submission of the op.
    reserves = {id(c) for c in index.calls_to("system.reserve_buffer")}
    if index.has(Submit):
        reserves.update(id(s) for s in index.of(Submit) if op_name(s) == "system.reserve_buffer")
    reserved = {s.var: s.value for s in index.of(AssignStmt) if id(s.value) in reserves} if reserves else {}
    for pipe, setup in sorted(setups.items()):
        reserve = reserved.get(setup.args[operand]) if operand is not None and setup.kwargs["dir_mask"] & bit else None
        if reserve is None:
            continue
        slots = pipe_slot_num(setup)
        local = setup.kwargs.get("local_slot_num") or default_local_slot_num(slots)
        on_chip = report.platform.pipe_buffer_slots(slots, local)
        need, size = on_chip * setup.kwargs["slot_size"], reserve.kwargs["size"]
        if size < need:
            report.error("RING_TOO_SMALL", f"pl.reserve_buffer '{reserve.kwargs['name']}' holds {size} bytes, but "
                         f"pipe {pipe} keeps {on_chip} slot(s) of {setup.kwargs['slot_size']} bytes in it on "
                         f"{report.platform.target_arch} ({_ring_rule(report)}): reserve size={need} or more, or "
                         "take fewer slots", reserve)


def _check_pipes(func: Function, index: FunctionIndex, report: Reporter) -> None:
    names = index.op_names
    if names.isdisjoint(_PIPE_TRAFFIC):
        return
    pipe_calls = _calls_of(func, _PIPE_TRAFFIC)
    setups = _check_setup(func, pipe_calls, report)
    _check_flags(setups, report)
    _check_rings(func, setups, report)
    dual = runs_on_both_lanes(func)
    split = next((c for c in pipe_calls if op_name(c) in _PIPE_OPS and c.kwargs.get("split")), None)
    if func.func_type is FunctionType.AIV and split is not None and not dual:
        report.error("SPLIT_ON_ONE_LANE", f"{op_name(split)} with split={split.kwargs['split']} in '{func.name}', "
                     "which runs on one vector lane: each lane moves half of the tile, so declare the kernel "
                     "@pl.function(type=pl.FunctionType.AIV, attrs={\"dual_aiv_dispatch\": True}) to run it on both",
                     split)
    freed: set[Var] = set()
    for call in pipe_calls:
        name = op_name(call)
        if name in _TFREES:
            freed.update(a for a in call.args if isinstance(a, Var))
        elif name in _TPUSHES and call.args and not _static_tile(call.args[0].type):
            report.error("DYNAMIC_PIPE_TILE", f"{name} sends a tile without a static shape", call)
        elif name in _TPUSHES and call.args:
            _check_slot(name, call, call.args[0].type, setups, report, call)
    pops = {id(c) for c in _calls_of(func, TPOPS)}
    for stmt in function_index(func).of(AssignStmt) if pops else ():
        if id(stmt.value) not in pops:
            continue
        name = op_name(stmt.value)
        want = _tpop_space(name, func.func_type)
        space = stmt.var.type.memory_space if isinstance(stmt.var.type, TileType) else None
        if want is not None and space is not want:
            report.error(
                "TPOP_SPACE", f"{name} lands in {space.name if space else 'no space'}, needs {want.name}", stmt
            )
        if not _static_tile(stmt.var.type):
            report.error("DYNAMIC_PIPE_TILE", f"{name} receives a tile without a static shape", stmt)
        _check_slot(name, stmt.value, stmt.var.type, setups, report, stmt)
        if stmt.var not in freed:
            report.error("MISSING_TFREE", f"'{stmt.var.name_hint}' from {name} is never freed", stmt)


# A consumer's pop -> the producer's push of the same direction.
_PUSH_OF = {"tile.tpop_from_aic": "tile.tpush_to_aiv", "tile.tpop_from_aiv": "tile.tpush_to_aic"}


def _group_kernels(program: Program, group: Function) -> list[tuple[Function, Call]]:
    """The AIC and AIV kernels ``group`` calls, with the calls."""
    called = [(callee(program, c), c) for c in function_index(group).of(Call)]
    return [(k, c) for k, c in called if k is not None and k.func_type in _SIDE_OF]


def _peers(program: Program, func: Function) -> list[Function]:
    """The kernels of the other side in the Groups that launch ``func``."""
    peers: list[Function] = []
    for group in program.functions.values():
        if group.func_type is not FunctionType.Group:
            continue
        kernels = [k for k, _ in _group_kernels(program, group)]
        if any(k is func for k in kernels):
            peers += [k for k in kernels if k.func_type is not func.func_type]
    return peers


def _check_group(group: Function, program: Program, report: Reporter) -> None:
    """A Group launches one kernel of each side: the orchestration runs it as one mixed task
    ``{aic, aiv, aiv}`` whose second vector slot can only be the same AIV kernel on lane 1."""
    seen: dict[FunctionType, list[str]] = {}
    for kernel, call in _group_kernels(program, group):
        names = seen.setdefault(kernel.func_type, [])
        names.append(kernel.name)
        if len(names) == 2:
            listed = ", ".join(f"'{n}'" for n in names)
            report.error("GROUP_KERNELS", f"Group '{group.name}' launches 2 {kernel.func_type.name} kernels "
                         f"({listed}), but a Group (or pl.cluster()) runs as one mixed task of one AIC and one AIV "
                         "kernel (the AIV kernel runs on both vector cores when split or dual_aiv_dispatch): merge "
                         f"the {kernel.func_type.name} work into one kernel, or launch the other from the "
                         "orchestration", call)


def _pipe_counts(func: Function) -> Counts:
    """Per (push or pop op name, pipe id), how many times one run of ``func`` makes it when static:
    counted once per function object, for its own pops and its Group peers' pushes."""

    def count() -> Counts:
        index = function_index(func)
        keys = {id(c): (name, _pipe_id(c)) for name in _PIPE_OPS for c in index.calls_to(name)}
        return static_counts(func.body, keys) if keys else {}

    return cached("<pipe counts>", func, None, count)


def _check_counts(func: Function, index: FunctionIndex, peers: list[Function], report: Reporter) -> None:
    """In a Group, each pipe's pops equal the peer's pushes when both counts are known at compile time."""
    called = index.op_names
    for pop, push in _PUSH_OF.items():
        if pop not in called:
            continue
        popping = index.calls_to(pop)
        for pipe in sorted({_pipe_id(c) for c in popping}):
            popped = _pipe_counts(func).get((pop, pipe), 0)
            for peer in peers:
                pushed = _pipe_counts(peer).get((push, pipe), 0)
                if popped is not None and pushed is not None and popped != pushed:
                    first = next(c for c in popping if _pipe_id(c) == pipe)
                    report.error("PIPE_COUNT_MISMATCH", f"'{func.name}' pops {popped} tile(s) from pipe {pipe} but "
                                 f"'{peer.name}' pushes {pushed}: a pop without a push waits forever and an unpopped "
                                 "push fills the ring; make the counts equal", first)


def _setup_facts(setup: Call) -> dict[str, int]:
    slots = pipe_slot_num(setup)
    return {"dir_mask": setup.kwargs["dir_mask"], "slot_size": setup.kwargs["slot_size"], "slot_num": slots,
            "local_slot_num": setup.kwargs.get("local_slot_num") or default_local_slot_num(slots)}


def _check_peer_setups(func: Function, index: FunctionIndex, peers: list[Function], report: Reporter) -> None:
    """In a Group, the AIV kernel sets each pipe up as its AIC peer does (else each side computes other slots)."""
    mine = {_pipe_id(c): c for c in index.calls_to(_INIT[FunctionType.AIV])}
    for peer in peers:
        theirs = {_pipe_id(c): c for c in function_index(peer).calls_to(_INIT[FunctionType.AIC])}
        for pipe in sorted(mine.keys() & theirs.keys()):
            here, there = _setup_facts(mine[pipe]), _setup_facts(theirs[pipe])
            differ = [f"{k}={here[k]} here, {there[k]} in '{peer.name}'" for k in here if here[k] != there[k]]
            if differ:
                report.error("PIPE_SETUP_MISMATCH", f"pipe {pipe} is set up differently by the two kernels of a Group "
                             f"({'; '.join(differ)}): both sides must initialise it with the same dir_mask, "
                             "slot_size, slot_num and local_slot_num", mine[pipe])


def _no_mixed_kernel(func: Function) -> bool:
    """MixedKernelExpanded's idle test: ``func`` is neither a Group nor a kernel."""
    return func.func_type is not FunctionType.Group and not is_incore_type(func.func_type)


def _check_mixed(func: Function, program: Program, report: Reporter) -> None:
    if _no_mixed_kernel(func):
        return
    if func.func_type is FunctionType.Group:
        _check_group(func, program, report)
        return
    index = function_index(func)  # (one lookup for the checks below)
    _check_sides(func, index, report)
    _check_pipes(func, index, report)
    # The rules reading the Group peers: a kernel that pops, and a vector kernel setting a pipe up.
    setups = func.func_type is FunctionType.AIV and _INIT[FunctionType.AIV] in index.op_names
    if func.func_type in _SIDE_OF and (setups or not index.op_names.isdisjoint(TPOPS)):
        peers = _peers(program, func)
        _check_counts(func, index, peers, report)
        if setups:
            _check_peer_setups(func, index, peers, report)


MixedKernelExpanded = Invariant.per_function(
    "MixedKernelExpanded",
    "kernels run on one side; cross-core pipes are set up, land in Mat/Vec, are freed and statically shaped",
    _check_mixed,
    auto_verified=True,
    # a kernel's Groups and its peer kernels' pushes and pipe set-ups (a Group's kernels: signatures)
    reads_bodies=Bodies(group_peers=True, of={FunctionType.AIC, FunctionType.AIV}),
    idle_if=_no_mixed_kernel,
)



def _check_lane_replay(func: Function, program: Program, report: Reporter) -> None:
    if needs_lane_replay(func):
        report.error("NO_LANE_REPLAY", f"vector kernel '{func.name}' runs unsplit on both AIV lanes with pipe traffic "
                     "but does not branch on its lane: both would compute and store (run SplitVectorKernel, or "
                     "read pl.tile.get_subblock_idx() to give each lane its work)", func)


VectorKernelSplit = Invariant.per_function(
    "VectorKernelSplit",
    "an unsplit vector kernel with pipes launched on both AIV lanes does its work on lane 0 only",
    _check_lane_replay,
    auto_verified=True,
)


def _sets_no_pipe(func: Function) -> bool:
    """GMPipeRingPassed's idle test: ``func`` is no AIC or AIV kernel (only they set pipes up)."""
    return func.func_type not in _INIT


def _check_gm_ring(func: Function, program: Program, report: Reporter) -> None:
    if not report.platform.pipe_ring_in_gm or _sets_no_pipe(func):
        return
    setup = next(iter(function_index(func).calls_to(_INIT[func.func_type])), None)
    if setup is not None and not any(p.name_hint == GM_PIPE_BUFFER for p in func.params):
        report.error("NO_GM_PIPE_RING", f"kernel '{func.name}' sets up a cross-core pipe without a GM ring parameter "
                     f"'{GM_PIPE_BUFFER}', where {report.platform.target_arch} keeps a pipe's slots (run "
                     "InjectGMPipeBuffer)", setup)


GMPipeRingPassed = Invariant.per_function(
    "GMPipeRingPassed",
    "on a chip whose cross-core pipe rings live in GM (a2a3), each kernel setting up a pipe takes its ring",
    _check_gm_ring,
    auto_verified=True,
    idle_if=_sets_no_pipe,
)

_CORE_TYPE = {FunctionType.AIC: "aic_only", FunctionType.AIV: "aiv_only"}


def _launch(call: Expr) -> tuple[Expr | None, bool]:
    """``(core_num, sync_start)`` of a dispatch (Submit fields or Call attrs)."""
    if isinstance(call, Submit):
        return call.core_num, call.sync_start
    return call.attrs.get("core_num"), bool(call.attrs.get("sync_start", False))


def _dispatches(program: Program, name: str, seen: set[str]) -> list[tuple[str, Expr]]:
    """The launches of function ``name``: its callers, or the launches of a Group/Spmd wrapping it."""
    found = []
    for func in program.functions.values():
        for call in function_index(func).of(Call, Submit):
            target = callee(program, call)
            if target is None or target.name != name:
                continue
            if func.func_type in (FunctionType.Group, FunctionType.Spmd) and func.name not in seen:
                seen.add(func.name)
                found.extend(_dispatches(program, func.name, seen))
            else:
                found.append((func.name, call))
    return found


def _hard_syncalls(func: Function) -> list[Call]:
    """The hard ``system.syncall`` calls of ``func``, found once per function object: the check
    sees the whole program at every boundary, and most functions are unchanged between two."""

    def find() -> list[Call]:
        return [c for c in function_index(func).calls_to("system.syncall") if c.kwargs.get("mode", "hard") == "hard"]

    return cached("<hard syncalls>", func, None, find)


def _check_syncall(program: Program, report: Reporter) -> None:
    platform = report.platform
    full = {"aic_only": platform.aic_cores, "aiv_only": platform.aiv_cores, "mix": platform.aic_cores}
    for func in program.functions.values():
        for sync in _hard_syncalls(func):
            report.function = func.name
            core_type = str(sync.kwargs.get("core_type", "mix"))
            expected = _CORE_TYPE.get(func.func_type)
            if expected is not None and core_type != expected:
                report.error("SYNCALL_CORE_TYPE", f"{core_type} syncall in an {func.func_type.name} kernel", sync)
            need = full.get(core_type)
            for caller, call in _dispatches(program, func.name, {func.name}):
                core_num, sync_start = _launch(call)
                report.function = caller
                count = core_num.value if isinstance(core_num, ConstInt) else None
                if not sync_start or count != need:
                    report.error(
                        "SYNCALL_OCCUPANCY",
                        f"'{func.name}' has a hard syncall; launch it on all {need} cores with sync_start=True",
                        call,
                    )
    report.function = ""


HardSyncallOccupancyValid = Invariant.per_program(
    "HardSyncallOccupancyValid",
    "a kernel with a hard syncall is launched on every core of its type with sync_start=True",
    _check_syncall,
    auto_verified=True,
)


_KERNEL_FUNCTIONS = inside(FunctionType.AIC, FunctionType.AIV)
_NOT_PRINTED = "(the kernel code generators print no {what} in a kernel)"

# Cross-core moves of a mixed kernel: ExpandMixedKernel turns each into a tpush/tpop pipe.
_SHARDS = frozenset({"tile.aiv_shard", "tile.aic_gather"})


def _kernel_nodes_hold(func: Function) -> bool:
    """A cheap sufficient condition for KernelNodes (no rule walk)."""
    if func.func_type not in (FunctionType.AIC, FunctionType.AIV):
        return True
    index = function_index(func)
    if holds_any(index, (Submit, RuntimeScopeStmt, TupleGetItemExpr)) or not index.op_names.isdisjoint(_SHARDS):
        return False
    # In the pre-order an assignment is followed by its variable and then by its value: a tuple made
    # (few are: offsets) is an assignment's value when one stands two nodes before it.
    nodes = index.nodes
    return not any(i >= 2 and isinstance(nodes[i - 2], AssignStmt) and nodes[i - 2].value is nodes[i]
                   for i in index.positions(MakeTuple))


# The node kinds of the dialect that kernels may not hold: what the PTO and CCE emitters have no
# rule for. Values of tuple type only reach a kernel through ops no kernel emitter prints either.
KernelNodes = Invariant.declared(
    "KernelNodes",
    "AIC/AIV kernels hold no task submission, runtime scope, tuple item or unlowered cross-core move",
    Forbid(what=Submit, where=_KERNEL_FUNCTIONS, code="SUBMIT_IN_KERNEL",
           message="a task submission in {kind} kernel '{func}' " + _NOT_PRINTED.format(what="submission")),
    Forbid(what=RuntimeScopeStmt, where=_KERNEL_FUNCTIONS, code="RUNTIME_SCOPE_IN_KERNEL",
           message="a runtime scope in {kind} kernel '{func}' " + _NOT_PRINTED.format(what="runtime scope")),
    Forbid(what=TupleGetItemExpr, where=_KERNEL_FUNCTIONS, code="TUPLE_IN_KERNEL",
           message="a tuple item in {kind} kernel '{func}' " + _NOT_PRINTED.format(what="tuple value")),
    Field(of=AssignStmt, field="value", refinement=NoNode(MakeTuple), where=_KERNEL_FUNCTIONS, code="TUPLE_IN_KERNEL",
          message="a tuple value in {kind} kernel '{func}' " + _NOT_PRINTED.format(what="tuple value")),
    Forbid(what=Ops("cross-core moves", prefix="tile.a", keep=_SHARDS.__contains__), where=_KERNEL_FUNCTIONS,
           code="SHARD_IN_KERNEL", message="{op} in {kind} kernel '{func}' (ExpandMixedKernel makes it a pipe)"),
    holds_if=_kernel_nodes_hold,
)
