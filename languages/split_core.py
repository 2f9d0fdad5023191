"""split_core: mixed kernels are split into AIC (cube) and AIV (vector) kernels joined by pipes.

Entered after LowerAutoVectorSplit ... MaterializeTensorStrides: no InCore function (hence no
InCore scope), split-aiv region or pipeline loop remains; tensor views are canonical and param write-backs explicit. The
split-aiv rules (AivSplitValid) no longer apply once the regions are lowered.
"""

from __future__ import annotations

from pypto.ir.enums import ForKind, FunctionType
from pypto.ir.function import Function
from pypto.ir.stmt import ForStmt, InCoreScopeStmt, SplitAivScopeStmt

from .dialect import Variant
from .invariants import (
    AivSplitValid,
    GMPipeRingPassed,
    HardSyncallOccupancyValid,
    KernelNodes,
    OperandLayoutsResolved,
    MixedKernelExpanded,
    PipelineResolved,
    ReturnParamsExplicit,
    TensorViewCanonical,
    VectorKernelSplit,
)
from .placed import placed

split_core = placed.extend(
    "split_core",
    "AIC + AIV kernels in Group wrappers, tpush/tpop pipes between them",
    remove={
        # No InCore function is left, and SplitIncoreOrch allows InCore scopes only there.
        InCoreScopeStmt,
        SplitAivScopeStmt,
        Variant(Function, "func_type", FunctionType.InCore, MixedKernelExpanded),
        Variant(ForStmt, "kind", ForKind.Pipeline, PipelineResolved),
    },
    guarantees={
        MixedKernelExpanded,
        GMPipeRingPassed,
        KernelNodes,
        OperandLayoutsResolved,
        HardSyncallOccupancyValid,
        ReturnParamsExplicit,
        TensorViewCanonical,
        VectorKernelSplit,
    },
    drop={AivSplitValid},
)
