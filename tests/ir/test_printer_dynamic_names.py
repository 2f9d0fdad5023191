"""Program printing names dynamic dims program-wide although each function is printed on its own."""

from __future__ import annotations

import pypto.language as pl
from pypto import ir
from pypto.ir import FP32, INDEX

S = ir.Span.unknown()
IDX = ir.ScalarType(INDEX)


def kernel(name: str, dim: ir.Var, local_name: str) -> ir.Function:
    x = ir.Var("x", ir.TensorType([dim], FP32))
    local = ir.Var(local_name, IDX)
    body = ir.SeqStmts([ir.AssignStmt(local, ir.ConstInt(3, INDEX)), ir.ReturnStmt([x])], S)
    return ir.Function(name, [x], [x.type], body, S)


def test_a_later_function_takes_the_program_wide_name_of_its_dynamic_dim() -> None:
    first, second = ir.Var("N", IDX), ir.Var("N", IDX)
    program = ir.Program([kernel("f", first, "N_1"), kernel("g", second, "N")], "dyn", S)
    text = program.as_python()
    assert text.splitlines() == [
        "# pypto.program: dyn",
        "import pypto.language as pl",
        "",
        'N = pl.dynamic("N")',
        'N_1 = pl.dynamic("N_1")',
        "",
        "@pl.program",
        "class dyn:",
        "    @pl.function",
        "    def f(self, x: pl.Tensor[[N], pl.FP32]) -> pl.Tensor[[N], pl.FP32]:",
        "        N_1: pl.Scalar[pl.INDEX] = 3",
        "        return x",
        "    @pl.function",
        "    def g(self, x: pl.Tensor[[N_1], pl.FP32]) -> pl.Tensor[[N_1], pl.FP32]:",
        "        N: pl.Scalar[pl.INDEX] = 3",
        "        return x",
    ]
    ir.assert_structural_equal(pl.parse(text), program)
