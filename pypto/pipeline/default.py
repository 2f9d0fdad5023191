"""The default pipeline: the implemented passes in spec order, plus installed plugin passes.

The passes of docs/passes.md#the-pipeline implemented so far, surface -> ssa -> outlined -> tiled ->
split_core -> memref -> runtime; passes of the table not listed here are not implemented yet
(the other tile-stage helpers, mixed-kernel splitting, pipeline loops, distributed passes).
InsertPipeSync is ours: it places the pipe synchronisation the directly printed C++ kernels need.
"""

from __future__ import annotations

import enum

from pypto.transform.base import Pass
from pypto.transform.plugins import discover, insert

from pypto.passes.canonicalize_tile_slice import CanonicalizeTileSlice
from pypto.passes.convert_to_ssa import ConvertToSSA
from pypto.passes.convert_tensor_to_tile_ops import ConvertTensorToTileOps
from pypto.passes.ctrl_flow_transform import CtrlFlowTransform
from pypto.passes.allocate_memory_addr import AllocateMemoryAddr
from pypto.passes.auto_derive_task_dependencies import AutoDeriveTaskDependencies
from pypto.passes.auto_tile_matmul_l0 import AutoTileMatmulL0
from pypto.passes.classify_iter_arg_carry import ClassifyIterArgCarry
from pypto.passes.derive_call_directions import DeriveCallDirections
from pypto.passes.elide_tensor_carries import ElideTensorCarries
from pypto.passes.expand_manual_phase_fence import ExpandManualPhaseFence
from pypto.passes.expand_mixed_kernel import ExpandMixedKernel
from pypto.passes.export_entry_results import ExportEntryResults
from pypto.passes.flatten_call_expr import FlattenCallExpr
from pypto.passes.flatten_tile_nd_to_2d import FlattenTileNdTo2D
from pypto.passes.infer_tile_memory_space import InferTileMemorySpace
from pypto.passes.init_memref import InitMemRef
from pypto.passes.legalize_tile_cast import LegalizeTileCast
from pypto.passes.inject_gm_pipe_buffer import InjectGMPipeBuffer
from pypto.passes.inline_functions import InlineFunctions
from pypto.passes.insert_pipe_sync import InsertPipeSync
from pypto.passes.materialize_runtime_scopes import MaterializeRuntimeScopes
from pypto.passes.materialize_tensor_strides import MaterializeTensorStrides
from pypto.passes.materialize_valid_shape_symbols import MaterializeValidShapeSymbols
from pypto.passes.memory_reuse import MemoryReuse
from pypto.passes.normalize_return_order import NormalizeReturnOrder
from pypto.passes.normalize_stmt_structure import NormalizeStmtStructure
from pypto.passes.outline_cluster_scopes import OutlineClusterScopes
from pypto.passes.outline_hierarchy_scopes import OutlineHierarchyScopes
from pypto.passes.outline_incore_scopes import OutlineIncoreScopes
from pypto.passes.resolve_backend_op_layouts import ResolveBackendOpLayouts
from pypto.passes.simplify import Simplify
from pypto.passes.split_vector_kernel import SplitVectorKernel
from pypto.passes.unroll_loops import UnrollLoops


class OptimizationStrategy(enum.Enum):
    """Which pipeline ``PassManager.get_strategy`` builds."""

    Default = "Default"


def front_passes() -> list[Pass]:
    """Fresh instances of the front passes (surface -> ssa), in pipeline order."""
    return [
        InlineFunctions(),
        UnrollLoops(),
        CtrlFlowTransform(),
        ConvertToSSA(),
        Simplify(),
        NormalizeStmtStructure(),
        FlattenCallExpr(),
    ]


def lowering_passes() -> list[Pass]:
    """Fresh instances of the passes after the front (ssa -> runtime), in pipeline order."""
    return [
        OutlineHierarchyScopes(),
        OutlineIncoreScopes(),
        OutlineClusterScopes(),
        MaterializeValidShapeSymbols(),
        ConvertTensorToTileOps(),
        ElideTensorCarries(),
        FlattenTileNdTo2D(),
        LegalizeTileCast(),
        AutoTileMatmulL0(),
        CanonicalizeTileSlice(),
        InferTileMemorySpace(),
        ResolveBackendOpLayouts(),
        ExpandMixedKernel(),
        InjectGMPipeBuffer(),
        NormalizeReturnOrder(),
        SplitVectorKernel(),
        MaterializeTensorStrides(),
        InitMemRef(),
        MemoryReuse(),
        AllocateMemoryAddr(),
        ExportEntryResults(),
        DeriveCallDirections(),
        AutoDeriveTaskDependencies(),
        ExpandManualPhaseFence(),
        MaterializeRuntimeScopes(),
        ClassifyIterArgCarry(),
        InsertPipeSync(),
    ]


def builtin_passes() -> list[Pass]:
    """Fresh instances of the built-in passes, in pipeline order."""
    return front_passes() + lowering_passes()


def default_passes(strategy: OptimizationStrategy = OptimizationStrategy.Default, plugins: bool = True) -> list[Pass]:
    """The pipeline of ``strategy``, with the installed plugin passes inserted at their positions."""
    OptimizationStrategy(strategy)
    passes = builtin_passes()
    if not plugins:
        return passes
    return insert(passes, discover(builtin=[p.name for p in passes]).values())
