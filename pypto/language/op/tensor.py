"""``pl.tensor``: tensor operators (docs/ops.md#tensor-ops).

Besides one function per ``tensor.*`` op this namespace has the reference spellings that pick
among several ops: ``gather`` / ``scatter`` (plain, mask-pattern or compare forms) and ``mrgsort``
(format 1 with ``block_len``, format 2 with several lists), plus the parser markers ``no_dep`` and
``dump_tag``.
"""

from __future__ import annotations

from typing import Any

from pypto.ir.op import tensor as _builders

from .binding import bind_module, mrgsort_dispatcher

__all__ = bind_module(globals(), _builders) + ["arange", "mrgsort", "no_dep", "dump_tag"]
# The established name of tensor.ci (as pl.arange).
arange = globals()["ci"]
_plain_gather = globals()["gather"]
_plain_scatter = globals()["scatter"]


def gather(input: Any, *args: Any, span: Any = None, **kwargs: Any) -> Any:  # noqa: A002 - reference name
    """``gather(input, dim, index)``; ``gather(input, *, mask_pattern, output_dtype=None)`` -> gather_mask;
    ``gather(input, *, kvalue, cmp_mode, out_cols, offset=0, count_dtype=None)`` -> gather_compare."""
    if "mask_pattern" in kwargs:
        return gather_mask(input, *args, span=span, **kwargs)
    if "kvalue" in kwargs:
        return gather_compare(input, kwargs.pop("kvalue"), *args, span=span, **kwargs)
    if len(args) == 2 and "dim" not in kwargs:
        dim, index = args
        return _plain_gather(input, index, dim=dim, span=span, **kwargs)
    return _plain_gather(input, *args, span=span, **kwargs)


def scatter(input: Any, *args: Any, span: Any = None, **kwargs: Any) -> Any:  # noqa: A002 - reference name
    """``scatter(input, dim, index, src)``; ``scatter(input, *, mask_pattern, dst)`` -> scatter_mask."""
    if "mask_pattern" in kwargs:
        return scatter_mask(input, kwargs.pop("dst"), *args, span=span, **kwargs)
    if len(args) == 3 and "dim" not in kwargs:
        dim, index, src = args
        return _plain_scatter(input, index, src, dim=dim, span=span, **kwargs)
    return _plain_scatter(input, *args, span=span, **kwargs)


mrgsort = mrgsort_dispatcher("tensor", globals()["mrgsort_format1"], globals()["mrgsort_format2"])


def no_dep(tensor: Any) -> Any:
    """Parser marker: pass ``tensor`` to a call without a dependency edge. Returns it unchanged."""
    return tensor


def dump_tag(tensor: Any) -> Any:
    """Parser marker: tag ``tensor`` for dumping at a call. Returns it unchanged."""
    return tensor

