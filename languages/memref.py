"""memref: every tile buffer has a MemRef.

Entered by InitMemRef. Buffers are shared between values, so single assignment of variables is
given up here. MemoryReuse and AllocateMemoryAddr run here; the addresses AllocateMemoryAddr
gives (AllocatedMemoryAddr) are guaranteed from ``runtime`` on.
"""

from __future__ import annotations

from .invariants import HasMemRefs, SSAForm
from .split_core import split_core

memref = split_core.extend(
    "memref",
    "every tile buffer has a MemRef; variables may share buffers",
    guarantees={HasMemRefs},
    drop={SSAForm},
)
