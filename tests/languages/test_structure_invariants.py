"""NoRedundantBlocks, NormalizedStmtStructure and NoNestedCalls."""

from __future__ import annotations

from inv_helpers import INDEX, found, prog, single
from pypto.languages.invariants import NoNestedCalls, NoRedundantBlocks, NormalizedStmtStructure

from pypto import ir, passes

_SPAN = ir.Span.unknown()


def _blocks() -> ir.Program:
    n, a = ir.Var("n", INDEX), ir.Var("a", INDEX)
    inner = ir.SeqStmts([ir.AssignStmt(a, n + 1)], _SPAN)
    body = ir.SeqStmts([inner, ir.YieldStmt([a]), ir.ReturnStmt([a])], _SPAN)
    return single("main", [n], body, [INDEX])


def test_nested_block_breaks_both() -> None:
    program = _blocks()
    assert found(NoRedundantBlocks, program) == [
        (
            "NESTED_SEQ",
            "a block directly inside a block (flatten it)",
            "block of 1 statement: a: pl.Scalar[pl.INDEX] = n + 1",
        ),
    ]
    assert [c for c, _, _ in found(NormalizedStmtStructure, program)] == [
        "NESTED_SEQ",
        "MISPLACED_YIELD",
        "SINGLE_CHILD_SEQ",
    ]


def test_flat_blocks_are_accepted() -> None:
    program = prog(
        """
        @pl.program
        class A:
            @pl.function
            def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
                a = n + 1
                if a > 2:
                    a = a * 2
                return a
        """
    )
    assert found(NoRedundantBlocks, program) == [] and found(NormalizedStmtStructure, program) == []


def _loop_of(*stmts: ir.Stmt) -> ir.Program:
    """``main(n)``: a loop whose body is a block of ``stmts``, between two assignments."""
    n, a, b = ir.Var("n", INDEX), ir.Var("a", INDEX), ir.Var("b", INDEX)
    loop = ir.ForStmt(ir.Var("i", INDEX), 0, n, 1, [], ir.SeqStmts(list(stmts), _SPAN), [], _SPAN)
    body = ir.SeqStmts([ir.AssignStmt(a, n + 1), loop, ir.AssignStmt(b, n + 2), ir.ReturnStmt([b])], _SPAN)
    return single("main", [n], body, [INDEX])


def test_each_block_rule_breaks_inside_a_loop_body() -> None:
    """A function of several blocks, each rule broken in the loop's body alone (the shortcuts read the
    classes of every block's statements)."""
    n, c, d = ir.Var("n", INDEX), ir.Var("c", INDEX), ir.Var("d", INDEX)
    two = [ir.AssignStmt(c, n + 3), ir.AssignStmt(d, n + 4)]
    fine = _loop_of(*two)
    assert found(NoRedundantBlocks, fine) == [] and found(NormalizedStmtStructure, fine) == []
    nested = _loop_of(ir.SeqStmts(two, _SPAN), ir.EvalStmt(n + 5, _SPAN))
    assert [c for c, _, _ in found(NoRedundantBlocks, nested)] == ["NESTED_SEQ"]
    assert [c for c, _, _ in found(NormalizedStmtStructure, nested)] == ["NESTED_SEQ"]
    early_yield = _loop_of(ir.YieldStmt([]), *two)
    assert found(NoRedundantBlocks, early_yield) == []
    assert [c for c, _, _ in found(NormalizedStmtStructure, early_yield)] == ["MISPLACED_YIELD"]
    assert found(NormalizedStmtStructure, _loop_of(*two, ir.YieldStmt([]))) == []
    single_child = _loop_of(two[0])
    assert [c for c, _, _ in found(NormalizedStmtStructure, single_child)] == ["SINGLE_CHILD_SEQ"]


NESTED = """
    @pl.program
    class A:
        @pl.function
        def main(self, x: pl.Tensor[[8], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[8], pl.FP32]:
            y: pl.Tensor[[8], pl.FP32] = pl.add(pl.exp(x), x)
            for i in pl.range(pl.tensor.dim(x, 0)):
                if pl.tensor.dim(x, 0) > n:
                    y = pl.add(y, x)
            return pl.mul(y, y)
"""


def test_nested_calls_are_reported_where_they_sit() -> None:
    assert found(NoNestedCalls, prog(NESTED)) == [
        ("NESTED_CALL", "a call nested in call arguments (FlattenCallExpr hoists it)", "pl.tensor.exp(x)"),
        ("NESTED_CALL", "a call nested in a for range (FlattenCallExpr hoists it)", "pl.tensor.dim(x, 0)"),
        ("NESTED_CALL", "a call nested in an operand (FlattenCallExpr hoists it)", "pl.tensor.dim(x, 0)"),
        ("NESTED_CALL", "a call nested in a return (FlattenCallExpr hoists it)", "pl.tensor.mul(y, y)"),
    ]


def test_a_call_nested_in_an_evaluation_of_a_flat_block_is_reported() -> None:
    """Every other call is a whole statement value: the one inside an evaluated call still counts."""
    program = prog(
        """
        @pl.program
        class A:
            @pl.function
            def main(self, x: pl.Tensor[[8], pl.FP32], out: pl.Out[pl.Tensor[[8], pl.FP32]]) -> pl.Tensor[[8], pl.FP32]:
                y: pl.Tensor[[8], pl.FP32] = pl.add(x, x)
                pl.assemble(out, pl.exp(y), [0])
                return out
        """
    )
    assert found(NoNestedCalls, program) == [
        ("NESTED_CALL", "a call nested in call arguments (FlattenCallExpr hoists it)", "pl.tensor.exp(y)"),
    ]


def test_a_call_inside_a_statement_value_that_is_no_call_is_reported() -> None:
    """The shortcut reads the positions of the calls: a call a few nodes after an assignment or an
    evaluation, inside its value, is not at the top."""
    program = prog(
        """
        @pl.program
        class A:
            @pl.function
            def main(self, x: pl.Tensor[[8], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
                a: pl.Scalar[pl.INDEX] = n + pl.tensor.dim(x, 0)
                b: pl.Scalar[pl.INDEX] = pl.tensor.dim(x, 0)
                return a + b
        """
    )
    assert found(NoNestedCalls, program) == [
        ("NESTED_CALL", "a call nested in an operand (FlattenCallExpr hoists it)", "pl.tensor.dim(x, 0)"),
    ]


def test_flattened_program_is_accepted() -> None:
    result = passes.PassManager.get_strategy(plugins=False).run(prog(NESTED))
    assert found(NoNestedCalls, result) == []
