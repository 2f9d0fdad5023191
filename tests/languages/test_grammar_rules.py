"""Declarative grammar rules: each kind of rule rejects invalid IR with a diagnostic naming the
dialect, the rule, the node and its span; the walker also looks inside variables' types."""

from __future__ import annotations

import pytest
from inv_helpers import INDEX, prog, single
from pypto.languages import outlined, runtime, tiled
from pypto.languages.invariants import CallDirectionsResolved, SplitIncoreOrch, TileMemoryInferred
from pypto.languages.invariants.base import Invariant
from pypto.languages.invariants.grammar import (
    KERNELS,
    Attr,
    Field,
    Forbid,
    Length,
    NoNode,
    Ops,
    Present,
    inside,
    op,
    outside,
)

from pypto import ir
from pypto.ir.errors import VerificationError

_SPAN = ir.Span.unknown()


def _rendered(violations: list) -> list[str]:
    return [line for v in violations for line in v.render().splitlines()]


def test_op_rule_per_function_kind() -> None:
    program = prog(
        """
        @pl.program
        class A:
            @pl.function(type=pl.FunctionType.Orchestration)
            def main(self, x: pl.Tensor[[16, 16], pl.FP32]) -> pl.Tensor[[16, 16], pl.FP32]:
                t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.load(x, [0, 0], [16, 16])
                return x
        """
    )
    with pytest.raises(VerificationError) as err:
        outlined.validate(program, [SplitIncoreOrch], context="after pass Example")
    assert str(err.value).splitlines() == [
        "program 'A' is not in dialect 'outlined' (after pass Example): 1 violation",
        "[outlined] SplitIncoreOrch TILE_OP_IN_ORCHESTRATION in 'main': "
        "tile op tile.load in Orchestration function 'main' (hint: it belongs in a kernel: a "
        "pl.at(level=pl.Level.CORE_GROUP) block or an InCore function)",
        "    pl.tile.load(x, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec)",
        "    at <string>:7:53",
    ]


def test_field_refinement_inside_a_tuple_in_a_var_type() -> None:
    unplaced = ir.TileType([16, 16], ir.FP32)
    pair = ir.Var("pair", ir.TupleType([INDEX, unplaced]), ir.Span("k.py", 3, 5, 3, 9))
    program = single("main", [pair], ir.ReturnStmt([]), func_type=ir.FunctionType.AIV)
    assert _rendered(tiled.check(program, [TileMemoryInferred])) == [
        "[tiled] TileMemoryInferred NO_MEMORY_SPACE in 'main': tile 'pair' has no memory space",
        "    pair",
        "    at k.py:3:5",
    ]
    # The same tile type in an Orchestration function is not the rule's business.
    orchestration = single("main", [pair], ir.ReturnStmt([]), func_type=ir.FunctionType.Orchestration)
    assert tiled.check(orchestration, [TileMemoryInferred]) == []


def test_required_attr() -> None:
    program = prog(
        """
        @pl.program
        class A:
            @pl.function(type=pl.FunctionType.AIV)
            def k(self, x: pl.Tensor[[16], pl.FP32]) -> pl.Tensor[[16], pl.FP32]:
                return x

            @pl.function(type=pl.FunctionType.Orchestration)
            def main(self, x: pl.Tensor[[16], pl.FP32]) -> pl.Tensor[[16], pl.FP32]:
                y: pl.Tensor[[16], pl.FP32] = self.k(x)
                return y
        """
    )
    assert _rendered(runtime.check(program, [CallDirectionsResolved])) == [
        "[runtime] CallDirectionsResolved MISSING_DIRECTIONS in 'main': call to 'k' has no arg_directions",
        "    k(x)",
        "    at <string>:11:39",
    ]


