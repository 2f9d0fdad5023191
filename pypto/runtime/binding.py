"""Arguments of a ``CompiledProgram`` call given by name: put in parameter order for either call form."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pypto.ir.enums import ParamDirection
from pypto.ir.function import Function

from .errors import SimulatorArgumentError


def positional(func: Function, args: Sequence[Any], kwargs: Mapping[str, Any]) -> list[Any]:
    """``args`` then ``kwargs`` as one positional list in ``func``'s parameter order.

    The full form (every parameter) applies when a keyword names an ``Out`` parameter or the count
    is the parameter count; otherwise the ``Out`` parameters are left out (the return form).
    ``SimulatorArgumentError`` for an unknown, repeated or missing name.
    """
    if not kwargs:
        return list(args)
    names = [p.name_hint for p in func.params]
    outs = {p.name_hint for p, d in zip(func.params, func.param_directions) if d == ParamDirection.Out}
    unknown = [k for k in kwargs if k not in names]
    if unknown:
        raise SimulatorArgumentError(
            f"'{func.name}' has no parameter named {unknown[0]!r}", f"its parameters are: {', '.join(names)}"
        )
    full = len(args) + len(kwargs) == len(names) or any(k in outs for k in kwargs)
    order = names if full else [n for n in names if n not in outs]
    if len(args) > len(order):
        raise SimulatorArgumentError(f"'{func.name}' takes {len(order)} arguments, got {len(args) + len(kwargs)}")
    twice = [k for k in kwargs if k in order[: len(args)]]
    if twice:
        raise SimulatorArgumentError(f"'{func.name}' got argument {twice[0]!r} both by position and by name")
    missing = [n for n in order[len(args) :] if n not in kwargs]
    if missing:
        raise SimulatorArgumentError(f"'{func.name}' is missing the argument(s) {', '.join(map(repr, missing))}")
    return [*args, *(kwargs[n] for n in order[len(args) :])]
