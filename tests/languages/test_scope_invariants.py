"""NoNestedInCore, SplitIncoreOrch, HierarchyOutlined, ClusterOutlined and AivSplitValid."""

from __future__ import annotations

import pytest
from inv_helpers import found, prog, single
from pypto.languages import outlined
from pypto.languages.invariants import (
    AivSplitValid,
    ClusterOutlined,
    HierarchyOutlined,
    NoNestedInCore,
    Severity,
    SplitIncoreOrch,
)
from pypto.languages.invariants.base import clear_caches

from pypto import ir
from pypto.ir.op_registry import create_op_call

_SPAN = ir.Span.unknown()
_FT = ir.FunctionType


def _tile(space: ir.MemorySpace, name: str = "t") -> ir.Var:
    return ir.Var(name, ir.TileType([16, 16], ir.FP16, None, None, space))


def _call(name: str, args: list[ir.Expr], **kwargs: object) -> ir.Call:
    return create_op_call(name, args, kwargs, _SPAN)


def _eval(name: str, x: ir.Var) -> ir.EvalStmt:
    return ir.EvalStmt(_call("tensor.exp", [x]), _SPAN) if name == "exp" else ir.EvalStmt(x, _SPAN)


def _x() -> ir.Var:
    return ir.Var("x", ir.TensorType([16], ir.FP32))


def test_no_nested_incore() -> None:
    x = _x()
    inner = ir.InCoreScopeStmt(body=_eval("exp", x), span=_SPAN)
    outer = ir.InCoreScopeStmt(body=ir.SeqStmts([inner], _SPAN), span=_SPAN)
    assert found(NoNestedInCore, single("main", [x], outer)) == [
        ("NESTED_INCORE", "an InCore scope inside another InCore scope", "with pl.at(level=pl.Level.CORE_GROUP): ..."),
    ]
    assert found(NoNestedInCore, single("main", [x], inner)) == []


