"""IR builders of the registered ops: ``ir.op.tensor``, ``ir.op.tile``, ``ir.op.system``, ``ir.op.array``.

Each function takes Exprs plus Python ints/floats/lists (normalised per docs/ops.md#arguments) and an optional
span (captured from the caller when omitted), and returns a typed ``Call``. The span is given as
``span=`` or, as in the established API, positionally as the last argument:
``ir.op.tile.add(a, b, span)``. ``ir.op.system_ops`` is the established name of ``ir.op.system``.
"""

import functools
from collections.abc import Callable
from types import FunctionType
from typing import Any

from ..span import Span
from . import array, system, tensor, tile
from .builder import caller_span


def _span_last(builder: Callable[..., Any]) -> Callable[..., Any]:
    """``builder`` also taking its span as the last positional argument."""

    @functools.wraps(builder)
    def fn(*args: Any, **kwargs: Any) -> Any:
        if args and isinstance(args[-1], Span) and kwargs.get("span") is None:
            kwargs["span"] = args[-1]
            args = args[:-1]
        elif kwargs.get("span") is None:
            kwargs["span"] = caller_span()
        return builder(*args, **kwargs)

    return fn


for _module in (array, system, tensor, tile):
    for _name in _module.__all__:
        _fn = getattr(_module, _name)
        if isinstance(_fn, FunctionType):
            setattr(_module, _name, _span_last(_fn))

system_ops = system

__all__ = ["array", "system", "system_ops", "tensor", "tile"]
