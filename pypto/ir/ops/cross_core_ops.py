"""Cross-core operators (docs/ops.md#cross-core-pipes): TPUSH/TPOP pipes between the cube (AIC) and vector (AIV) cores.

A producer pushes a tile into a ring of slots, the consumer pops it and frees the slot. Pipes are
initialised on both sides over reserved (or peer-imported) buffers.
"""

from __future__ import annotations

import re

from ..datatype import DataType
from ..enums import FunctionType, MemorySpace
from ..expr import Call
from ..op_registry import AIC, CallInfo, OpEntry
from ..type_base import ScalarType, Type, UnknownType
from . import kwtypes as K
from .common import tile_type
from .decl import AIC_ONLY, AIV_ONLY, KERNEL, Mat, Vec, define, kw, mem, scalar, tile
from .normalize import const_of
from .shape_rules import split_dims
from .system_ops import statement
from .tensor_view_ops import LANE_STRIDE, SPLIT

D = DataType
SPLIT_CODE = K.IntKw(0, 4)
ID = kw("id", K.IntKw(0), None, always=False, keyword_only=True)


def popped(ci: CallInfo) -> Type:
    """UnknownType: the builder gives the call an explicit type when shape and dtype are known."""
    return UnknownType.get()


_PIPE_OPS: list[OpEntry] = [
    define("tile.tpush_to_aiv", [tile("tile")], statement, placement=AIC_ONLY, side_effect=True,
           memory=mem(()), kwargs=[SPLIT, LANE_STRIDE, ID]),
    define("tile.tpush_to_aic", [tile("tile")], statement, placement=AIV_ONLY, side_effect=True,
           memory=mem(()), kwargs=[SPLIT, ID]),
    define("tile.tpop_from_aic", [], popped, placement=AIV_ONLY, side_effect=True,
           memory=mem(out=Vec),
           kwargs=[kw("split", SPLIT_CODE, 0, keyword_only=True), LANE_STRIDE, ID]),
    define("tile.tpop_from_aiv", [], popped, placement=AIC_ONLY, side_effect=True,
           memory=mem(out=Mat), kwargs=[kw("split", SPLIT_CODE, 0, keyword_only=True), ID]),
]

FREE_SPLIT = kw("split", SPLIT_CODE, None, always=False, keyword_only=True)
_PIPE_OPS += [
    define("system.tfree_to_aic", [tile("tile")], statement, placement=AIV_ONLY, side_effect=True,
           kwargs=[FREE_SPLIT, ID]),
    define("system.tfree_to_aiv", [tile("tile")], statement, placement=AIC_ONLY, side_effect=True,
           kwargs=[FREE_SPLIT, ID]),
]


# A pipe direction is its dir_mask bit: cube -> vector (C->V) and vector -> cube (V->C); a two-way pipe has both.
C2V, V2C = 1, 2
# The short name of each direction (pto-isa's TPipe buffers and our printed pipe halves are named so).
DIRECTION_NAMES: dict[int, str] = {C2V: "c2v", V2C: "v2c"}


def _direction(entry: OpEntry) -> int:
    """A pipe op's dir_mask bit: the side that runs it pushes from itself and pops and frees into itself."""
    cube = entry.core_side == AIC
    return C2V if cube == entry.name.startswith("tile.tpush_") else V2C


# The direction each pipe op moves tiles in, as its dir_mask bit.
PIPE_OP_DIRECTION: dict[str, int] = {entry.name: _direction(entry) for entry in _PIPE_OPS}

# The parameter holding a kernel's a2a3 GM pipe ring (InjectGMPipeBuffer adds it, codegen passes it to TPipe).
GM_PIPE_BUFFER = "__gm_pipe_buffer"


def default_slot_num(dir_mask: int) -> int:
    """The slots of a pipe that does not say: 8 one-way, 4 per direction both ways."""
    return 4 if dir_mask == 3 else 8


def slot_bytes(op: str, held_bytes: int, split: int) -> int:
    """The bytes of one slot that ``op`` (a tpush/tpop) moves for a tile of ``held_bytes`` on its side.

    A slot holds the cube's whole tile: under a split (``split`` non-zero) each AIV lane's tile is half
    of it, so a vector push or pop takes twice its tile. On a2a3 the cube writes its whole tile into the
    slot of the GM ring and each lane reads its half there (pto-isa's TPipe).
    """
    if split and op in ("tile.tpush_to_aic", "tile.tpop_from_aic"):
        return held_bytes * 2
    return held_bytes


