"""The hardware pipe each kernel op executes on (what InsertPipeSync reads).

An AI core issues instructions to independent in-order pipes: MTE2 moves GM to UB/L1, MTE1 moves
L1 to L0A/L0B, M is the cube, V the vector unit, MTE3 moves UB to GM (or L1), FIX drains the
accumulator (L0C to GM, UB or L1) and S is the scalar unit reading or writing tile elements.

The registry decides most pipes: a zero-copy view moves no data (no pipe), an op only cube-side
kernels may contain runs on M, one only vector-side kernels may contain on V. ``PIPE_EXCEPTIONS``
holds every tile op whose pipe its registry entry does not decide.
"""

from __future__ import annotations

from typing import Final, Literal

from pypto.ir.enums import MemorySpace, PipeType
from pypto.ir.expr import Call, Expr
from pypto.ir.op_registry import AIC, AIV, OpEntry, all_entries, lookup
from pypto.ir.types import TileType

BY_SOURCE: Final = "by_source"  # a copy: its pipe follows the source (and target) memory space
PipeRule = PipeType | Literal["by_source"] | None

# Tile ops whose pipe is not derived from their entry (None: allocation, launch indices, cross-core
# pipe ends and other ops that issue no instruction to a pipe). Listing an op whose derived pipe is
# the same is refused by the completeness test, so each pipe is written once.
PIPE_EXCEPTIONS: dict[str, PipeRule] = {
    "tile.load": PipeType.MTE2,
    "tile.read": PipeType.S,
    "tile.write": PipeType.S,
    "tile.store": BY_SOURCE,
    "tile.mscatter": BY_SOURCE,
    "tile.move": BY_SOURCE,
    "tile.extract": BY_SOURCE,
    "tile.alloc": None,
    "tile.create": None,
    "tile.get_block_idx": None,
    "tile.get_block_num": None,
    "tile.get_subblock_idx": None,
    "tile.tpush_to_aiv": None,
    "tile.tpush_to_aic": None,
    "tile.tpop_from_aic": None,
    "tile.tpop_from_aiv": None,
    "tile.aiv_shard": None,
    "tile.aic_gather": None,
    # Kernel ops either side may hold that the vector unit executes.
    "tile.assemble": PipeType.V,
    "tile.ci": PipeType.V,
    "tile.fillpad": PipeType.V,
    "tile.fillpad_expand": PipeType.V,
    "tile.fillpad_inplace": PipeType.V,
    "tile.full": PipeType.V,
    "tile.gather_row": PipeType.V,
    "tile.random": PipeType.V,
    "tile.transpose": PipeType.V,
    "tile.tri": PipeType.V,
}

_SIDE_PIPE = {AIC: PipeType.M, AIV: PipeType.V}
_UNDECIDED = "undecided"


def derived_pipe(entry: OpEntry) -> PipeRule | Literal["undecided"]:
    """The pipe ``entry`` alone decides: None for a view, M/V for a cube-/vector-only op, else undecided."""
    if entry.view:
        return None
    side = entry.core_side
    return _SIDE_PIPE[side] if side is not None else _UNDECIDED


def pipe_rule(name: str) -> PipeRule:
    """The pipe rule of tile op ``name``: a pipe, ``BY_SOURCE`` or None (no pipe)."""
    if name in PIPE_EXCEPTIONS:
        return PIPE_EXCEPTIONS[name]
    entry = lookup(name)
    rule = derived_pipe(entry) if entry is not None else _UNDECIDED
    # Unknown or undecided ops (a plugin's) are vector ops, as every kernel op was before pipes existed.
    return PipeType.V if rule == _UNDECIDED else rule


_RULES: dict[str, PipeRule] = {}  # op_rule per op name seen


def cube_ops() -> frozenset[str]:
    """The registered tile ops the cube executes (the M pipe): the matmul family."""
    return frozenset(e.name for e in all_entries() if e.namespace == "tile" and pipe_rule(e.name) is PipeType.M)


def _space(e: Expr) -> MemorySpace | None:
    return e.type.memory_space if isinstance(e.type, TileType) else None


def transfer_pipe(source: MemorySpace | None, target: MemorySpace | None) -> PipeType:
    """The pipe of a copy from ``source`` to ``target`` (None: GM)."""
    if source is MemorySpace.Acc:
        return PipeType.FIX
    if source is MemorySpace.Mat:
        return PipeType.MTE1
    if source is MemorySpace.Vec and target is MemorySpace.Vec:
        return PipeType.V
    return PipeType.MTE3


def op_rule(name: str) -> PipeRule:
    """The pipe rule of any op ``name`` (None for an op outside the tile namespace), cached per name:
    a pass asks it of every call."""
    try:
        return _RULES[name]
    except KeyError:
        rule = _RULES[name] = pipe_rule(name) if name.startswith("tile.") else None
        return rule


def op_pipe(call: Call) -> PipeType | None:
    """The pipe ``call`` runs on, or None for an op that is not issued to a pipe."""
    name = call.op.name
    rule = op_rule(name)
    if rule == BY_SOURCE:
        target = _space(call) if name in ("tile.move", "tile.extract") else None
        return transfer_pipe(_space(call.args[0]), target)
    return rule
