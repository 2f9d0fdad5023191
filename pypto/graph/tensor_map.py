"""The PTO2 runtime's automatic dependency rule, followed statically over task sites.

The runtime (simpler's ``compute_task_fanin`` / ``register_task_outputs``) keeps a map from
buffers to the tasks that last wrote them. Outside manual scopes, a task's ``input`` and ``inout``
tensors wait for every registered writer of an overlapping region (an ``inout`` that covers a
writer's region replaces it); its ``inout`` and ``output_existing`` tensors then register the task
as their writer. Manual scopes, ``no_dep`` arguments and ``manual_dep=True`` tensors take no part.
Here a buffer is the root variable of a tensor (:mod:`pypto.analysis.roots`) and a region is the
box a ``tensor.slice`` with constant offsets selects (None: the whole buffer, or not known).
"""

from __future__ import annotations

from dataclasses import dataclass

from pypto.analysis.task_access import Box
from pypto.ir.expr import Var


@dataclass(frozen=True)
class Writer:
    """A task site registered as the writer of ``box`` of a buffer."""

    site: int
    box: Box | None


def overlaps(a: Box | None, b: Box | None) -> bool:
    """True when the regions may share an element (an unknown region overlaps everything)."""
    if a is None or b is None or len(a) != len(b):
        return True
    return all(lo1 < hi2 and lo2 < hi1 for (lo1, hi1), (lo2, hi2) in zip(a, b))


def covers(a: Box | None, b: Box | None) -> bool:
    """True when region ``a`` surely holds all of ``b``."""
    if a is None:
        return True
    if b is None or len(a) != len(b):
        return False
    return all(lo1 <= lo2 and hi2 <= hi1 for (lo1, hi1), (lo2, hi2) in zip(a, b))


class TensorMap:
    """Registered writers per buffer root; copied and joined where control flow splits and meets."""

    def __init__(self, writers: dict[Var, frozenset[Writer]] | None = None) -> None:
        self.writers: dict[Var, frozenset[Writer]] = dict(writers or {})

    def copy(self) -> TensorMap:
        return TensorMap(self.writers)

    def join(self, other: TensorMap) -> TensorMap:
        """The writers either path may have registered."""
        out = dict(self.writers)
        for root, ws in other.writers.items():
            out[root] = out.get(root, frozenset()) | ws
        return TensorMap(out)

    def read(self, root: Var, box: Box | None, inout: bool) -> list[int]:
        """The sites a reader of ``box`` of ``root`` waits for; an ``inout`` reader drops the writers it covers."""
        ws = self.writers.get(root, frozenset())
        found = [w for w in ws if overlaps(box, w.box)]
        if inout:
            self.writers[root] = frozenset(w for w in ws if not (w in found and covers(box, w.box)))
        return sorted({w.site for w in found})

    def write(self, root: Var, box: Box | None, site: int) -> None:
        """Register ``site`` as a writer of ``box`` of ``root``."""
        self.writers[root] = self.writers.get(root, frozenset()) | {Writer(site, box)}

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TensorMap) and self.writers == other.writers

    __hash__ = None  # type: ignore[assignment]
