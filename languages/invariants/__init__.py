"""The invariant checkers: one :class:`Invariant` per property of docs/dialects.md#invariants.

Each checker lists every place a program breaks its property as a :class:`Violation` (rule, code,
message, node, span). ``STRUCTURAL`` is the set every dialect guarantees (docs/passes.md#contract); ``ALL`` maps a
property name to its invariant.
"""

from pypto.backend import A2A3, A5, Platform, current_platform, target_platform

from .base import Invariant, Reporter, Severity, Violation
from .reads import Bodies
from .calls import CallDirectionsResolved, InOutUseValid, ManualDepsOnSubmitOnly
from .control_flow import (
    BreakContinueValid,
    KernelTensorCarriesElided,
    PipelineLoopValid,
    PipelineResolved,
    StructuredCtrlFlow,
    UnrollResolved,
)
from .functions import (
    EntryResultsExported,
    InlineFunctionsEliminated,
    OrchestrationReferencesResolved,
    OutParamNotShadowed,
    ReturnParamsExplicit,
)
from .kernels import GMPipeRingPassed, HardSyncallOccupancyValid, KernelNodes, MixedKernelExpanded, VectorKernelSplit
from .memory import AllocatedMemoryAddr, HasMemRefs
from .recursion import NoRecursion
from .runtime import IterArgCarryClassified, RuntimeScopesMaterialized
from .scopes import (
    AivSplitValid,
    ClusterOutlined,
    HierarchyOutlined,
    NoNestedInCore,
    SplitIncoreOrch,
    TileOpsInKernels,
)
from .ssa import SSAForm, UseAfterDef
from .sync import PipeSyncPlaced
from .structure import NoNestedCalls, NoRedundantBlocks, NormalizedStmtStructure
from .tiles import (
    AccToGmStoreValid,
    AtomicAddDtypeValid,
    IncoreTileOps,
    OperandLayoutsResolved,
    TileCastsNative,
    TileMemoryInferred,
    TileOps2D,
    TileSlicesPitched,
)
from .type_checks import ArrayNotEscaped, AssignTypeSymmetry, TensorViewCanonical, TileTypeCoherence, TypeChecked
from .writes import InputsNotWritten, OutParamsWritten

# Always true in every dialect (docs/passes.md#contract).
STRUCTURAL: frozenset[Invariant] = frozenset(
    {
        TypeChecked,
        BreakContinueValid,
        NoRedundantBlocks,
        UseAfterDef,
        OutParamNotShadowed,
        NoNestedInCore,
        InOutUseValid,
        PipelineLoopValid,
        ArrayNotEscaped,
        ManualDepsOnSubmitOnly,
        AtomicAddDtypeValid,
        TileOpsInKernels,
        NoRecursion,
    }
)

ALL: dict[str, Invariant] = {
    inv.name: inv
    for inv in (
        AccToGmStoreValid,
        AivSplitValid,
        AllocatedMemoryAddr,
        ArrayNotEscaped,
        AssignTypeSymmetry,
        AtomicAddDtypeValid,
        BreakContinueValid,
        CallDirectionsResolved,
        ClusterOutlined,
        EntryResultsExported,
        GMPipeRingPassed,
        HardSyncallOccupancyValid,
        HasMemRefs,
        KernelNodes,
        HierarchyOutlined,
        IncoreTileOps,
        InlineFunctionsEliminated,
        InOutUseValid,
        InputsNotWritten,
        IterArgCarryClassified,
        KernelTensorCarriesElided,
        ManualDepsOnSubmitOnly,
        MixedKernelExpanded,
        NoNestedCalls,
        NoNestedInCore,
        NoRecursion,
        NoRedundantBlocks,
        NormalizedStmtStructure,
        OperandLayoutsResolved,
        OrchestrationReferencesResolved,
        OutParamNotShadowed,
        OutParamsWritten,
        PipelineLoopValid,
        PipelineResolved,
        PipeSyncPlaced,
        ReturnParamsExplicit,
        RuntimeScopesMaterialized,
        SSAForm,
        SplitIncoreOrch,
        StructuredCtrlFlow,
        TensorViewCanonical,
        TileCastsNative,
        TileMemoryInferred,
        TileOps2D,
        TileOpsInKernels,
        TileSlicesPitched,
        TileTypeCoherence,
        TypeChecked,
        UnrollResolved,
        UseAfterDef,
        VectorKernelSplit,
    )
}

__all__ = [
    "A2A3",
    "A5",
    "ALL",
    "STRUCTURAL",
    "AccToGmStoreValid",
    "Bodies",
    "AivSplitValid",
    "AllocatedMemoryAddr",
    "ArrayNotEscaped",
    "AssignTypeSymmetry",
    "AtomicAddDtypeValid",
    "BreakContinueValid",
    "CallDirectionsResolved",
    "ClusterOutlined",
    "EntryResultsExported",
    "HardSyncallOccupancyValid",
    "HasMemRefs",
    "KernelNodes",
    "HierarchyOutlined",
    "InOutUseValid",
    "InputsNotWritten",
    "IncoreTileOps",
    "InlineFunctionsEliminated",
    "Invariant",
    "IterArgCarryClassified",
    "KernelTensorCarriesElided",
    "ManualDepsOnSubmitOnly",
    "MixedKernelExpanded",
    "GMPipeRingPassed",
    "NoNestedCalls",
    "NoNestedInCore",
    "NoRecursion",
    "NoRedundantBlocks",
    "NormalizedStmtStructure",
    "OperandLayoutsResolved",
    "OrchestrationReferencesResolved",
    "OutParamNotShadowed",
    "OutParamsWritten",
    "PipelineLoopValid",
    "PipeSyncPlaced",
    "PipelineResolved",
    "Platform",
    "Reporter",
    "ReturnParamsExplicit",
    "RuntimeScopesMaterialized",
    "SSAForm",
    "Severity",
    "SplitIncoreOrch",
    "StructuredCtrlFlow",
    "TensorViewCanonical",
    "TileCastsNative",
    "TileMemoryInferred",
    "TileOps2D",
    "TileOpsInKernels",
    "TileSlicesPitched",
    "TileTypeCoherence",
    "TypeChecked",
    "UnrollResolved",
    "UseAfterDef",
    "VectorKernelSplit",
    "Violation",
    "current_platform",
    "target_platform",
]
