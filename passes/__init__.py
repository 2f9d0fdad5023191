"""The passes of the compiler (installed as ``pypto.passes``).

One module per pass, each exposed as a snake_case factory returning a pass object; calling the
object on a Program returns the new Program::

    from pypto import passes
    after = passes.convert_to_ssa()(before)

This module also re-exports the public names of the pass framework (:mod:`pypto.transform`: pass
base classes, contexts and instruments, errors, properties, verification, plugins) and of the
default pipeline and pass manager (:mod:`pypto.pipeline`, which imports the passes and is loaded
on first use of one of its names).
"""

import importlib
from typing import Any

from pypto.transform.base import SAME, FunctionPass, Pass, ProgramPass
from pypto.transform.context import (
    CallbackInstrument,
    DumpInstrument,
    PassContext,
    PassInstrument,
    TimingInstrument,
    VerifyLevel,
)
from pypto.transform.errors import PassError, PassOrderError, PluginError
from pypto.transform.plugins import discover as discover_plugins
from pypto.transform.report import PassReport, ReportInstrument
from pypto.transform.properties import IRProperty, IRPropertySet, get_default_verify_properties
from pypto.transform.verifier import (
    Diagnostic,
    DiagnosticSeverity,
    PassPipeline,
    PropertyVerifierRegistry,
    VerificationInstrument,
    VerificationLevel,
    VerificationMode,
    run_verifier,
    verify_properties,
)

from .allocate_memory_addr import AllocateMemoryAddr, CapacityError
from .auto_derive_task_dependencies import AutoDeriveTaskDependencies
from .auto_tile_matmul_l0 import AutoTileMatmulL0
from .canonicalize_tile_slice import CanonicalizeTileSlice
from .classify_iter_arg_carry import ClassifyIterArgCarry
from .convert_tensor_to_tile_ops import ConvertTensorToTileOps
from .convert_to_ssa import ConvertToSSA
from .ctrl_flow_transform import CtrlFlowTransform
from .derive_call_directions import DeriveCallDirections
from .expand_manual_phase_fence import ExpandManualPhaseFence
from .elide_tensor_carries import ElideTensorCarries
from .expand_mixed_kernel import ExpandMixedKernel
from .export_entry_results import ExportEntryResults
from .inject_gm_pipe_buffer import InjectGMPipeBuffer
from .flatten_call_expr import FlattenCallExpr
from .flatten_tile_nd_to_2d import FlattenTileNdTo2D
from .infer_tile_memory_space import InferTileMemorySpace
from .init_memref import InitMemRef
from .inline_functions import InlineFunctions
from .insert_pipe_sync import InsertPipeSync
from .legalize_tile_cast import LegalizeTileCast
from .materialize_runtime_scopes import MaterializeRuntimeScopes
from .materialize_tensor_strides import MaterializeTensorStrides
from .materialize_valid_shape_symbols import MaterializeValidShapeSymbols
from .memory_reuse import MemoryReuse
from .normalize_return_order import NormalizeReturnOrder
from .normalize_stmt_structure import NormalizeStmtStructure
from .outline_cluster_scopes import OutlineClusterScopes
from .outline_hierarchy_scopes import OutlineHierarchyScopes
from .outline_incore_scopes import OutlineIncoreScopes
from .resolve_backend_op_layouts import ResolveBackendOpLayouts
from .simplify import Simplify
from .split_vector_kernel import SplitVectorKernel
from .unroll_loops import UnrollLoops

# The factories of docs/passes.md: a pass class called with its options is the pass object.
inline_functions = InlineFunctions
unroll_loops = UnrollLoops
ctrl_flow_transform = CtrlFlowTransform
convert_tensor_to_tile_ops = ConvertTensorToTileOps
convert_to_ssa = ConvertToSSA
simplify = Simplify
normalize_stmt_structure = NormalizeStmtStructure
flatten_call_expr = FlattenCallExpr
flatten_tile_nd_to_2d = FlattenTileNdTo2D
legalize_tile_cast = LegalizeTileCast
canonicalize_tile_slice = CanonicalizeTileSlice
resolve_backend_op_layouts = ResolveBackendOpLayouts
derive_call_directions = DeriveCallDirections
auto_derive_task_dependencies = AutoDeriveTaskDependencies
expand_manual_phase_fence = ExpandManualPhaseFence
materialize_runtime_scopes = MaterializeRuntimeScopes
classify_iter_arg_carry = ClassifyIterArgCarry
insert_pipe_sync = InsertPipeSync
auto_tile_matmul_l0 = AutoTileMatmulL0
infer_tile_memory_space = InferTileMemorySpace
expand_mixed_kernel = ExpandMixedKernel
inject_gm_pipe_buffer = InjectGMPipeBuffer
normalize_return_order = NormalizeReturnOrder
split_vector_kernel = SplitVectorKernel
elide_tensor_carries = ElideTensorCarries
materialize_tensor_strides = MaterializeTensorStrides
materialize_valid_shape_symbols = MaterializeValidShapeSymbols
init_memref = InitMemRef
memory_reuse = MemoryReuse
allocate_memory_addr = AllocateMemoryAddr
outline_hierarchy_scopes = OutlineHierarchyScopes
outline_incore_scopes = OutlineIncoreScopes
outline_cluster_scopes = OutlineClusterScopes
export_entry_results = ExportEntryResults


