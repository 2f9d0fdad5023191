"""FlattenCallExpr: nested calls become temporaries placed right before their statement."""

from __future__ import annotations

import pytest
from front_programs import FLATTEN_CALL_EXPR, parse
from pass_helpers import before_after, check_preserves, upto
from pypto.languages.invariants import NoNestedCalls, SSAForm

import pypto.language as pl
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


def test_a_dispatch_predicate_keeps_its_element_read() -> None:
    """The scheduler reads the predicate's element at dispatch: orchestration never executes it, so
    neither the Submit's nor the spmd scope's ``tensor.read`` is hoisted; a nested call in the
    scope's body still is, and the result satisfies NoNestedCalls and prints back."""
    source = """
        @pl.program
        class Gated:
            @pl.function(type=pl.FunctionType.InCore)
            def k(self, x: pl.Tensor[[64], pl.FP32],
                  out: pl.InOut[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
                return out

            @pl.function(type=pl.FunctionType.Orchestration)
            def main(self, x: pl.Tensor[[64], pl.FP32], g: pl.Tensor[[4], pl.INT32],
                     out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
                out, t = pl.submit(self.k, x, out, predicate=(g[1] > 0))
                with pl.spmd(2, predicate=(0 < g[2])):
                    out = self.k(pl.exp(x), out)
                return out
        """
    before = upto("FlattenCallExpr", parse(source))
    after = passes.flatten_call_expr()(before)
    submit, _, _, scope, _ = after.get_function("main").body.stmts
    assert submit.value.predicate.as_python() == "pl.cast(pl.tensor.read(g, [1]), pl.INDEX) > 0"
    assert scope.attrs["predicate"] is ir.flatten_to_stmts(before.get_function("main").body)[3].attrs["predicate"]
    hoisted, _ = scope.body.stmts
    assert hoisted.as_python() == "t__tmp_v0: pl.Tensor[[64], pl.FP32] = pl.tensor.exp(x)"
    assert NoNestedCalls.check(after) == []
    ir.assert_structural_equal(pl.parse(after.as_python()), after)
