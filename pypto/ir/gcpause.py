"""Pausing Python's cyclic garbage collector while a large IR is built or printed.

Parsing and printing allocate a great many small acyclic objects (syntax-tree and IR nodes,
printer tables and lines) that stay alive until the end. With the collector on, its periodic full
collections scan every one of them, so the time grows faster than the input. Reference counting
frees acyclic garbage anyway, so the collector is paused for the duration and resumed (if it was
on) afterwards. What the block made is then moved into the oldest generation unscanned: otherwise
the next young collections would walk all of it (1 to 5 ms per small compile). Cyclic garbage
made in the block (a few dozen objects per compile) waits for the next full collection, which
``gc_paused`` starts by CPython's rule for the oldest generation.
"""

from __future__ import annotations

import gc
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


# The oldest generation's bookkeeping for the objects moved there (CPython's own rule, which a move
# by freeze/unfreeze bypasses): a full collection after at least 100 moves (about what starts one
# in the established flow, 10 x 10 young collections) once the moved objects exceed a quarter of
# the tracked ones, so cyclic garbage made in paused blocks is still freed in a loop that only compiles.
_FULL_AFTER = 100
_moves = 0
_moved = 0
_long_lived = 0


def _promote_survivors() -> None:
    # The objects made in the block are mostly the IR, which lives on; left in the youngest
    # generation, the next young collections would scan them all (1 to 5 ms per small compile).
    # freeze() then unfreeze() moves every tracked object into the oldest generation without a scan.
    # It would also thaw objects someone else froze, so then they stay where they are.
    global _moves, _moved, _long_lived
    if gc.get_freeze_count() != 0:
        return
    _moves += 1
    _moved += gc.get_count()[0]
    gc.freeze()
    gc.unfreeze()
    if _moves >= _FULL_AFTER and _moved > _long_lived // 4:
        gc.collect()
        _moves = _moved = 0
        _long_lived = len(gc.get_objects())
