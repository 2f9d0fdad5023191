"""Facts about a loop's iteration space."""

from __future__ import annotations

from pypto.ir.expr import ConstInt
from pypto.ir.stmt import ForStmt


def const_trip_count(loop: ForStmt) -> int | None:
    """The number of iterations of a loop with constant bounds (None when one is not constant)."""
    bounds = (loop.start, loop.stop, loop.step)
    if not all(isinstance(b, ConstInt) for b in bounds) or loop.step.value == 0:
        return None
    return len(range(loop.start.value, loop.stop.value, loop.step.value))
