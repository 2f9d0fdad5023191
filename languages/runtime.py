"""runtime: orchestration is explicit tasks, call directions, runtime scopes and carry kinds.

Entered by ClassifyIterArgCarry, after ExportEntryResults, DeriveCallDirections and MaterializeRuntimeScopes; the PTO
and orchestration code generators consume it (CCE needs ``synced``). It holds only node kinds some
emitter prints: distributed hierarchy scopes (``pl.at(level=...)`` inside orchestration) and
verbatim inline source have no code generator, so a program still holding one stops here.
"""

from __future__ import annotations

from pypto.ir.stmt import HierarchyScopeStmt, InlineStmt

from .invariants import (
    AllocatedMemoryAddr,
    CallDirectionsResolved,
    EntryResultsExported,
    IterArgCarryClassified,
    RuntimeScopesMaterialized,
)
from .memref import memref

runtime = memref.extend(
    "runtime",
    "orchestration is explicit tasks, directions, scopes and dependency edges",
    remove={HierarchyScopeStmt, InlineStmt},
    guarantees={
        AllocatedMemoryAddr,
        CallDirectionsResolved,
        RuntimeScopesMaterialized,
        IterArgCarryClassified,
        EntryResultsExported,
    },
)
