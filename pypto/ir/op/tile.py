"""``ir.op.tile``: builders of the ``tile.*`` ops (docs/ops.md#tile-ops), e.g. ``tile.load(t, [0, 0], [64, 64])``.

``tpop_from_aic``/``tpop_from_aiv`` additionally take ``shape``/``dtype``: given both, the call gets
the explicit type ``Tile[shape, dtype, Vec | Mat]``.
"""

from __future__ import annotations

from typing import Any

from ..datatype import DataType
from ..enums import MemorySpace
from ..expr import Call
from ..op_registry import OpTypeError, OpValueError
from ..span import Span
from ..types import TileType
from .builder import build, caller_span, dim_first_dispatcher, mrgsort_dispatcher, pick_scalar_forms, populate

__all__ = populate(globals(), "tile")
pick_scalar_forms(globals(), ("add", "sub", "mul", "div", "and_", "or_", "shl", "shr"))
scatter_update = dim_first_dispatcher(globals()["scatter_update"])


def _popped(op: str, space: MemorySpace, shape: Any, dtype: DataType | None, span: Span, **kwargs: Any) -> Call:
    if (shape is None) != (dtype is None):
        raise OpValueError(f"Operator '{op}': shape and dtype must be given together", op, span)
    call = build(op, span=span, **kwargs)
    if shape is None:
        return call
    return Call(call.op, call.args, call.kwargs, TileType(list(shape), DataType(dtype), None, None, space), span)


def tpop_from_aic(*, shape: Any = None, dtype: DataType | None = None, split: int = 0, lane_stride: int | None = None,
                  id: int | None = None, span: Span | None = None) -> Call:  # noqa: A002 - reference keyword name
    """Pop a tile pushed by the cube core (AIV side); ``Tile[shape, dtype, Vec]`` when both are given."""
    return _popped("tile.tpop_from_aic", MemorySpace.Vec, shape, dtype, span or caller_span(),
                   split=split, lane_stride=lane_stride, id=id)


def tpop_from_aiv(*, shape: Any = None, dtype: DataType | None = None, split: int = 0, id: int | None = None,
                  span: Span | None = None) -> Call:  # noqa: A002 - reference keyword name
    """Pop a tile pushed by a vector core (AIC side); ``Tile[shape, dtype, Mat]`` when both are given."""
    return _popped("tile.tpop_from_aiv", MemorySpace.Mat, shape, dtype, span or caller_span(), split=split, id=id)


def mrgsort_format2(*srcs: Any, exhausted: bool = False, span: Span | None = None) -> Call:
    """Merge 2-4 sorted tiles through a scratch tile: ``mrgsort_format2(src0, src1[, src2[, src3]], tmp)``."""
    span = span or caller_span()
    if not 3 <= len(srcs) <= 5:
        raise OpTypeError(f"Operator 'tile.mrgsort_format2' takes 2-4 sources and a tmp tile, got {len(srcs)} "
                          "arguments", "tile.mrgsort_format2", span)
    sources = list(srcs[:-1]) + [None] * (5 - len(srcs))
    return build("tile.mrgsort_format2", sources[0], sources[1], srcs[-1], sources[2], sources[3],
                 exhausted=exhausted, span=span)


# The established one-name spelling (not a builder of its own: it picks format 1 or 2).
mrgsort = mrgsort_dispatcher("tile.mrgsort", globals()["mrgsort_format1"], mrgsort_format2)
