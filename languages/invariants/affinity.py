"""Core affinity of tile operations (docs/passes.md#expandmixedkernel): which side of a mixed kernel runs them."""

from __future__ import annotations

import enum

from pypto.ir.enums import MemorySpace
from pypto.ir.expr import Call, Expr, GlobalVar, Submit
from pypto.ir.types import TileType



class Affinity(enum.Enum):
    CUBE = "cube"
    VECTOR = "vector"
    BOUNDARY = "boundary"
    SHARED = "shared"


CUBE_OPS = frozenset(
    "tile." + n
    for n in (
        "matmul",
        "matmul_acc",
        "matmul_bias",
        "gemv",
        "gemv_acc",
        "gemv_bias",
        "batch_matmul",
        "batch_matmul_acc",
        "matmul_mx",
        "matmul_mx_acc",
        "matmul_mx_bias",
    )
)
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
# Cross-core pipe ends run on a fixed side; index queries and buffer declarations (tile.alloc,
# which emits no instruction) run anywhere.
_CUBE_PIPE_OPS = frozenset({"tile.tpush_to_aiv", "tile.tpop_from_aiv"})
_VECTOR_PIPE_OPS = frozenset({"tile.tpush_to_aic", "tile.tpop_from_aic"})
_ANY_SIDE_OPS = frozenset({"tile.get_block_idx", "tile.get_subblock_idx", "tile.get_block_num", "tile.alloc"})
_BY_SOURCE = frozenset({"tile.store", "tile.reshape", "tile.transpose_view"})
_BOUNDARY_OPS = frozenset({"tile.aiv_shard", "tile.aic_gather"})


def _space(e: Expr) -> MemorySpace | None:
    return e.type.memory_space if isinstance(e.type, TileType) else None


def _side(space: MemorySpace | None) -> Affinity:
    if space is None:
        return Affinity.SHARED
    return Affinity.CUBE if space in CUBE_SPACES else Affinity.VECTOR


def _by_name(name: str) -> Affinity | None:
    """The side of op ``name`` when the name alone decides it; None when the operands do."""
    if name in CUBE_OPS or name in _CUBE_PIPE_OPS:
        return Affinity.CUBE
    if name in _VECTOR_PIPE_OPS:
        return Affinity.VECTOR
    if name in _ANY_SIDE_OPS:
        return Affinity.SHARED
    if name in _BOUNDARY_OPS:
        return Affinity.BOUNDARY
    if name in _BY_OPERANDS:
        return None
    return Affinity.VECTOR if name.startswith("tile.") else Affinity.SHARED


# Ops whose side follows the space of a tile they make, read or move.
_BY_OPERANDS = frozenset({"tile.load", "tile.create", "tile.move", "tile.extract"}) | _BY_SOURCE
# _by_name per op name seen (op names are the registry's and the program's few unknown ones).
_NAMED: dict[str, Affinity | None] = {}


def affinity(expr: Expr) -> Affinity:
    """The side of a mixed kernel that executes ``expr`` (a call; anything else is SHARED)."""
    if not isinstance(expr, (Call, Submit)) or isinstance(expr.op, GlobalVar):  # not an op call (op_name)
        if isinstance(expr, Call) and expr.attrs.get("core_placement") == "aiv":
            return Affinity.VECTOR
        return Affinity.SHARED
    name = expr.op.name
    try:
        side = _NAMED[name]
    except KeyError:
        side = _NAMED[name] = _by_name(name)
    if side is not None:
        return side
    if name in ("tile.load", "tile.create"):  # by the space the tile is made in
        return _side(expr.kwargs.get("target_memory", MemorySpace.Vec))
    if name in _BY_SOURCE:
        return _side(_space(expr.args[0])) if expr.args else Affinity.VECTOR
    # tile.extract moves a window between spaces like tile.move (Mat -> Left/Right on the cube side).
    if not expr.args:
        return Affinity.VECTOR
    source = _side(_space(expr.args[0]))
    target = _side(expr.kwargs.get("target_memory"))
    if Affinity.SHARED in (source, target) or source is target:
        return source if source is not Affinity.SHARED else target
    return Affinity.BOUNDARY