def test_rules_print_as_grammar() -> None:
    assert str(Forbid(what=ir.BreakStmt, where=inside(*KERNELS), code="C", message="m")) == (
        "BreakStmt: not in InCore, AIC, AIV functions"
    )
    tile_ops = Ops("tile ops", prefix="tile.")
    assert str(Forbid(what=tile_ops, where=outside(ir.FunctionType.AIV), code="C", message="m")) == (
        "tile ops: only in AIV functions"
    )
    assert str(Field(of=ir.TileType, field="memory_space", refinement=Present(), code="C", message="m")) == (
        "TileType.memory_space: present"
    )
    assert str(Field(of=op("tile.transpose"), field="args", refinement=Length(equal=4), code="C", message="m")) == (
        "tile.transpose: args: 4 items"
    )
    assert str(Field(of=ir.Call, field="args", refinement=NoNode(ir.Call), code="C", message="m")) == (
        "Call.args: no Call"
    )
    assert str(Attr(of=ir.ForStmt, key="x_{i}", per="iter_args", code="C", message="m")) == (
        "ForStmt: attrs['x_<i>'] for each of iter_args"
    )


def test_a_rule_about_a_base_class_sees_its_subclass_in_a_function_of_new_node_classes() -> None:
    """The walker skips a function holding no node class a rule visits (asked once per set of node
    classes): a function with only the rule's subclass, met after one without, is still walked."""
    no_scopes = Invariant.declared("NoScopes", "no scope", Forbid(what=ir.ScopeStmt, code="SCOPE", message="a scope"))
    x = ir.Var("x", INDEX)
    plain = single("f", [x], ir.ReturnStmt([x]))
    scoped = single("f", [x], ir.InCoreScopeStmt(body=ir.ReturnStmt([x])))
    for _ in range(2):
        assert no_scopes.check(plain) == []
        assert [(v.code, v.message) for v in no_scopes.check(scoped)] == [("SCOPE", "a scope")]


def test_rules_of_several_classes_see_the_nodes_of_those_a_function_holds() -> None:
    """The walker asks the index only for the rule classes a function holds (a list shared with other
    checks): a function with only calls, only a scope, or both, still has each reported, in pre-order."""
    rules = Invariant.declared(
        "NoScopeNorG", "no scope, no call of g",
        Forbid(what=ir.ScopeStmt, code="SCOPE", message="a scope"),
        Forbid(what=Ops("g calls", prefix="g"), code="CALL", message="{op}"),
    )
    x = ir.Var("x", INDEX)
    call = ir.EvalStmt(ir.Call(ir.Op("g.f"), [x], INDEX))
    only_call = single("f", [x], ir.SeqStmts([call, ir.ReturnStmt([x])]))
    only_scope = single("f", [x], ir.SeqStmts([ir.InCoreScopeStmt(body=ir.ReturnStmt([x]))]))
    both = single("f", [x], ir.SeqStmts([call, ir.InCoreScopeStmt(body=call), ir.ReturnStmt([x])]))
    for _ in range(2):  # the second time from the per-set choice made the first
        assert [v.code for v in rules.check(only_call)] == ["CALL"]
        assert [v.code for v in rules.check(only_scope)] == ["SCOPE"]
        assert [v.code for v in rules.check(both)] == ["CALL", "SCOPE", "CALL"]


def test_a_rule_about_functions_still_sees_the_function_beside_rules_about_its_nodes() -> None:
    """The index never holds a function: the walker visits the function itself for a rule about
    functions, and the nodes below for the others."""
    rules = Invariant.declared(
        "NoParamsNorScope", "no parameter, no scope",
        Field(of=ir.Function, field="params", refinement=Length(equal=0), code="PARAMS", message="params"),
        Forbid(what=ir.ScopeStmt, code="SCOPE", message="a scope"),
    )
    x = ir.Var("x", INDEX)
    plain = single("f", [x], ir.ReturnStmt([x]))
    scoped = single("f", [x], ir.SeqStmts([ir.InCoreScopeStmt(body=ir.ReturnStmt([x]))]))
    assert [v.code for v in rules.check(plain)] == ["PARAMS"]
    assert [v.code for v in rules.check(scoped)] == ["PARAMS", "SCOPE"]
