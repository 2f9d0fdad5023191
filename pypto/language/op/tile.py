"""``pl.tile``: tile operators (docs/ops.md#tile-ops, docs/ops.md#cross-core-pipes).

Besides one function per ``tile.*`` op: ``mrgsort`` (format 1 with ``block_len``, format 2 with
several lists and a scratch tile), ``max``/``min`` (scalar ``Max``/``Min`` expressions, not ops),
and ``aiv_shard``/``aic_gather``, which also accept Tensors (the ``tensor.*`` forms).
"""

from __future__ import annotations

from typing import Any

from pypto import ir
from pypto.ir.op import tile as _builders
from pypto.language.typing.values import wrap

from . import tensor as _tensor
from .binding import as_expr, bind_module, kind, mrgsort_dispatcher

__all__ = bind_module(globals(), _builders) + ["arange", "mrgsort", "max", "min"]
# The established name of tile.ci (as pl.arange for tensors).
arange = globals()["ci"]
_tile_aiv_shard = globals()["aiv_shard"]
_tile_aic_gather = globals()["aic_gather"]


mrgsort = mrgsort_dispatcher("tile", globals()["mrgsort_format1"], globals()["mrgsort_format2"])


def max(lhs: Any, rhs: Any, *, span: ir.Span | None = None) -> Any:  # noqa: A001 - reference name pl.max
    """Scalar ``Max(lhs, rhs)`` (printed ``pl.max(a, b)``)."""
    span = span if span is not None else ir.Span.unknown()
    return wrap(ir.max_(as_expr(lhs, span), as_expr(rhs, span), span))


def min(lhs: Any, rhs: Any, *, span: ir.Span | None = None) -> Any:  # noqa: A001 - reference name pl.min
    """Scalar ``Min(lhs, rhs)`` (printed ``pl.min(a, b)``)."""
    span = span if span is not None else ir.Span.unknown()
    return wrap(ir.min_(as_expr(lhs, span), as_expr(rhs, span), span))


def aiv_shard(x: Any, *, split: int, lane_stride: int | None = None, span: ir.Span | None = None) -> Any:
    """This vector core's half of a Tile (``tile.aiv_shard``, Vec) or Tensor (``tensor.aiv_shard``)."""
    fn = _tensor.aiv_shard if kind(x) == "Tensor" else _tile_aiv_shard
    return fn(x, split=split, lane_stride=lane_stride, span=span)


def aic_gather(x: Any, *, split: int, span: ir.Span | None = None) -> Any:
    """Both vector halves joined for the cube core: Tile (``tile.aic_gather``, Mat) or Tensor."""
    fn = _tensor.aic_gather if kind(x) == "Tensor" else _tile_aic_gather
    return fn(x, split=split, span=span)