def default_local_slot_num(slot_num: int) -> int:
    """The slots a pipe keeps in its consumer's local memory when ``local_slot_num`` is not given."""
    return min(2, slot_num)


# The ops that set up a pipe, on each side.
PIPE_SETUPS = ("system.aic_initialize_pipe", "system.aiv_initialize_pipe")


def pipe_slot_num(setup: Call) -> int:
    """The slot count of an ``*_initialize_pipe`` call (its ``slot_num``, else the default)."""
    slots = setup.kwargs.get("slot_num")
    return slots if slots is not None else default_slot_num(setup.kwargs["dir_mask"])


def gm_ring_layout(setups: list[Call]) -> dict[int, tuple[int, int]]:
    """Where each pipe of a kernel's ``*_initialize_pipe`` calls lies in its a2a3 GM ring: pipe id ->
    (byte offset, bytes), in id order; a pipe takes ``slot_num * slot_size`` bytes per direction."""
    sizes = {setup.kwargs.get("id") or 0: (2 if setup.kwargs["dir_mask"] == 3 else 1) * pipe_slot_num(setup)
             * setup.kwargs["slot_size"] for setup in setups}
    layout: dict[int, tuple[int, int]] = {}
    offset = 0
    for pipe in sorted(sizes):
        layout[pipe] = (offset, sizes[pipe])
        offset += sizes[pipe]
    return layout


# pto-isa's a2a3 TPipe<id, dir_mask, ...> (npu/a2a3/TPush.hpp) signals between the cores through cross-core
# flags: a one-way pipe's consumer waits on flag id for a filled slot and its producer on id + 1 for a freed
# one; a two-way pipe adds the V->C direction on id + 2 (filled) and id + 3 (freed). A core has 16 flags.
CROSS_CORE_FLAGS = 16


def pipe_flags(dir_mask: int, pipe_id: int) -> range:
    """The cross-core flags pipe ``pipe_id`` takes: id, id + 1 one-way; id to id + 3 two-way."""
    return range(pipe_id, pipe_id + (4 if dir_mask == 3 else 2))


def direction_flag(dir_mask: int, pipe_id: int, direction: int) -> int:
    """The FlagID of the one-way TPipe carrying ``direction`` of the pipe (CCE prints a two-way pipe as two
    one-way TPipes): the V->C half of a two-way pipe starts at id + 2, as in the two-way TPipe."""
    return pipe_id + 2 if dir_mask == 3 and direction == V2C else pipe_id


def max_pipe_id(dir_mask: int) -> int:
    """The largest pipe id whose flags fit in ``CROSS_CORE_FLAGS``: 12 two-way, 14 one-way."""
    return CROSS_CORE_FLAGS - len(pipe_flags(dir_mask, 0))


def free_pipe_id(dir_mask: int, taken: set[int]) -> int | None:
    """The smallest id whose flags (for a pipe of ``dir_mask``) miss every flag in ``taken``, or None."""
    return next((i for i in range(max_pipe_id(dir_mask) + 1) if taken.isdisjoint(pipe_flags(dir_mask, i))), None)


def _initialize_pipe(ci: CallInfo) -> Type:
    """Set up the pipe: ``dir_mask`` 1/2/3, ``local_slot_num <= slot_num`` (default 8 one-way, 4 two-way),
    ``id <= max_pipe_id(dir_mask)``."""
    for name in ("c2v_consumer_buf", "v2c_consumer_buf"):
        if ci[name].type.dtype != D.INT32:
            ci.fail(f"argument '{name}' must be an INT32 scalar, got {ci[name].type.dtype.name}")
    mask = ci.kw("dir_mask")
    pipe_id = ci.kw("id") or 0
    if pipe_id > max_pipe_id(mask):
        way, flags = ("two-way", "id to id + 3") if mask == 3 else ("one-way", "id and id + 1")
        ci.fail(f"id ({pipe_id}) must be <= {max_pipe_id(mask)} for a {way} pipe (dir_mask={mask})",
                f"a pipe takes the cross-core flags {flags} and a core has {CROSS_CORE_FLAGS} (0 to "
                f"{CROSS_CORE_FLAGS - 1}): number the pipes of a kernel from 0, one-way pipes 2 apart and "
                "two-way pipes 4 apart")
    slots = ci.kw("slot_num")
    local = ci.kw("local_slot_num")
    if ci.kw("slot_size") % 4:
        # the GM ring is laid out in 4-byte words (codegen and InjectGMPipeBuffer divide by 4)
        ci.fail(f"slot_size ({ci.kw('slot_size')}) must be a multiple of 4 bytes")
    if local is not None:
        limit = slots if slots is not None else default_slot_num(mask)
        if local > limit:
            ci.fail(f"local_slot_num ({local}) must be <= slot_num ({limit})")
    return UnknownType.get()


