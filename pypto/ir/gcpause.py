"""Pausing Python's cyclic garbage collector while a large IR is built or printed.

Parsing and printing allocate a great many small acyclic objects (syntax-tree and IR nodes,
printer tables and lines) that stay alive until the end. With the collector on, its periodic full
collections scan every one of them, so the time grows faster than the input. Reference counting
frees acyclic garbage anyway, so the collector is paused for the duration and resumed (if it was
on) afterwards. What the block made is then moved into the oldest generation unscanned: otherwise
the next young collection would walk all of it once (1 to 5 ms after a small compile). Cyclic
garbage made in the block (a few dozen objects per compile) waits for the next full collection.
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


def _promote_survivors() -> None:
    # The objects made in the block are mostly the IR, which lives on; left in the youngest
    # generation, the first collection after it would scan them all (about 1 ms per compile).
    # freeze() then unfreeze() moves every tracked object into the oldest generation without a scan.
    # It would also thaw objects someone else froze, so then they stay where they are.
    if gc.get_freeze_count() == 0:
        gc.freeze()
        gc.unfreeze()
