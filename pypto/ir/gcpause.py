"""Pausing Python's cyclic garbage collector while a large IR is built or printed.

Parsing and printing allocate a great many small acyclic objects (syntax-tree and IR nodes,
printer tables and lines) that stay alive until the end. With the collector on, its periodic full
collections scan every one of them, so the time grows faster than the input. Reference counting
frees acyclic garbage anyway, so the collector is paused for the duration and resumed (if it was
on) afterwards. What the block made is then moved into the oldest generation unscanned: otherwise
the next young collections would walk all of it (1 to 5 ms per small compile). Cyclic garbage
made in the block (a few dozen objects per compile) waits for the next full collection, which
``gc_paused`` starts once the heap has grown by a quarter.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def gc_paused() -> Iterator[None]:
    """Disable the cyclic collector inside the block; restore its previous state after."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            _promote_survivors()
            gc.enable()


# When the moved objects are collected: every 100 moves (about what starts a full collection in
# the established flow, 10 x 10 young collections) the heap is measured, and a full collection
# runs once it has grown by a quarter since the last one. Cyclic garbage made in paused blocks is
# still freed in a loop that only compiles, and stays under a quarter of the heap (CPython's own
# bound). Counting the moved objects instead (CPython's rule) started one every 100 compiles: each
# compile moves its result and caches, which mostly die with the next compile, and a full collection
# scans the whole heap (40-60 ms after the 36 examples).
_FULL_AFTER = 100
_moves = 0
_heap = 0  # allocated blocks after the last full collection


def _promote_survivors() -> None:
    # The objects made in the block are mostly the IR, which lives on; left in the youngest
    # generation, the next young collections would scan them all (1 to 5 ms per small compile).
    # freeze() then unfreeze() moves every tracked object into the oldest generation without a scan.
    # It would also thaw objects someone else froze, so then they stay where they are.
    global _moves, _heap
    if gc.get_freeze_count() != 0:
        return
    gc.freeze()
    gc.unfreeze()
    _moves += 1
    if _moves < _FULL_AFTER:
        return
    _moves = 0
    # sys.getallocatedblocks: the heap in Python's small blocks, which the garbage is made of (about
    # 20 us; counting the tracked objects walks them all)
    if sys.getallocatedblocks() - _heap > _heap // 4:
        gc.collect()
        _heap = sys.getallocatedblocks()