PIPE_BUF = dict(norm=const_of(D.INT32))
PIPE_KWARGS = [kw("dir_mask", K.IntKw(1, 3), keyword_only=True), kw("slot_size", K.IntKw(1), keyword_only=True),
               kw("slot_num", K.IntKw(1), None, always=False, keyword_only=True),
               kw("local_slot_num", K.IntKw(1), None, always=False, keyword_only=True), ID]
for _side, _where in (("aic", AIC_ONLY), ("aiv", AIV_ONLY)):
    define(f"system.{_side}_initialize_pipe",
           [scalar("c2v_consumer_buf", **PIPE_BUF), scalar("v2c_consumer_buf", **PIPE_BUF)],
           _initialize_pipe, placement=_where, side_effect=True,
           kwargs=PIPE_KWARGS)

def direction_ring_offset(setup: Call, direction: int) -> int:
    """The byte offset of one direction's slots in its pipe's part of the GM ring (``gm_ring_layout``):
    a two-way pipe keeps its C->V slots first and its V->C slots after them, as pto-isa's a2a3 TPipe does."""
    if setup.kwargs["dir_mask"] == 3 and direction == 2:
        return pipe_slot_num(setup) * setup.kwargs["slot_size"]
    return 0


AUTO = -1


def reserved_space(func_type: FunctionType) -> MemorySpace:
    """Where a kernel's ``reserve_buffer`` rings live: the consumer's memory, Mat on the cube, else Vec."""
    return MemorySpace.Mat if func_type is FunctionType.AIC else MemorySpace.Vec
_NAME = re.compile(r"[A-Za-z0-9_]+")


def check_buffer_name(ci: CallInfo, key: str) -> None:
    if not _NAME.fullmatch(ci.kw(key)):
        ci.fail(f"{key} must match [A-Za-z0-9_]+, got {ci.kw(key)!r}")


def _reserve_buffer(ci: CallInfo) -> Type:
    """``Scalar[INT32]``: the base of a named cross-core buffer (``base=AUTO`` lets the planner pick)."""
    check_buffer_name(ci, "name")
    if ci.kw("base") < AUTO:
        ci.fail(f"base must be AUTO (-1) or >= 0, got {ci.kw('base')}")
    return ScalarType(D.INT32)


def _import_peer_buffer(ci: CallInfo) -> Type:
    """``Scalar[INT32]``: the base of a buffer reserved by the peer function."""
    check_buffer_name(ci, "name")
    return ScalarType(D.INT32)


define("system.reserve_buffer", [], _reserve_buffer, placement=KERNEL, side_effect=True,
       kwargs=[kw("name", K.STR, keyword_only=True), kw("size", K.IntKw(1), keyword_only=True),
               kw("base", K.INT, AUTO, keyword_only=True)])
define("system.import_peer_buffer", [], _import_peer_buffer, placement=KERNEL, side_effect=True,
       kwargs=[kw("name", K.STR, keyword_only=True), kw("peer_func", K.STR, keyword_only=True)])


def _aiv_shard(ci: CallInfo) -> Type:
    """This vector core's half of a tile, in Vec (split axis halved)."""
    t = ci["tile"].type
    return tile_type(split_dims(ci, list(t.shape), gather=False), t.dtype, space=Vec)


def _aic_gather(ci: CallInfo) -> Type:
    """Both vector halves joined for the cube core, in Mat (split axis doubled)."""
    t = ci["tile"].type
    return tile_type(split_dims(ci, list(t.shape), gather=True), t.dtype, space=Mat)


define("tile.aiv_shard", [tile("tile")], _aiv_shard, placement=KERNEL, memory=mem((), out=Vec),
       kwargs=[SPLIT, LANE_STRIDE])
define("tile.aic_gather", [tile("tile")], _aic_gather, placement=KERNEL, memory=mem((), out=Mat), kwargs=[SPLIT])
