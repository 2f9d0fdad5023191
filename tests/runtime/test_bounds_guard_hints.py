"""The runner reads a bounds guard's line in the runtime's log (docs/simulator.md#bounds): each kind of guard
gets its own hint (a window stops before its task is submitted, an element read before the element is read)."""

from __future__ import annotations

import pytest

from pypto.runtime.errors import BoundsGuard
from pypto.runtime.simulator import _bounds_failure

LOG = "[ERROR] orchestration: {marker} {message}\n[ERROR] run aborted\n"


def test_no_marker_is_two_markers() -> None:
    markers = [g.marker for g in BoundsGuard]
    assert not [(a, b) for a in markers for b in markers if a != b and a in b]


@pytest.mark.parametrize(("guard", "message", "hint"), [
    (BoundsGuard.WINDOW, "task 'k' (p.py:27) reads x[64:80, 0:64] outside its shape [64, 64]",
     ("a scalar argument or a dynamic dimension puts this window outside the tensor; the orchestration stopped "
      "before submitting the task, and the caller's arrays are unchanged")),
    (BoundsGuard.GATE, "the dispatch predicate (p.py:9) reads element 8 of axis 1 of 'counts', whose extent is 8",
     ("the gate element's index is computed at run time (from a scalar argument, a loop variable or a value read "
      "from a tensor): keep it within the tensor's extent; the orchestration stopped before submitting the task, "
      "and the caller's arrays are unchanged")),
    (BoundsGuard.READ, "tensor.read (p.py:7) reads element 70 of axis 0 of 'x', whose extent is 64",
     ("the index is computed at run time (from a scalar argument, a loop variable or a value read from a tensor): "
      "keep it within the tensor's extent; the orchestration stopped before reading the element, and the caller's "
      "arrays are unchanged")),
    (BoundsGuard.WRITE, "tensor.write (p.py:8) writes element 70 of axis 1 of 'out', whose extent is 64",
     ("the index is computed at run time (from a scalar argument, a loop variable or a value read from a tensor): "
      "keep it within the tensor's extent; the orchestration stopped before writing the element, and the caller's "
      "arrays are unchanged")),
    (BoundsGuard.SLOT, "the array 'tids' (p.py:12) is indexed at 5, outside its 4 slots",
     ("the index is computed at run time (from a scalar argument, a loop variable or a value read from a tensor): "
      "keep it within the array's slots; the orchestration stopped before using the slot, and the caller's arrays "
      "are unchanged")),
])
def test_each_guard_has_the_hint_of_its_kind(guard: BoundsGuard, message: str, hint: str) -> None:
    found = _bounds_failure(LOG.format(marker=guard.marker, message=message))
    assert found == (guard, message)
    assert found[0].hint == hint


def test_a_log_without_a_guard_is_no_bounds_failure() -> None:
    assert _bounds_failure("[ERROR] run aborted: pypto bounds are fine\n") is None