# Names of pypto.pipeline, which imports the pass modules: looked up on first use.
_PIPELINE_NAMES = frozenset(
    {
        "OptimizationStrategy",
        "PassDumpLevel",
        "PassManager",
        "builtin_passes",
        "check_order",
        "default_passes",
        "front_passes",
        "lowering_passes",
    }
)


def __getattr__(name: str) -> Any:
    if name in _PIPELINE_NAMES:
        return getattr(importlib.import_module("pypto.pipeline"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def available_passes() -> dict[str, object]:
    """Every pass name (built-in and installed plugins) mapped to its factory."""
    from pypto.pipeline.default import builtin_passes

    factories: dict[str, object] = {p.name: type(p) for p in builtin_passes()}
    for name, plugin in discover_plugins(builtin=factories).items():
        factories[name] = plugin.factory
    return factories


__all__ = [
    "SAME",
    "AllocateMemoryAddr",
    "CallbackInstrument",
    "AutoDeriveTaskDependencies",
    "CanonicalizeTileSlice",
    "CapacityError",
    "ClassifyIterArgCarry",
    "ConvertTensorToTileOps",
    "ConvertToSSA",
    "CtrlFlowTransform",
    "DeriveCallDirections",
    "ExpandManualPhaseFence",
    "Diagnostic",
    "DiagnosticSeverity",
    "DumpInstrument",
    "ElideTensorCarries",
    "ExpandMixedKernel",
    "ExportEntryResults",
    "InjectGMPipeBuffer",
    "FlattenCallExpr",
    "FlattenTileNdTo2D",
    "FunctionPass",
    "IRProperty",
    "IRPropertySet",
    "InferTileMemorySpace",
    "InitMemRef",
    "InlineFunctions",
    "InsertPipeSync",
    "LegalizeTileCast",
    "MaterializeRuntimeScopes",
    "MaterializeTensorStrides",
    "MaterializeValidShapeSymbols",
    "MemoryReuse",
    "NormalizeReturnOrder",
    "NormalizeStmtStructure",
    "OptimizationStrategy",
    "OutlineClusterScopes",
    "OutlineHierarchyScopes",
    "OutlineIncoreScopes",
    "Pass",
    "PassContext",
    "PassDumpLevel",
    "PassError",
    "PassInstrument",
    "PassManager",
    "PassOrderError",
    "PassPipeline",
    "PluginError",
    "ProgramPass",
    "PassReport",
    "ReportInstrument",
    "ResolveBackendOpLayouts",
    "PropertyVerifierRegistry",
    "Simplify",
    "SplitVectorKernel",
    "TimingInstrument",
    "UnrollLoops",
    "VerificationInstrument",
    "VerificationLevel",
    "VerificationMode",
    "VerifyLevel",
    "allocate_memory_addr",
    "available_passes",
    "builtin_passes",
    "canonicalize_tile_slice",
    "check_order",
    "classify_iter_arg_carry",
    "convert_tensor_to_tile_ops",
    "convert_to_ssa",
    "ctrl_flow_transform",
    "default_passes",
    "derive_call_directions",
    "auto_derive_task_dependencies",
    "expand_manual_phase_fence",
    "discover_plugins",
    "elide_tensor_carries",
    "expand_mixed_kernel",
    "export_entry_results",
    "flatten_call_expr",
    "flatten_tile_nd_to_2d",
    "front_passes",
    "get_default_verify_properties",
    "lowering_passes",
    "infer_tile_memory_space",
    "init_memref",
    "inline_functions",
    "insert_pipe_sync",
    "legalize_tile_cast",
    "materialize_runtime_scopes",
    "materialize_tensor_strides",
    "materialize_valid_shape_symbols",
    "memory_reuse",
    "normalize_return_order",
    "normalize_stmt_structure",
    "outline_cluster_scopes",
    "outline_hierarchy_scopes",
    "outline_incore_scopes",
    "resolve_backend_op_layouts",
    "run_verifier",
    "simplify",
    "split_vector_kernel",
    "unroll_loops",
    "verify_properties",
]
