"""Scope invariants: nesting of InCore scopes, which scopes remain after outlining, and the rules
of split-aiv regions."""

from __future__ import annotations

from pypto.analysis import expr_vars, function_index, op_name, sub_blocks, walk

from pypto.ir import op_registry
from pypto.ir.enums import FunctionType, MemorySpace
from pypto.ir.expr import Call, Var
from pypto.ir.function import Function, Program
from pypto.ir.stmt import (
    AssignStmt,
    ClusterScopeStmt,
    HierarchyScopeStmt,
    InCoreScopeStmt,
    SplitAivScopeStmt,
    SpmdScopeStmt,
    Stmt,
)
from pypto.ir.types import TileType

from .affinity import Affinity, affinity
from .base import Invariant, Reporter


def _check_nested_incore(func: Function, program: Program, report: Reporter) -> None:
    if not function_index(func).has(InCoreScopeStmt):
        return

    def visit(stmt: Stmt, inside: bool) -> None:
        if isinstance(stmt, InCoreScopeStmt):
            if inside:
                report.error("NESTED_INCORE", "an InCore scope inside another InCore scope", stmt)
            inside = True
        for body in sub_blocks(stmt):
            visit(body, inside)

    visit(func.body, False)


NoNestedInCore = Invariant.per_function(
    "NoNestedInCore",
    "no InCore scope inside another",
    _check_nested_incore,
)


# Tensor ops that create, address or move tensors: orchestration code uses them legitimately.
_ORCHESTRATION_TENSOR_OPS = frozenset(
    "tensor." + n for n in ("create", "full", "read", "write", "dim", "slice", "assemble", "reshape", "view")
)


def _check_split_incore_orch(func: Function, program: Program, report: Reporter) -> None:
    index = function_index(func)
    if func.func_type is not FunctionType.InCore:
        for scope in index.of(InCoreScopeStmt):
            report.error("INCORE_SCOPE", f"an InCore scope in {func.func_type.name} function '{func.name}'", scope)
    if func.func_type is FunctionType.Orchestration:
        for call in index.of(Call):
            name = op_name(call)
            if (
                name
                and name.startswith("tensor.")
                and name not in _ORCHESTRATION_TENSOR_OPS
                and op_registry.lookup("tile." + name.split(".", 1)[1]) is not None
            ):
                report.warning("COMPUTE_IN_ORCHESTRATION", f"compute op {name} left in an Orchestration function", call)


SplitIncoreOrch = Invariant.per_function(
    "SplitIncoreOrch",
    "InCore scopes only inside InCore functions (compute tensor ops in orchestration are warned about)",
    _check_split_incore_orch,
)


def _check_hierarchy(func: Function, program: Program, report: Reporter) -> None:
    if func.func_type is FunctionType.Opaque:
        for scope in function_index(func).of(HierarchyScopeStmt):
            report.error("HIERARCHY_SCOPE", f"a hierarchy scope in Opaque function '{func.name}'", scope)


HierarchyOutlined = Invariant.per_function(
    "HierarchyOutlined",
    "no hierarchy scope in Opaque functions",
    _check_hierarchy,
)


def _check_cluster(func: Function, program: Program, report: Reporter) -> None:
    if func.func_type in (FunctionType.Group, FunctionType.Spmd):
        return
    for scope in function_index(func).of(ClusterScopeStmt, SpmdScopeStmt):
        kind = "cluster" if isinstance(scope, ClusterScopeStmt) else "spmd"
        report.error("CLUSTER_SCOPE", f"a {kind} scope in {func.func_type.name} function '{func.name}'", scope)


ClusterOutlined = Invariant.per_function(
    "ClusterOutlined",
    "cluster and spmd scopes only inside Group or Spmd functions",
    _check_cluster,
)

_SHARD, _GATHER = "tile.aiv_shard", "tile.aic_gather"
_REGION_FREE_VECTOR = frozenset({"tile.load", "tile.store", "tile.move"})


def _space(e: object) -> MemorySpace | None:
    t = getattr(e, "type", None)
    return t.memory_space if isinstance(t, TileType) else None


def _check_shard_spaces(call: Call, report: Reporter) -> None:
    name = op_name(call)
    want = {_SHARD: (MemorySpace.Acc, MemorySpace.Vec), _GATHER: (MemorySpace.Vec, MemorySpace.Mat)}.get(name)
    if want is None or not call.args:
        return
    source, result = _space(call.args[0]), _space(call)
    if source is not None and source is not want[0]:
        report.error("SHARD_SPACE", f"{name} reads a {source.name} tile (expected {want[0].name})", call)
    if result is not None and result is not want[1]:
        report.error("SHARD_SPACE", f"{name} produces a {result.name} tile (expected {want[1].name})", call)


def _check_aiv_split(func: Function, program: Program, report: Reporter) -> None:
    index = function_index(func)
    regions = index.of(SplitAivScopeStmt)
    calls = index.of(Call)
    if not regions and not any(op_name(c) in (_SHARD, _GATHER) for c in calls):
        return
    inside: set[int] = set()
    for region in regions:
        nodes = walk(region.body)
        if any(isinstance(n, SplitAivScopeStmt) for n in nodes):
            report.error("NESTED_REGION", "a split-aiv region inside another", region)
        inside.update(id(n) for n in nodes)
    if regions and func.func_type is FunctionType.InCore and "split_aiv" not in func.attrs:
        report.error(
            "REGION_NOT_OUTLINED", "a split-aiv region in an InCore function not made by outlining", regions[0]
        )
    for call in calls:
        name, side, within = op_name(call), affinity(call), id(call) in inside
        if within and side is Affinity.CUBE:
            report.error("CUBE_IN_REGION", f"cube op {name} inside a split-aiv region", call)
        if name in (_SHARD, _GATHER) and not within:
            report.error("SHARD_OUTSIDE_REGION", f"{name} outside a split-aiv region", call)
        if regions and not within and side is Affinity.VECTOR and name not in _REGION_FREE_VECTOR:
            report.error("VECTOR_OUTSIDE_REGION", f"vector op {name or 'call'} outside the split-aiv regions", call)
        _check_shard_spaces(call, report)
    producer: dict[Var, tuple[AssignStmt, bool]] = {s.var: (s, id(s) in inside) for s in index.of(AssignStmt)}
    for stmt in index.of(AssignStmt):
        within, name, side = id(stmt) in inside, op_name(stmt.value), affinity(stmt.value)
        for var in dict.fromkeys(expr_vars(stmt.value)):
            source = producer.get(var)
            if source is None or source[1] == within:
                continue
            source_side = affinity(source[0].value)
            if within and source_side is Affinity.CUBE and name != _SHARD:
                report.error(
                    "UNSHARDED_CUBE_VALUE", f"cube value '{var.name_hint}' enters a region without aiv_shard", stmt
                )
            if not within and side is Affinity.CUBE and op_name(source[0].value) != _GATHER:
                report.error(
                    "UNGATHERED_REGION_VALUE",
                    f"region value '{var.name_hint}' reaches the cube without aic_gather",
                    stmt,
                )


AivSplitValid = Invariant.per_function(
    "AivSplitValid",
    "split-aiv regions hold no cube ops; values cross them through aiv_shard / aic_gather in the right spaces",
    _check_aiv_split,
    auto_verified=True,
)
