"""outlined: callers keep no kernel scope; InCore, Group and Spmd functions hold the kernels.

Entered after OutlineHierarchyScopes, OutlineIncoreScopes and OutlineClusterScopes, which run on
flat blocks without nested calls (the properties the last ssa passes produce).
"""

from __future__ import annotations

from .invariants import (
    AivSplitValid,
    ClusterOutlined,
    HierarchyOutlined,
    NoNestedCalls,
    NormalizedStmtStructure,
    OrchestrationReferencesResolved,
    SplitIncoreOrch,
)
from .ssa import ssa

outlined = ssa.extend(
    "outlined",
    "orchestration calls InCore/Group/Spmd functions; no kernel scope is left in a caller",
    guarantees={
        NormalizedStmtStructure,
        NoNestedCalls,
        HierarchyOutlined,
        SplitIncoreOrch,
        ClusterOutlined,
        OrchestrationReferencesResolved,
        AivSplitValid,
    },
)
