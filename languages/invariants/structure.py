"""Block-structure invariants (flat blocks, yields last) and NoNestedCalls."""

from __future__ import annotations

from pypto.analysis import function_index

from pypto.ir.expr import BinaryExpr, Call, Expr, MakeTuple, Submit, TupleGetItemExpr, UnaryExpr
from pypto.ir.function import Function, Program
from pypto.ir.stmt import AssignStmt, EvalStmt, ForStmt, IfStmt, ReturnStmt, SeqStmts, Stmt, YieldStmt

from .base import Invariant, Reporter


def _check_nested_blocks(func: Function, report: Reporter) -> None:
    for seq in function_index(func).of(SeqStmts):
        for item in seq.stmts:
            if isinstance(item, SeqStmts):
                report.error("NESTED_SEQ", "a block directly inside a block (flatten it)", item)


def _check_no_redundant_blocks(func: Function, program: Program, report: Reporter) -> None:
    _check_nested_blocks(func, report)


NoRedundantBlocks = Invariant.per_function(
    "NoRedundantBlocks",
    "no SeqStmts directly inside a SeqStmts",
    _check_no_redundant_blocks,
    auto_verified=True,
)


def _check_normalized(func: Function, program: Program, report: Reporter) -> None:
    _check_nested_blocks(func, report)
    for seq in function_index(func).of(SeqStmts):
        if len(seq.stmts) == 1:
            report.error("SINGLE_CHILD_SEQ", "a block of one statement (unwrap it)", seq, seq.stmts[0].span)
        for item in seq.stmts[:-1]:
            if isinstance(item, YieldStmt):
                report.error("MISPLACED_YIELD", "a yield that is not the last statement of its block", item)


NormalizedStmtStructure = Invariant.per_function(
    "NormalizedStmtStructure",
    "flat blocks: no single-child or directly nested SeqStmts; a yield is last in its block",
    _check_normalized,
)


def _scan(expr: Expr, nested: bool, report: Reporter, where: str) -> None:
    """Report calls below an argument, operand or control position (``nested``)."""
    if isinstance(expr, (Call, Submit)):
        if nested:
            report.error("NESTED_CALL", f"a call nested in {where} (FlattenCallExpr hoists it)", expr)
        for arg in expr.args:
            _scan(arg, True, report, "call arguments")
    elif isinstance(expr, BinaryExpr):
        _scan(expr.left, True, report, "an operand")
        _scan(expr.right, True, report, "an operand")
    elif isinstance(expr, UnaryExpr):
        _scan(expr.operand, True, report, "an operand")
    elif isinstance(expr, MakeTuple):
        for item in expr.elements:
            _scan(item, nested, report, where)
    elif isinstance(expr, TupleGetItemExpr):
        _scan(expr.tuple, nested, report, where)


def check_nested_calls(func: Function, program: Program, report: Reporter) -> None:
    """Report each call nested where NoNestedCalls forbids it."""
    index = function_index(func)
    if not index.has(Call, Submit):
        return
    for stmt in index.of(Stmt):
        if isinstance(stmt, AssignStmt):
            _scan(stmt.value, False, report, "")
        elif isinstance(stmt, EvalStmt):
            _scan(stmt.expr, False, report, "")
        elif isinstance(stmt, IfStmt):
            _scan(stmt.condition, True, report, "an if condition")
        elif isinstance(stmt, ForStmt):
            for bound in (stmt.start, stmt.stop, stmt.step):
                _scan(bound, True, report, "a for range")
        elif isinstance(stmt, (ReturnStmt, YieldStmt)):
            kind = "a return" if isinstance(stmt, ReturnStmt) else "a yield"
            for value in stmt.value:
                _scan(value, True, report, kind)


NoNestedCalls = Invariant.per_function(
    "NoNestedCalls",
    "no call inside call arguments, operands, if conditions, for ranges, returns or yields",
    check_nested_calls,
)
