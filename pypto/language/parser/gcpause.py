"""Pausing Python's cyclic garbage collector while a parse builds IR.

A parse allocates a great many small acyclic objects (syntax-tree and IR nodes). With the
collector on, its periodic full collections scan every one of them, so parse time grows faster
than the input. Reference counting frees acyclic garbage anyway, so the collector is paused for
the duration of a parse and resumed (if it was on) afterwards.
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
            gc.enable()
