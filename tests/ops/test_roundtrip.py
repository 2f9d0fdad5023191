"""Printing a call to any catalog op and parsing it back gives the same IR (ops.md §9, ir.md §8.5)."""

from __future__ import annotations

import pytest
from op_cases import BUILDS, Build

from pypto import ir
from pypto.language.parser.text_parser import parse

SPAN = ir.Span.unknown()


def _free_vars(e: ir.Expr, out: list[ir.Var]) -> None:
    if isinstance(e, ir.Var):
        if not any(e is v for v in out):
            out.append(e)
    elif isinstance(e, ir.MakeTuple):
        for x in e.elements:
            _free_vars(x, out)
    elif isinstance(e, ir.BinaryExpr):
        _free_vars(e.left, out)
        _free_vars(e.right, out)
    elif isinstance(e, ir.UnaryExpr):
        _free_vars(e.operand, out)


def _function(call: ir.Call) -> ir.Function:
    """``def f(<free vars>): x = call; return x`` (an expression statement for statement ops)."""
    params: list[ir.Var] = []
    for a in call.args:
        _free_vars(a, params)
    for dep in call.attrs.get("manual_dep_edges", []):
        _free_vars(dep, params)
    if isinstance(call.type, ir.UnknownType):
        return ir.Function("f", params, [], ir.EvalStmt(call, SPAN), SPAN)
    x = ir.Var("x", call.type)
    body = ir.SeqStmts([ir.AssignStmt(x, call, SPAN), ir.ReturnStmt([x], SPAN)], SPAN)
    return ir.Function("f", params, [call.type], body, SPAN)


@pytest.mark.parametrize("case", BUILDS, ids=lambda c: c.op)
def test_print_parse_round_trip(case: Build) -> None:
    func = _function(case.build())
    text = ir.python_print(func)
    ir.assert_structural_equal(parse(text), func)
