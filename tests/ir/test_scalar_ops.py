"""Scalar factories and Python operators on Expr (spec/ir.md §3.2): promotion, casts, errors."""

from __future__ import annotations

import pytest

from pypto import ir

D = ir.DataType


def var(name: str, dtype: ir.DataType) -> ir.Var:
    return ir.Var(name, ir.ScalarType(dtype))


N, X, Y = var("n", D.INDEX), var("x", D.INT64), var("y", D.INT32)
H, F, BF, B = var("h", D.FP16), var("f", D.FP32), var("bf", D.BF16), var("b", D.BOOL)


@pytest.mark.parametrize(
    ("build", "node", "dtype", "text"),
    [
        (lambda: X + 1, ir.Add, D.INT64, "x + 1"),  # the spec's examples
        (lambda: Y + 1, ir.Add, D.INDEX, "pl.cast(y, pl.INDEX) + 1"),
        (lambda: N + X, ir.Add, D.INDEX, "n + x"),  # INDEX <-> INT64: never cast, left wins
        (lambda: X + N, ir.Add, D.INT64, "x + n"),
        (lambda: H + F, ir.Add, D.FP32, "pl.cast(h, pl.FP32) + f"),  # wider wins
        (lambda: BF + H, ir.Add, D.BF16, "bf + pl.cast(h, pl.BF16)"),  # equal widths: left wins
        (lambda: 1 - X, ir.Sub, D.INDEX, "1 - x"),
        (lambda: 2.0 * F, ir.Mul, D.FP32, "2.0 * f"),
        (lambda: Y < X, ir.Lt, D.BOOL, "pl.cast(y, pl.INT64) < x"),
        (lambda: ir.min_(Y, X), ir.Min, D.INT64, "pl.min(pl.cast(y, pl.INT64), x)"),
        (lambda: X >> Y, ir.BitShiftRight, D.INT64, "x >> pl.cast(y, pl.INT64)"),
        (lambda: ir.pow(X, 2), ir.Pow, D.INT64, "x ** 2"),
        (lambda: -Y, ir.Neg, D.INT32, "-y"),
        (lambda: ~Y, ir.BitNot, D.INT32, "~y"),
        (lambda: ir.not_(B), ir.Not, D.BOOL, "not b"),
        (lambda: ir.cast(X, D.FP32), ir.Cast, D.FP32, "pl.cast(x, pl.FP32)"),
    ],
)
def test_promotion(build: object, node: type, dtype: ir.DataType, text: str) -> None:
    e = build()
    assert type(e) is node and e.dtype == dtype and str(e) == text


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: Y + 1.0, "add: operands must have the same numeric dtype category, got int32 and fp32"),
        (lambda: B + B, "add: operands must not be bool, got bool and bool"),
        (lambda: ir.lt(B, X), "lt: operands must not be bool"),
        (lambda: ir.bit_and(F, F), "bit_and: bitwise operands must be integers, got fp32 and fp32"),
        (lambda: ~F, "bit_not: operand must be an integer, got fp32"),
        (lambda: X + "a", "Operand must be ScalarExpr or Var with ScalarType, got str"),
    ],
)
def test_rejections_are_type_errors(build: object, message: str) -> None:
    with pytest.raises(TypeError) as err:
        build()
    assert message in str(err.value)


@pytest.mark.parametrize("name", ["add", "lt", "bit_and"])
def test_factory_arity_errors_name_the_factory(name: str) -> None:
    with pytest.raises(TypeError, match=rf"^{name}\(\) missing 2 required positional arguments"):
        getattr(ir, name)()
