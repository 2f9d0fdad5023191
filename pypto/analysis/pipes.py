"""The hardware pipe each kernel op executes on (the one table InsertPipeSync reads).

An AI core issues instructions to independent in-order pipes: MTE2 moves GM to UB/L1, MTE1 moves
L1 to L0A/L0B, M is the cube, V the vector unit, MTE3 moves UB to GM (or L1), FIX drains the
accumulator (L0C to GM, UB or L1) and S is the scalar unit reading or writing tile elements.
Ops that move no data (allocation, views, launch indices, synchronisation itself) and the
cross-core pipe ops run on no pipe of their own (None).
"""

from __future__ import annotations

from pypto.ir.enums import MemorySpace, PipeType
from pypto.ir.expr import Call, Expr
from pypto.ir.types import TileType

# Ops with a fixed pipe; every other ``tile.*`` op not in _NO_PIPE is a vector op (V).
_FIXED: dict[str, PipeType] = {
    "tile.load": PipeType.MTE2,
    "tile.matmul": PipeType.M,
    "tile.matmul_acc": PipeType.M,
    "tile.matmul_bias": PipeType.M,
    "tile.gemv": PipeType.M,
    "tile.gemv_acc": PipeType.M,
    "tile.gemv_bias": PipeType.M,
    "tile.read": PipeType.S,
    "tile.write": PipeType.S,
}

_NO_PIPE = frozenset({
    "tile.alloc", "tile.create", "tile.reshape", "tile.slice", "tile.set_validshape",
    "tile.get_block_idx", "tile.get_block_num", "tile.get_subblock_idx",
    "tile.tpush_to_aiv", "tile.tpush_to_aic", "tile.tpop_from_aic", "tile.tpop_from_aiv", "tile.aiv_shard",
})

# Ops whose pipe is chosen by the memory space of their source tile (argument 0).
_BY_SOURCE = frozenset({"tile.store", "tile.mscatter", "tile.move", "tile.extract"})


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


def op_pipe(call: Call) -> PipeType | None:
    """The pipe ``call`` runs on, or None for an op that is not issued to a pipe."""
    name = call.op.name
    if not name.startswith("tile.") or name in _NO_PIPE:
        return None
    if name in _FIXED:
        return _FIXED[name]
    if name in _BY_SOURCE:
        target = _space(call) if name in ("tile.move", "tile.extract") else None
        return transfer_pipe(_space(call.args[0]), target)
    return PipeType.V
