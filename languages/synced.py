"""synced: every kernel has had its intra-core pipe synchronisation placed; what codegen consumes.

Entered by InsertPipeSync. A kernel printed without it races between pipes on hardware, so the
emitters require this dialect rather than ``runtime``.
"""

from __future__ import annotations

from .invariants import PipeSyncPlaced
from .runtime import runtime

synced = runtime.extend(
    "synced",
    "every kernel has its set_flag/wait_flag pairs and barriers placed",
    guarantees={PipeSyncPlaced},
)