def test_no_nested_incore_shortcut_edges(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two InCore scopes side by side pass and scopes three deep are each reported, the same with the
    fewer-than-two-scopes shortcut as without it."""
    x = _x()
    scope, other = (ir.InCoreScopeStmt(body=_eval("exp", x), span=_SPAN) for _ in range(2))
    side_by_side = single("main", [x], ir.SeqStmts([scope, other], _SPAN))
    middle = ir.InCoreScopeStmt(body=ir.SeqStmts([scope], _SPAN), span=_SPAN)
    deep = single("main", [x], ir.InCoreScopeStmt(body=ir.SeqStmts([middle], _SPAN), span=_SPAN))
    nested = ("NESTED_INCORE", "an InCore scope inside another InCore scope")
    for holds_if in (NoNestedInCore.holds_if, None):
        monkeypatch.setattr(NoNestedInCore, "holds_if", holds_if)
        clear_caches()
        assert found(NoNestedInCore, side_by_side) == []
        assert [(code, message) for code, message, _ in found(NoNestedInCore, deep)] == [nested, nested]


def test_split_incore_orch() -> None:
    x = _x()
    scope = ir.InCoreScopeStmt(body=_eval("exp", x), span=_SPAN)
    assert found(SplitIncoreOrch, single("main", [x], scope)) == [
        ("INCORE_SCOPE", "an InCore scope in Opaque function 'main'", "with pl.at(level=pl.Level.CORE_GROUP): ..."),
    ]
    orchestration = single("main", [x], _eval("exp", x), func_type=_FT.Orchestration)
    (warning,) = SplitIncoreOrch.check(orchestration)
    assert (warning.severity, warning.code, warning.message) == (
        Severity.WARNING,
        "COMPUTE_IN_ORCHESTRATION",
        "compute op tensor.exp left in an Orchestration function",
    )
    assert "warning: SplitIncoreOrch" in warning.render()
    outlined.validate(orchestration, [SplitIncoreOrch])


def test_hierarchy_outlined() -> None:
    x = _x()
    scope = ir.HierarchyScopeStmt(ir.Level.HOST, body=_eval("exp", x), span=_SPAN)
    assert [(c, m) for c, m, _ in found(HierarchyOutlined, single("main", [x], scope))] == [
        ("HIERARCHY_SCOPE", "a hierarchy scope in Opaque function 'main'"),
    ]
    assert found(HierarchyOutlined, single("main", [x], scope, func_type=_FT.Orchestration)) == []


def test_cluster_outlined() -> None:
    x = _x()
    cluster = ir.ClusterScopeStmt(body=_eval("exp", x), span=_SPAN)
    spmd = ir.SpmdScopeStmt(4, body=_eval("exp", x), span=_SPAN)
    body = ir.SeqStmts([cluster, spmd], _SPAN)
    assert [(c, m) for c, m, _ in found(ClusterOutlined, single("main", [x], body, func_type=_FT.Orchestration))] == [
        ("CLUSTER_SCOPE", "a cluster scope in Orchestration function 'main'"),
        ("CLUSTER_SCOPE", "a spmd scope in Orchestration function 'main'"),
    ]
    assert found(ClusterOutlined, single("main", [x], body, func_type=_FT.Group)) == []


def _region(body: list[ir.Stmt]) -> ir.SplitAivScopeStmt:
    return ir.SplitAivScopeStmt(ir.SplitMode.UP_DOWN, body=ir.SeqStmts(body, _SPAN), span=_SPAN)


def test_aiv_split_region_rules() -> None:
    left, right = _tile(ir.Mem.Left, "l"), _tile(ir.Mem.Right, "r")
    acc = ir.Var("acc", ir.TileType([16, 16], ir.FP32, None, None, ir.Mem.Acc))
    vec = _tile(ir.Mem.Vec, "v")
    shard_vec = ir.Var("s", ir.TileType([8, 16], ir.FP16, None, None, ir.Mem.Vec))
    stmts = [
        ir.AssignStmt(acc, _call("tile.matmul", [left, right])),
        _region(
            [
                ir.AssignStmt(ir.Var("m", acc.type), _call("tile.matmul", [left, right])),
                ir.AssignStmt(ir.Var("w", acc.type), _call("tile.add", [acc, acc])),
                ir.AssignStmt(shard_vec, _call("tile.aiv_shard", [vec], split=1)),
            ]
        ),
        ir.AssignStmt(ir.Var("g", vec.type), _call("tile.aic_gather", [vec], split=1)),
        ir.AssignStmt(ir.Var("e", vec.type), _call("tile.exp", [vec])),
    ]
    program = single("main", [left, right, vec], ir.SeqStmts(stmts, _SPAN), func_type=_FT.InCore)
    assert [(c, m) for c, m, _ in found(AivSplitValid, program)] == [
        ("REGION_NOT_OUTLINED", "a split-aiv region in an InCore function not made by outlining"),
        ("CUBE_IN_REGION", "cube op tile.matmul inside a split-aiv region"),
        ("SHARD_SPACE", "tile.aiv_shard reads a Vec tile (expected Acc)"),
        ("SHARD_OUTSIDE_REGION", "tile.aic_gather outside a split-aiv region"),
        ("VECTOR_OUTSIDE_REGION", "vector op tile.exp outside the split-aiv regions"),
        ("UNSHARDED_CUBE_VALUE", "cube value 'acc' enters a region without aiv_shard"),
    ]


def test_valid_aiv_split_region() -> None:
    left, right = _tile(ir.Mem.Left, "l"), _tile(ir.Mem.Right, "r")
    acc = ir.Var("acc", ir.TileType([16, 16], ir.FP32, None, None, ir.Mem.Acc))
    half = ir.Var("half", ir.TileType([8, 16], ir.FP32, None, None, ir.Mem.Vec))
    twice = ir.Var("twice", half.type)
    stmts = [
        ir.AssignStmt(acc, _call("tile.matmul", [left, right])),
        _region(
            [
                ir.AssignStmt(half, _call("tile.aiv_shard", [acc], split=1)),
                ir.AssignStmt(twice, _call("tile.add", [half, half])),
            ]
        ),
    ]
    program = single("main", [left, right], ir.SeqStmts(stmts, _SPAN), func_type=_FT.AIC)
    assert found(AivSplitValid, program) == []
    plain = prog(
        """
        @pl.program
        class A:
            @pl.function(type=pl.FunctionType.InCore)
            def main(self, x: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
                t: pl.Tile[[16, 16], pl.FP32] = pl.load(x, [0, 0], [16, 16])
                u: pl.Tile[[16, 16], pl.FP32] = pl.exp(t)
                r: pl.Tensor[[16, 16], pl.FP32] = pl.store(u, [0, 0], out)
                return r
        """
    )
    assert found(AivSplitValid, plain) == []


def test_a_shard_in_a_function_without_regions_is_reported() -> None:
    """A function holding no split-aiv region is looked at when it calls a shard or gather op."""
    vec = _tile(ir.Mem.Vec, "v")
    stmts = [ir.AssignStmt(ir.Var("g", vec.type), _call("tile.aic_gather", [vec], split=1)), ir.ReturnStmt([])]
    program = single("main", [vec], ir.SeqStmts(stmts, _SPAN), func_type=_FT.InCore)
    assert [(c, m) for c, m, _ in found(AivSplitValid, program)] == [
        ("SHARD_OUTSIDE_REGION", "tile.aic_gather outside a split-aiv region"),
    ]
