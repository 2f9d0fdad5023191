"""Pausing Python's cyclic garbage collector while a large IR is built or printed.

Parsing and printing allocate a great many small acyclic objects (syntax-tree and IR nodes,
printer tables and lines) that stay alive until the end. With the collector on, its periodic full
collections scan every one of them, so the time grows faster than the input. Reference counting
frees acyclic garbage anyway, so the collector is paused for the duration and resumed (if it was
on) afterwards.
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
