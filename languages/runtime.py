"""runtime: orchestration is explicit tasks, call directions, runtime scopes and carry kinds.

Entered after DeriveCallDirections ... ClassifyIterArgCarry; this is what codegen consumes.
"""

from __future__ import annotations

from .invariants import AllocatedMemoryAddr, CallDirectionsResolved, IterArgCarryClassified, RuntimeScopesMaterialized
from .memref import memref

runtime = memref.extend(
    "runtime",
    "orchestration is explicit tasks, directions, scopes and dependency edges",
    guarantees={AllocatedMemoryAddr, CallDirectionsResolved, RuntimeScopesMaterialized, IterArgCarryClassified},
)
