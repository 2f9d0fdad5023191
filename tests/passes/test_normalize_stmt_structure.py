"""NormalizeStmtStructure: flat blocks, single statements unwrapped."""

from __future__ import annotations

import pytest
from front_programs import NORMALIZE_STMT_STRUCTURE, parse
from pass_helpers import before_after, check_preserves, outline, upto, wrap_bodies
from pypto.languages.invariants import NormalizedStmtStructure

from pypto import ir, passes

INDEX = ir.ScalarType(ir.INDEX)


@pytest.mark.parametrize("name", sorted(NORMALIZE_STMT_STRUCTURE))
def test_snapshot(name: str, snapshot) -> None:
    before = wrap_bodies(upto("NormalizeStmtStructure", parse(NORMALIZE_STMT_STRUCTURE[name])))
    assert NormalizedStmtStructure.check(before) != []
    after = check_preserves(passes.normalize_stmt_structure(), before)
    assert NormalizedStmtStructure.check(after) == []
    blocks = f"# ---- blocks before ----\n{outline(before)}\n\n# ---- blocks after ----\n{outline(after)}\n\n"
    assert blocks + before_after("NormalizeStmtStructure", before, after) == snapshot


def _program(body: ir.Stmt, params: list[ir.Var]) -> ir.Program:
    return ir.Program([ir.Function("main", params, [INDEX], body, ir.Span.unknown())], "P", ir.Span.unknown())


def test_nested_blocks_are_spliced() -> None:
    n = ir.Var("n", INDEX)
    a, b, c = (ir.Var(name, INDEX) for name in "abc")
    sa, sb, sc = ir.AssignStmt(a, n), ir.AssignStmt(b, a), ir.AssignStmt(c, b)
    ret = ir.ReturnStmt([c])
    body = ir.SeqStmts([ir.SeqStmts([sa]), ir.SeqStmts([sb, ir.SeqStmts([sc])]), ret])
    after = passes.normalize_stmt_structure()(_program(body, [n])).get_function("main").body
    assert isinstance(after, ir.SeqStmts)
    assert [s is t for s, t in zip(after.stmts, [sa, sb, sc, ret])] == [True] * 4


def test_single_statement_body_is_unwrapped() -> None:
    n = ir.Var("n", INDEX)
    ret = ir.ReturnStmt([n])
    after = passes.normalize_stmt_structure()(_program(ir.SeqStmts([ir.SeqStmts([ret])]), [n]))
    assert after.get_function("main").body is ret


def test_normalized_program_is_returned_as_is() -> None:
    n = ir.Var("n", INDEX)
    program = _program(ir.SeqStmts([ir.AssignStmt(ir.Var("a", INDEX), n), ir.ReturnStmt([n])]), [n])
    assert passes.normalize_stmt_structure()(program) is program
