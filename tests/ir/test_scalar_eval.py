"""Scalar node semantics on edge values, shared by the interpreter and Simplify's folding."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from pypto.interp.errors import OpError
from pypto.ir.scalar_eval import constant_value, eval_binary, fold_binary, fold_unary
from pypto.ir import expr as E
from pypto.ir.datatype import DataType as D
from pypto.ir.span import Span


@pytest.mark.parametrize(
    ("node", "a", "b", "dtype", "expected"),
    [
        (E.Pow, 3, 10**18, D.INT64, pow(3, 10**18, 2**64)),
        (E.Pow, 2, 70, D.INDEX, 0),
        (E.Pow, 10.0, 400.0, D.FP32, math.inf),
        (E.BitShiftLeft, 1, 10**12, D.INT32, 0),
        (E.BitShiftLeft, 3, 31, D.INT32, -(2**31)),
        (E.BitShiftRight, -8, 10**12, D.INT32, -1),
        (E.FloorDiv, 1.0, 0.0, D.FP32, math.inf),
        (E.FloorDiv, -7.0, 2.0, D.FP32, -4.0),
        (E.Mul, 60000.0, 2.0, D.FP16, math.inf),
    ],
)
def test_eval_binary_edge_values(node: type, a: object, b: object, dtype: D, expected: object) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert eval_binary(node, a, b, dtype) == expected


@pytest.mark.parametrize(
    ("a", "b", "expected"), [(2, -1, 0), (-5, -2, 0), (1, -7, 1), (-1, -3, -1), (-1, -4, 1), (3, 21, 1870418611)]
)
def test_integer_pow_truncates_negative_exponents_and_wraps(a: int, b: int, expected: int) -> None:
    assert eval_binary(E.Pow, a, b, D.INT32) == expected


def test_float_pow_of_negative_base_is_nan() -> None:
    assert math.isnan(eval_binary(E.Pow, -8.0, 0.5, D.FP32))


@pytest.mark.parametrize(
    ("node", "a", "b", "message"),
    [
        (E.FloorDiv, 1, 0, "integer floor division by zero"),
        (E.Pow, 0, -1, "0 cannot be raised to the negative power -1"),
        (E.BitShiftLeft, 1, -1, "negative shift count -1"),
    ],
)
def test_eval_binary_errors_and_folding_declines(node: type, a: int, b: int, message: str) -> None:
    with pytest.raises(OpError, match=message):
        eval_binary(node, a, b, D.INT32)
    assert fold_binary(node, a, b, D.INT32) is None


def test_folding_declines_non_finite_results_and_unfolded_dtypes() -> None:
    assert fold_binary(E.FloatDiv, 1.0, 0.0, D.FP16) is None
    assert fold_binary(E.Add, 1.0, 1.0, D.FP8E4M3FN) is None
    assert fold_unary(E.Cast, math.inf, D.INT32) is None
    assert fold_unary(E.Cast, -2.75, D.INT32) == -2


def test_constant_value_is_the_value_the_dtype_holds() -> None:
    span = Span.unknown()
    assert constant_value(E.ConstInt(200, D.INT8, span)) == -56
    assert constant_value(E.ConstFloat(0.1, D.BF16, span)) == 0.10009765625
    assert constant_value(E.ConstBool(True, span)) is True
    assert constant_value(E.ConstFloat(1.0, D.FP8E4M3FN, span)) is None
    assert constant_value(E.ConstInt(3, D.FP32, span)) is None


def test_constants_run_as_their_dtype_holds_them() -> None:
    import pypto.language as pl
    from pypto import interp, passes

    prog = pl.parse(
        "import pypto.language as pl\n"
        "@pl.program\n"
        "class P:\n"
        "    @pl.function\n"
        "    def main(self) -> tuple[pl.BOOL, pl.BOOL]:\n"
        "        wrapped: pl.BOOL = pl.const(200, pl.INT8) < pl.const(0, pl.INT8)\n"
        "        rounded: pl.BOOL = pl.const(0.1, pl.FP32) * pl.const(3.0, pl.FP32) == pl.const(0.3, pl.FP32)\n"
        "        return wrapped, rounded\n"
    )
    expected = [True, bool(np.float32(0.1) * np.float32(3.0) == np.float32(0.3))]
    assert list(interp.run(prog).returns) == expected
    assert list(interp.run(passes.simplify()(prog)).returns) == expected
