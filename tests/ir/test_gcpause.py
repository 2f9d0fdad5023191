"""``gc_paused`` moves what the block made into the oldest generation, so no young collection rescans it."""

from __future__ import annotations

import gc
import sys
import weakref

import pytest

from pypto.ir import gcpause
from pypto.ir.gcpause import gc_paused


def test_objects_made_in_the_block_leave_the_young_generations() -> None:
    assert gc.isenabled()
    with gc_paused():
        made = [[i] for i in range(1000)]
        assert not gc.isenabled()
    assert gc.isenabled()
    assert gc.get_count()[:2] == (0, 0)
    assert any(obj is made for obj in gc.get_objects(generation=2))


def test_objects_someone_froze_stay_frozen() -> None:
    kept = [[1], [2]]
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        with gc_paused():
            [[i] for i in range(100)]
        assert gc.get_freeze_count() == frozen
        assert not any(obj is kept for obj in gc.get_objects(generation=2))
    finally:
        gc.unfreeze()


def test_a_disabled_collector_stays_disabled() -> None:
    gc.disable()
    try:
        with gc_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_cyclic_garbage_of_paused_blocks_is_still_collected(monkeypatch: pytest.MonkeyPatch) -> None:
    class Node:
        pass

    monkeypatch.setattr(gcpause, "_moves", gcpause._FULL_AFTER - 1)
    monkeypatch.setattr(gcpause, "_heap", 0)
    with gc_paused():
        cycle = Node()
        cycle.self = cycle
        ref = weakref.ref(cycle)
        del cycle
    assert ref() is None
    assert gcpause._moves == 0


def test_no_full_collection_while_the_heap_has_not_grown_by_a_quarter(monkeypatch: pytest.MonkeyPatch) -> None:
    class Node:
        pass

    monkeypatch.setattr(gcpause, "_moves", gcpause._FULL_AFTER - 1)
    monkeypatch.setattr(gcpause, "_heap", sys.getallocatedblocks() * 2)
    with gc_paused():
        cycle = Node()
        cycle.self = cycle
        ref = weakref.ref(cycle)
        del cycle
    assert ref() is not None  # left for a later full collection
    assert gcpause._moves == 0  # the heap is measured again after another 100 moves
    gc.collect()
    assert ref() is None
