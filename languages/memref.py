"""memref: every tile buffer has a MemRef with an address inside its memory space.

Entered after InitMemRef, MemoryReuse and AllocateMemoryAddr. Buffers are shared between
values, so single assignment of variables is given up here (InitMemRef invalidates SSAForm).
"""

from __future__ import annotations

from .invariants import AllocatedMemoryAddr, HasMemRefs, SSAForm
from .split_core import split_core

memref = split_core.extend(
    "memref",
    "every tile buffer has a MemRef with an address inside its memory space",
    guarantees={HasMemRefs, AllocatedMemoryAddr},
    drop={SSAForm},
)
