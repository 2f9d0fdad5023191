"""IRBuilder builds the same IR as the DSL parser."""

from __future__ import annotations

import pytest

import pypto.language as pl
from pypto import ir
from pypto.ir.builder import IRBuilder

SPAN = ir.Span.unknown()
INT64 = ir.ScalarType(ir.INT64)
INDEX = ir.ScalarType(ir.INDEX)


def test_function_with_loop_and_if_matches_the_parsed_dsl() -> None:
    ib = IRBuilder()
    with ib.function("loop_sum") as f:
        n = f.param("n", INT64)
        f.return_type(INT64)
        init = ib.let("sum_init", ir.ConstInt(0, ir.INT64, SPAN))
        i = ib.var("i", INDEX)
        with ib.for_loop(i, 0, n, 1) as loop:
            acc = loop.iter_arg("sum", init)
            result = loop.return_var("sum")
            ib.yield_([ir.add(acc, i)])
        with ib.if_stmt(ir.gt(result, 3)) as branch:
            y = branch.return_var("y", INT64)
            ib.yield_([ir.add(result, 1)])
            branch.else_()
            ib.yield_([result])
        ib.return_([y])
    built = f.get_result()
    parsed = pl.parse(
        "@pl.function\n"
        "def loop_sum(n: pl.INT64) -> pl.INT64:\n"
        "    sum_init: pl.INT64 = 0\n"
        "    for i, (sum,) in pl.range(n, init_values=(sum_init,)):\n"
        "        sum = pl.yield_(sum + i)\n"
        "    if sum > 3:\n"
        "        y = pl.yield_(sum + 1)\n"
        "    else:\n"
        "        y = pl.yield_(sum)\n"
        "    return y\n"
    )
    ir.assert_structural_equal(built, parsed)
    assert loop.get_result() is built.body.stmts[1]


def test_program_while_scope_and_statements() -> None:
    ib = IRBuilder()
    with ib.program("prog") as prog, ib.function("kernel", type=ir.FunctionType.Orchestration) as f:
        n = f.param("n", INDEX)
        with ib.while_loop() as loop:
            k = loop.iter_arg("k", n)
            loop.set_condition(ir.lt(k, 10))
            loop.return_var("k_out")
            with ib.scope(ir.RuntimeScopeStmt, manual=True):
                ib.eval(ir.add(k, 1))
            ib.yield_([ir.add(k, 1)])
        i = ib.var("i", INDEX)
        with ib.for_loop(i, 0, n, 1):
            ib.break_()
    program = prog.get_result()
    func = program.get_function("kernel")
    assert func.func_type == ir.FunctionType.Orchestration
    loop_stmt, for_stmt = func.body.stmts
    assert isinstance(loop_stmt, ir.WhileStmt) and isinstance(loop_stmt.body.stmts[0], ir.RuntimeScopeStmt)
    assert isinstance(for_stmt.body, ir.BreakStmt)
    again = pl.parse_program(program.as_python())
    assert sorted(gv.name for gv in again.functions) == ["kernel"]


def test_misuse() -> None:
    ib = IRBuilder()
    with pytest.raises(ir.IRValueError, match="no open block"):
        ib.return_()
    with ib.function("f") as f, pytest.raises(ir.IRValueError, match="only after the with block is closed"):
        f.get_result()
    with pytest.raises(ir.IRValueError, match="no condition given"), ib.function("g"), ib.while_loop():
        pass
