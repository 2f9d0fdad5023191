"""Block-structure invariants (flat blocks, yields last) and NoNestedCalls, as grammar rules."""

from __future__ import annotations

from pypto.ir.expr import BinaryExpr, Call, Submit, UnaryExpr
from pypto.ir.stmt import ForStmt, IfStmt, ReturnStmt, SeqStmts, WhileStmt, YieldStmt

from .base import Invariant
from .grammar import TRANSPARENT, Field, LastOnly, Length, NoNode

_FLAT = Field(
    of=SeqStmts,
    field="stmts",
    refinement=NoNode(SeqStmts),
    code="NESTED_SEQ",
    message="a block directly inside a block (flatten it)",
)

NoRedundantBlocks = Invariant.declared(
    "NoRedundantBlocks", "no SeqStmts directly inside a SeqStmts", _FLAT, auto_verified=True
)

NormalizedStmtStructure = Invariant.declared(
    "NormalizedStmtStructure",
    "flat blocks: no single-child or directly nested SeqStmts; a yield is last in its block",
    _FLAT,
    Field(
        of=SeqStmts,
        field="stmts",
        refinement=LastOnly(YieldStmt),
        code="MISPLACED_YIELD",
        message="a yield that is not the last statement of its block",
    ),
    Field(
        of=SeqStmts,
        field="stmts",
        refinement=Length(not_equal=1),
        code="SINGLE_CHILD_SEQ",
        message="a block of one statement (unwrap it)",
    ),
)


def _no_call(of: type | tuple[type, ...], field: str | tuple[str, ...], where: str, anywhere: bool = False) -> Field:
    """Calls may not sit in ``field``; ``anywhere``: expression-level rules, not in while conditions."""
    return Field(
        of=of,
        field=field,
        refinement=NoNode(Call, Submit, through=TRANSPARENT),
        except_in=(WhileStmt, "condition") if anywhere else None,
        code="NESTED_CALL",
        message=f"a call nested in {where} (FlattenCallExpr hoists it)",
    )


NoNestedCalls = Invariant.declared(
    "NoNestedCalls",
    "no call inside call arguments, operands, if conditions, for ranges, returns or yields",
    _no_call((Call, Submit), "args", "call arguments", anywhere=True),
    _no_call(BinaryExpr, ("left", "right"), "an operand", anywhere=True),
    _no_call(UnaryExpr, "operand", "an operand", anywhere=True),
    _no_call(IfStmt, "condition", "an if condition"),
    _no_call(ForStmt, ("start", "stop", "step"), "a for range"),
    _no_call(ReturnStmt, "value", "a return"),
    _no_call(YieldStmt, "value", "a yield"),
)
