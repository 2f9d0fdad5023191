"""The canonical affine form of index expressions: what it proves equal, and what it leaves alone."""

from __future__ import annotations

import pytest

from pypto import ir
from pypto.ir import DataType
from pypto.ir.affine import affine_difference, provably_equal, simplify_index


def var(name: str, dtype: DataType = DataType.INDEX) -> ir.Var:
    return ir.Var(name, ir.ScalarType(dtype))


C, I, N = var("c"), var("i"), var("n")


def text(e: ir.Expr) -> str:
    return ir.python_print(e)


@pytest.mark.parametrize(
    ("expr", "expected"),
    [
        (C + 128 - (C + 64), "64"),
        ((I + 1) * 64 - I * 64, "64"),
        (C + 64 + 64, "c + 128"),
        (-C + (C + N), "n"),
        (C * 2 - C + 3 - 3, "c"),
        (C + 128 - (N + 64), "c - n + 64"),  # the constants merge
        (C + N - I, "c + n - i"),  # nothing cancels: the written form stays
        ((I + 1) * 16, "(i + 1) * 16"),  # i * 16 + 16 is no smaller
    ],
)
def test_simplify_index(expr: ir.Expr, expected: str) -> None:
    assert text(simplify_index(expr)) == expected


def test_atoms_match_structurally() -> None:
    """``c // 2`` written twice is one atom; a product of two variables is an atom too."""
    assert affine_difference(C // 2 + 8, C // 2) == 8
    assert affine_difference(C * N + 1, C * N - 1) == 2
    assert affine_difference(C // 2, C // 4) is None


def test_provably_equal() -> None:
    assert provably_equal(C + 128 - (C + 64), ir.ConstInt(64, DataType.INDEX))
    assert not provably_equal(C, N)
    assert not provably_equal(C + 1, C)
    assert not provably_equal(C, ir.ConstInt(0, DataType.INDEX))


def test_other_dtypes_are_atoms() -> None:
    """INT32 arithmetic wraps at its own width: it is never rewritten."""
    a, five = var("a", DataType.INT32), ir.ConstInt(5, DataType.INT32)
    e = a + five - a
    assert simplify_index(e) is e
    assert affine_difference(e, five) is None


def test_deep_expressions_do_not_recurse() -> None:
    e: ir.Expr = C
    for _ in range(5000):
        e = e + 1
    assert text(simplify_index(e - C)) == "5000"
