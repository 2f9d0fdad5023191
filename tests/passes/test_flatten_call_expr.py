"""FlattenCallExpr: nested calls become temporaries placed right before their statement."""

from __future__ import annotations

import pytest
from front_programs import FLATTEN_CALL_EXPR, parse
from pass_helpers import before_after, check_preserves, upto
from pypto.languages.invariants import NoNestedCalls, SSAForm

from pypto import ir, passes


@pytest.mark.parametrize("name", sorted(FLATTEN_CALL_EXPR))
def test_snapshot(name: str, snapshot) -> None:
    before = upto("FlattenCallExpr", parse(FLATTEN_CALL_EXPR[name]))
    assert NoNestedCalls.check(before) != []
    after = check_preserves(passes.flatten_call_expr(), before)
    assert NoNestedCalls.check(after) == [] and SSAForm.check(after) == []
    assert before_after("FlattenCallExpr", before, after) == snapshot


def test_spec_example_structure() -> None:
    before = upto("FlattenCallExpr", parse(FLATTEN_CALL_EXPR["function_call_argument"]))
    after = passes.flatten_call_expr()(before)
    expected = parse(
        """
        @pl.program
        class FnArg:
            @pl.function
            def helper(self, x: pl.Tensor[[16, 16], pl.FP32]) -> pl.Tensor[[16, 16], pl.FP32]:
                y: pl.Tensor[[16, 16], pl.FP32] = pl.add(x, x)
                return y

            @pl.function
            def main(self, a: pl.Tensor[[16, 16], pl.FP32]) -> pl.Tensor[[16, 16], pl.FP32]:
                t0: pl.Tensor[[16, 16], pl.FP32] = pl.exp(a)
                t1: pl.Tensor[[16, 16], pl.FP32] = self.helper(t0)
                r: pl.Tensor[[16, 16], pl.FP32] = self.helper(t1)
                return r
        """
    )
    ir.assert_structural_equal(after, expected)
    names = [s.var.name_hint for s in after.get_function("main").body.stmts[:2]]
    assert names == ["t__tmp_v0", "t__tmp_v1"]


def test_condition_call_is_hoisted_before_the_if() -> None:
    after = passes.flatten_call_expr()(upto("FlattenCallExpr", parse(FLATTEN_CALL_EXPR["call_in_if_condition"])))
    stmts = after.get_function("main").body.stmts
    assert stmts[1].as_python() == "t__tmp_v0: pl.Scalar[pl.INDEX] = pl.tensor.dim(x, 0)"
    assert isinstance(stmts[2], ir.IfStmt) and stmts[2].condition.as_python() == "t__tmp_v0 > n"


def test_yield_call_is_hoisted_inside_the_loop_body() -> None:
    after = passes.flatten_call_expr()(upto("FlattenCallExpr", parse(FLATTEN_CALL_EXPR["call_in_return_and_yield"])))
    loop = after.get_function("main").body.stmts[0]
    hoisted, last = loop.body.stmts
    assert hoisted.var.name_hint == "t__tmp_v0"
    assert isinstance(last, ir.YieldStmt) and last.value[0] is hoisted.var


def test_flat_program_is_unchanged() -> None:
    program = upto("FlattenCallExpr", parse(FLATTEN_CALL_EXPR["nested_op_calls"]))
    once = passes.flatten_call_expr()(program)
    assert passes.flatten_call_expr()(once) is once


def test_temporaries_skip_names_the_function_already_uses() -> None:
    source = """
        @pl.program
        class Clash:
            @pl.function
            def main(self, a: pl.Tensor[[16, 16], pl.FP32]) -> pl.Tensor[[16, 16], pl.FP32]:
                t__tmp_v0: pl.Tensor[[16, 16], pl.FP32] = pl.exp(a)
                r: pl.Tensor[[16, 16], pl.FP32] = pl.add(pl.exp(t__tmp_v0), a)
                return r
        """
    after = passes.flatten_call_expr()(upto("FlattenCallExpr", parse(source)))
    names = [s.var.name_hint for s in after.get_function("main").body.stmts[:-1]]
    assert names == ["t__tmp_v0", "t__tmp_v1", "r"]
    assert SSAForm.check(after) == []
