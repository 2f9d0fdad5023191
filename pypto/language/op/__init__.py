"""The DSL op namespaces and the top-level ``pl.<name>`` functions.

``tensor``, ``tile``, ``system`` and ``array`` are ``pl.tensor`` etc. ``PROMOTED`` maps every
top-level name (unified dispatchers of docs/ops.md#dispatch and promoted aliases, which are the very same
objects as their namespaced functions) to its function; ``pypto.language`` re-exports it, and so
does this package (``pl.op.create_tile`` is ``pl.create_tile``, as in the established API).
"""

from __future__ import annotations

from typing import Any

from . import array, system, tensor, tile
from .dispatch import DISPATCHERS

_FROM_TILE = (
    "load", "store", "move", "gatherb", "mgather", "mscatter", "relu", "matmul_bias", "matmul_mx", "matmul_mx_acc",
    "matmul_mx_bias", "gemv", "gemv_acc", "gemv_bias", "min", "max", "cmps", "maximums", "minimums", "rem", "rems",
    "prelu", "lrelu", "addc", "subc", "addsc", "subsc", "sel", "sels", "tri", "aiv_shard", "aic_gather",
)
_FROM_TENSOR = (
    "full", "dim", "random", "expand_clone", "gather", "scatter", "paged_gather", "create_l1", "no_dep", "dump_tag",
    "get_block_idx", "get_block_num", "get_subblock_idx",
)
_FROM_SYSTEM = (
    "AUTO", "tpush_to_aiv", "tpush_to_aic", "tpop_from_aic", "tpop_from_aiv", "tfree_to_aic", "tfree_to_aiv",
    "aic_initialize_pipe", "aiv_initialize_pipe", "reserve_buffer", "import_peer_buffer",
)

PROMOTED: dict[str, Any] = {
    **DISPATCHERS,
    "create_tile": tile.create,
    "create_tensor": tensor.create,
    "arange": tensor.ci,
    **{name: getattr(tile, name) for name in _FROM_TILE},
    **{name: getattr(tensor, name) for name in _FROM_TENSOR},
    **{name: getattr(system, name) for name in _FROM_SYSTEM},
}

globals().update(PROMOTED)

__all__ = ["PROMOTED", "array", "system", "tensor", "tile", *PROMOTED]  # noqa: PLE0604
