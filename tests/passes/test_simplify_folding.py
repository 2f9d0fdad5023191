"""Simplify folds constants exactly as the reference interpreter evaluates them."""

from __future__ import annotations

import pytest
from front_programs import parse
from pypto.languages.invariants.walk import block

from pypto import ir, passes
from pypto.interp import run


def _program(expr: str, dtype: str) -> ir.Program:
    return parse(
        f"""
        @pl.program
        class P:
            @pl.function
            def main(self) -> pl.Scalar[pl.{dtype}]:
                r: pl.Scalar[pl.{dtype}] = {expr}
                return r
        """
    )


def _value(program: ir.Program) -> ir.Expr:
    """The value of ``r`` (its assignment's, or the returned constant once ``r`` was bound)."""
    first = block(program.get_function("main").body)[0]
    return first.value if isinstance(first, ir.AssignStmt) else first.value[0]


def c(value: object, dtype: str) -> str:
    return f"pl.const({value!r}, pl.{dtype})"


FOLDED = [
    # wraparound
    (f"{c(100, 'INT8')} + {c(100, 'INT8')}", "INT8", -56),
    (f"{c(-128, 'INT8')} // {c(-1, 'INT8')}", "INT8", -128),
    (f"{c(7, 'INT8')} % {c(-3, 'INT8')}", "INT8", -2),
    (f"{c(1, 'INT8')} << {c(7, 'INT8')}", "INT8", -128),
    (f"{c(3, 'INT8')} ** {c(5, 'INT8')}", "INT8", -13),
    (f"{c(2147483647, 'INT32')} + {c(1, 'INT32')}", "INT32", -2147483648),
    (f"{c(65536, 'INT32')} * {c(65536, 'INT32')}", "INT32", 0),
    (f"{c(-7, 'INT32')} // {c(2, 'INT32')}", "INT32", -4),
    (f"{c(3, 'UINT8')} - {c(5, 'UINT8')}", "UINT8", 254),
    (f"{c(200, 'UINT8')} * {c(2, 'UINT8')}", "UINT8", 144),
    (f"{c(255, 'UINT8')} ^ {c(15, 'UINT8')}", "UINT8", 240),
    (f"{c(9223372036854775807, 'INDEX')} + {c(1, 'INDEX')}", "INDEX", -9223372036854775808),
    (f"{c(-7, 'INDEX')} % {c(3, 'INDEX')}", "INDEX", 2),
    (f"{c(2, 'INDEX')} ** {c(70, 'INDEX')}", "INDEX", 0),
    (f"{c(2, 'INT32')} ** {c(-1, 'INT32')}", "INT32", 0),
    (f"{c(-1, 'INT32')} ** {c(-3, 'INT32')}", "INT32", -1),
    (f"pl.cast({c(300, 'INT32')}, pl.INT8)", "INT8", 44),
    (f"pl.cast({c(-2.75, 'FP32')}, pl.INT32)", "INT32", -2),
    # rounding
    (f"{c(2048.0, 'FP16')} + {c(1.0, 'FP16')}", "FP16", 2048.0),
    (f"{c(1.0, 'FP16')} / {c(3.0, 'FP16')}", "FP16", 0.333251953125),
    (f"{c(16777216.0, 'FP32')} + {c(1.0, 'FP32')}", "FP32", 16777216.0),
    (f"{c(1.0, 'FP32')} / {c(3.0, 'FP32')}", "FP32", 0.3333333432674408),
    (f"{c(256.0, 'BF16')} + {c(1.0, 'BF16')}", "BF16", 256.0),
    (f"{c(1.0, 'BF16')} / {c(3.0, 'BF16')}", "BF16", 0.333984375),
    (f"-{c(-128, 'INT8')}", "INT8", -128),
    # comparisons see the wrapped / rounded values
    (f"{c(100, 'INT8')} + {c(100, 'INT8')} < {c(0, 'INT8')}", "BOOL", True),
    (f"{c(3, 'UINT8')} - {c(5, 'UINT8')} > {c(250, 'UINT8')}", "BOOL", True),
    (f"{c(2048.0, 'FP16')} + {c(1.0, 'FP16')} == {c(2048.0, 'FP16')}", "BOOL", True),
    (f"{c(256.0, 'BF16')} + {c(1.0, 'BF16')} != {c(256.0, 'BF16')}", "BOOL", False),
    (f"{c(16777216.0, 'FP32')} + {c(1.0, 'FP32')} > {c(16777216.0, 'FP32')}", "BOOL", False),
]


@pytest.mark.parametrize(("expr", "dtype", "expected"), FOLDED)
def test_folding_agrees_with_the_interpreter(expr: str, dtype: str, expected: object) -> None:
    program = _program(expr, dtype)
    assert isinstance(_value(program), (ir.BinaryExpr, ir.UnaryExpr))
    folded = _value(passes.simplify()(program))
    assert isinstance(folded, (ir.ConstInt, ir.ConstFloat, ir.ConstBool))
    assert folded.dtype == getattr(ir.DataType, dtype)
    assert type(folded.value) is type(expected) and folded.value == expected
    assert run(program).value == expected


# The interpreter raises on these (or, for FP16 1/0 and FP8, computes a value no literal spells or
# a dtype Simplify does not fold): the expression is left for run time.
DECLINED = [
    (f"{c(1, 'INT32')} // {c(0, 'INT32')}", "INT32"),
    (f"{c(1, 'INT32')} % {c(0, 'INT32')}", "INT32"),
    (f"{c(1, 'INT32')} << {c(-1, 'INT32')}", "INT32"),
    (f"{c(0, 'INT32')} ** {c(-1, 'INT32')}", "INT32"),
    (f"{c(1.0, 'FP16')} / {c(0.0, 'FP16')}", "FP16"),
    (f"{c(1.0, 'FP8E4M3FN')} + {c(1.0, 'FP8E4M3FN')}", "FP8E4M3FN"),
]


@pytest.mark.parametrize(("expr", "dtype"), DECLINED)
def test_folding_declines_where_the_interpreter_raises_or_dtype_is_not_folded(expr: str, dtype: str) -> None:
    program = _program(expr, dtype)
    kept = _value(passes.simplify()(program))
    assert isinstance(kept, ir.BinaryExpr)
    assert kept.as_python() == _value(program).as_python()
