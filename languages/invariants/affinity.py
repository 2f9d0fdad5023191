"""Core affinity of tile operations (docs/passes.md#expandmixedkernel): which side of a mixed kernel runs them."""

from __future__ import annotations

import enum
from typing import Final, Literal

from pypto.analysis.pipes import BY_SOURCE, PIPE_EXCEPTIONS
from pypto.ir.enums import MemorySpace, PipeType
from pypto.ir.expr import Call, Expr, GlobalVar, Submit
from pypto.ir.op_registry import AIC, AIV, OpEntry, lookup
from pypto.ir.types import TileType


class Affinity(enum.Enum):
    CUBE = "cube"
    VECTOR = "vector"
    BOUNDARY = "boundary"
    SHARED = "shared"


CUBE_SPACES = frozenset(
    {
        MemorySpace.Mat,
        MemorySpace.Left,
        MemorySpace.Right,
        MemorySpace.Acc,
        MemorySpace.Bias,
        MemorySpace.LeftScale,
        MemorySpace.RightScale,
    }
)
BY_OPERANDS: Final = "by_operands"  # the side follows the space of a tile the op makes, reads or moves
AffinityRule = Affinity | Literal["by_operands"]

# Tile ops whose side is not derived (a view, and a transfer (on an MTE pipe, or a copy whose pipe
# follows its source), follow the spaces they read or make; an op only cube-side kernels may contain
# is CUBE, one only vector-side kernels may contain is VECTOR; else an op on the M pipe is CUBE and
# one on the V pipe VECTOR, pypto.analysis.pipes).
AFFINITY_EXCEPTIONS: dict[str, AffinityRule] = {
    # Index queries and buffer declarations (tile.alloc emits no instruction) run on either side.
    "tile.get_block_idx": Affinity.SHARED,
    "tile.get_subblock_idx": Affinity.SHARED,
    "tile.get_block_num": Affinity.SHARED,
    "tile.alloc": Affinity.SHARED,
    "tile.aiv_shard": Affinity.BOUNDARY,
    "tile.aic_gather": Affinity.BOUNDARY,
    "tile.create": BY_OPERANDS,
    # Element access: the vector side (it issues no cube instruction).
    "tile.read": Affinity.VECTOR,
    "tile.write": Affinity.VECTOR,
}
_SIDE = {AIC: Affinity.CUBE, AIV: Affinity.VECTOR}
_PIPE_SIDE = {PipeType.M: Affinity.CUBE, PipeType.V: Affinity.VECTOR}
_TRANSFERS = (BY_SOURCE, PipeType.MTE1, PipeType.MTE2, PipeType.MTE3)
UNDECIDED: Final = "undecided"


def derived_affinity(entry: OpEntry) -> AffinityRule | Literal["undecided"]:
    """The side ``entry`` and its pipe decide: a view's and a transfer's follow their operands, a
    cube-/vector-only op's is CUBE/VECTOR, an M-/V-pipe op's CUBE/VECTOR; else undecided."""
    if entry.view:
        return BY_OPERANDS
    side = entry.core_side
    if side is not None:
        return _SIDE[side]
    pipe = PIPE_EXCEPTIONS.get(entry.name)
    return BY_OPERANDS if pipe in _TRANSFERS else _PIPE_SIDE.get(pipe, UNDECIDED)


def _space(e: Expr) -> MemorySpace | None:
    return e.type.memory_space if isinstance(e.type, TileType) else None


def _side(space: MemorySpace | None) -> Affinity:
    if space is None:
        return Affinity.SHARED
    return Affinity.CUBE if space in CUBE_SPACES else Affinity.VECTOR


def _by_name(name: str) -> AffinityRule:
    """The side of op ``name`` when the name alone decides it, else ``BY_OPERANDS``."""
    if name in AFFINITY_EXCEPTIONS:
        return AFFINITY_EXCEPTIONS[name]
    if not name.startswith("tile."):
        return Affinity.SHARED
    entry = lookup(name)
    rule = derived_affinity(entry) if entry is not None else UNDECIDED
    return Affinity.VECTOR if rule == UNDECIDED else rule  # a plugin's kernel op: the vector side


# _by_name per op name seen (op names are the registry's and the program's few unknown ones).
_NAMED: dict[str, AffinityRule] = {}


def named_affinity(name: str) -> AffinityRule:
    """The side of a call of op ``name`` when the name alone decides it, else ``BY_OPERANDS``."""
    try:
        return _NAMED[name]
    except KeyError:
        side = _NAMED[name] = _by_name(name)
        return side


def affinity(expr: Expr) -> Affinity:
    """The side of a mixed kernel that executes ``expr`` (a call; anything else is SHARED)."""
    if not isinstance(expr, (Call, Submit)) or isinstance(expr.op, GlobalVar):  # not an op call (op_name)
        if isinstance(expr, Call) and expr.attrs.get("core_placement") == "aiv":
            return Affinity.VECTOR
        return Affinity.SHARED
    name = expr.op.name
    try:
        side = _NAMED[name]
    except KeyError:  # named_affinity(), inlined: this runs for every call of every kernel check
        side = _NAMED[name] = _by_name(name)
    if side != BY_OPERANDS:
        return side
    if name in ("tile.load", "tile.create"):  # by the space the tile is made in
        return _side(expr.kwargs.get("target_memory", MemorySpace.Vec))
    if name not in ("tile.move", "tile.extract"):  # a store or a view: by its source tile
        return _side(_space(expr.args[0])) if expr.args else Affinity.VECTOR
    # tile.extract moves a window between spaces like tile.move (Mat -> Left/Right on the cube side).
    if not expr.args:
        return Affinity.VECTOR
    source = _side(_space(expr.args[0]))
    target = _side(expr.kwargs.get("target_memory"))
    if Affinity.SHARED in (source, target) or source is target:
        return source if source is not Affinity.SHARED else target
    return Affinity.BOUNDARY
