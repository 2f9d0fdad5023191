"""assert_pass_preserves: passes that keep the meaning pass, passes that change it are reported."""

from __future__ import annotations

import numpy as np
import pytest
from interp_ir import SP, assign, call, function, ret, tensor_t, var

from pypto import ir
from pypto.interp.testing import apply_pass, assert_pass_preserves, assert_values_close
from pypto.ir import DataType as D

T = tensor_t([4])


def scale_program(factor: float, dtype: D = D.FP32) -> ir.Function:
    x = var("x", tensor_t([4], dtype))
    r = var("r", tensor_t([4], dtype))
    c = ir.ConstFloat(factor, dtype, SP)
    return function("f", [x], [r.type], assign(r, call("tensor.muls", [x, c], None, r.type)), ret(r))


def identity(program: ir.Function) -> ir.Function:
    return program


def make_scaler(factor: float, dtype: D = D.FP32):  # noqa: ANN201 - a pass-like callable
    def rewrite(program: ir.Function) -> ir.Function:
        return scale_program(factor, dtype)

    rewrite.__name__ = "RewriteFactor"
    return rewrite


X = [np.arange(4, dtype=np.float32)]


def test_an_identity_pass_preserves_and_returns_the_result() -> None:
    prog = scale_program(2.0)
    assert assert_pass_preserves(identity, prog, X) is prog


def test_a_changed_result_is_reported_with_the_pass_name() -> None:
    with pytest.raises(
        AssertionError,
        match=r"RewriteFactor changed return value 0: 3 of 4 elements differ; first at \[1\]: 2.0 -> 3.0",
    ):
        assert_pass_preserves(make_scaler(3.0), scale_program(2.0), X)


def test_float_tolerance_depends_on_the_dtype() -> None:
    assert_pass_preserves(make_scaler(2.00001), scale_program(2.0), X)
    with pytest.raises(AssertionError):
        assert_pass_preserves(make_scaler(2.001), scale_program(2.0), X)
    assert_pass_preserves(make_scaler(2.001, D.FP16), scale_program(2.0, D.FP16), X)
    assert_pass_preserves(make_scaler(2.001), scale_program(2.0), X, rtol=1e-2)


def test_integers_compare_exactly() -> None:
    with pytest.raises(AssertionError, match="changed output 'x'"):
        assert_values_close(np.array([1, 2]), np.array([1, 3]), "output 'x'")
    with pytest.raises(AssertionError, match=r"changed v from int32\[2\] to int64\[2\]"):
        assert_values_close(np.array([1, 2], np.int32), np.array([1, 2], np.int64), "v")


def test_a_pass_that_breaks_the_program() -> None:
    def drop_body(program: ir.Function) -> ir.Function:
        r = var("r", T)
        return function("f", program.params, [T], ret(r))

    with pytest.raises(
        AssertionError, match="after drop_body the program no longer runs: variable 'r' is used before it is defined"
    ):
        assert_pass_preserves(drop_body, scale_program(2.0), X)


def test_pipelines_and_sequences() -> None:
    class Pipeline:
        name = "P"

        def run_passes(self, program: ir.Function) -> ir.Function:
            return program

    prog = scale_program(2.0)
    assert apply_pass(Pipeline(), prog) is prog
    assert apply_pass([identity, Pipeline()], prog) is prog
    with pytest.raises(TypeError, match="cannot apply 3: expected a pass, a pipeline or a callable"):
        apply_pass(3, prog)


def test_task_ids_are_not_compared() -> None:
    tid = ir.ScalarType(D.TASK_ID)
    v = var("t", tid)

    def numbered(first: int) -> ir.Function:
        stmts = [ir.EvalStmt(call("system.task_dummy", []), SP) for _ in range(first)]
        return function("f", [], [tid], *stmts, assign(v, call("system.task_dummy", [], None, tid)), ret(v))

    assert_pass_preserves(lambda p: numbered(3), numbered(0), [])


def test_scalar_returns() -> None:
    assert_values_close((1, 2.0), (1, 2.0000001), "returns")
    with pytest.raises(AssertionError, match=r"changed r\[0\]: 1 -> 2"):
        assert_values_close((1,), (2,), "r")
