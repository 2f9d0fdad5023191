"""Scope invariants: nesting of InCore scopes, which scopes remain after outlining, and the rules
of split-aiv regions."""

from __future__ import annotations

from pypto.analysis import expr_vars, function_index, op_name, walk

from dataclasses import replace

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
)
from pypto.ir.types import TileType

from .affinity import Affinity, affinity
from .base import Invariant, Reporter
from .grammar import Forbid, Ops, inside, outside
from .walk import holds_any


def _at_most_one_incore(func: Function) -> bool:
    """True when ``func`` holds fewer than two InCore scopes: then none is inside another (the rule's
    walk of each scope's body is skipped)."""
    index = function_index(func)
    return not holds_any(index, (InCoreScopeStmt,)) or len(index.of(InCoreScopeStmt)) < 2


NoNestedInCore = Invariant.declared(
    "NoNestedInCore",
    "no InCore scope inside another",
    Forbid(
        what=InCoreScopeStmt,
        within=InCoreScopeStmt,
        code="NESTED_INCORE",
        message="an InCore scope inside another InCore scope",
    ),
    holds_if=_at_most_one_incore,
)


def _has_tile_counterpart(name: str) -> bool:
    return op_registry.lookup("tile." + name.split(".", 1)[1]) is not None


# Tensor ops that create, address or move tensors: orchestration code uses them legitimately.
_ORCHESTRATION_TENSOR_OPS = frozenset(
    "tensor." + n for n in ("create", "full", "read", "write", "dim", "slice", "assemble", "reshape", "view")
)
TENSOR_COMPUTE = Ops("tensor ops with a tile counterpart", prefix="tensor.", keep=_has_tile_counterpart)

SplitIncoreOrch = Invariant.declared(
    "SplitIncoreOrch",
    "InCore scopes only in InCore functions; no tile ops in orchestration functions (compute tensor ops in orchestration are warned about)",
    Forbid(
        what=InCoreScopeStmt,
        where=outside(FunctionType.InCore),
        code="INCORE_SCOPE",
        message="an InCore scope in {kind} function '{func}'",
    ),
    Forbid(
        what=Ops("tile ops", prefix="tile."),
        where=inside(FunctionType.Orchestration),
        code="TILE_OP_IN_ORCHESTRATION",
        message="tile op {op} in Orchestration function '{func}' (hint: it belongs in a kernel: a "
                "pl.at(level=pl.Level.CORE_GROUP) block or an InCore function)",
    ),
    Forbid(
        what=replace(TENSOR_COMPUTE, exclude=_ORCHESTRATION_TENSOR_OPS),
        where=inside(FunctionType.Orchestration),
        warning=True,
        code="COMPUTE_IN_ORCHESTRATION",
        message="compute op {op} left in an Orchestration function",
    ),
)

# The scopes outlining turns into kernels (or a wrapper launching them); a hierarchy scope becomes an
# Opaque function, so a tile op directly in one is host code too.
_KERNEL_SCOPES = (InCoreScopeStmt, ClusterScopeStmt, SpmdScopeStmt)


def _not_opaque(func: Function) -> bool:
    """TileOpsInKernels' idle test: only Opaque functions are checked."""
    return func.func_type is not FunctionType.Opaque


def _check_tile_ops_in_opaque(func: Function, program: Program, report: Reporter) -> None:
    """Tile ops of an Opaque function outside every scope outlining makes a kernel of: no pass turns the
    function into a kernel, so this holds from the parser's output on. One error per function, at the
    first such op: the fix (a kernel function type, or a pl.at scope) is one for all of them."""
    if _not_opaque(func):
        return
    index = function_index(func)
    if not any(name.startswith("tile.") for name in index.op_names):
        return
    calls = [c for c in index.of(Call) if (op_name(c) or "").startswith("tile.")]
    scoped = {id(n) for scope in index.of(*_KERNEL_SCOPES) for n in walk(scope.body)}
    loose = [c for c in calls if id(c) not in scoped]
    if not loose:
        return
    ops = list(dict.fromkeys(op_name(c) for c in loose))
    what = f"tile op {ops[0]}" if len(ops) == 1 else f"tile ops {', '.join(ops)}"
    if index.has(*_KERNEL_SCOPES, HierarchyScopeStmt):  # outlined: its scopes become functions, it stays host code
        message = (f"{what} in Opaque function '{func.name}', host code around its kernel scopes (tile ops run "
                   "in kernels: put them in a pl.at(level=pl.Level.CORE_GROUP) scope)")
    else:
        message = (f"{what} in Opaque function '{func.name}' (tile ops run in kernels: declare it"
                   " @pl.function(type=pl.FunctionType.InCore) or put them in a pl.at(level=pl.Level.CORE_GROUP) scope)")
    report.error("TILE_OP_IN_OPAQUE", message, loose[0])


TileOpsInKernels = Invariant.per_function(
    "TileOpsInKernels",
    "no tile op in an Opaque function outside a scope that outlining makes a kernel of",
    _check_tile_ops_in_opaque,
    idle_if=_not_opaque,
)

HierarchyOutlined = Invariant.declared(
    "HierarchyOutlined",
    "no hierarchy scope in Opaque functions",
    Forbid(
        what=HierarchyScopeStmt,
        where=inside(FunctionType.Opaque),
        code="HIERARCHY_SCOPE",
        message="a hierarchy scope in Opaque function '{func}'",
    ),
)


def _outlined_scope(cls: type, word: str) -> Forbid:
    return Forbid(
        what=cls,
        where=outside(FunctionType.Group, FunctionType.Spmd),
        code="CLUSTER_SCOPE",
        message=f"a {word} scope in {{kind}} function '{{func}}'",
    )


ClusterOutlined = Invariant.declared(
    "ClusterOutlined",
    "cluster and spmd scopes only inside Group or Spmd functions",
    _outlined_scope(ClusterScopeStmt, "cluster"),
    _outlined_scope(SpmdScopeStmt, "spmd"),
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
    names = index.op_names
    if not index.has(SplitAivScopeStmt) and _SHARD not in names and _GATHER not in names:
        return  # (without a list of regions made: most functions have none)
    regions = index.of(SplitAivScopeStmt)
    calls = index.of(Call)
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
