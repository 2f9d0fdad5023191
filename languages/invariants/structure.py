"""Block-structure invariants (flat blocks, yields last) and NoNestedCalls, as grammar rules."""

from __future__ import annotations

from pypto.analysis import function_index

from pypto.ir.expr import BinaryExpr, Call, Submit, UnaryExpr
from pypto.ir.function import Function
from pypto.ir.stmt import (
    AssignStmt,
    EvalStmt,
    ForStmt,
    IfStmt,
    ReturnStmt,
    SeqStmts,
    SpmdScopeStmt,
    WhileStmt,
    YieldStmt,
)

from .base import Invariant
from .grammar import TRANSPARENT, Field, LastOnly, Length, NoNode

_FLAT = Field(
    of=SeqStmts,
    field="stmts",
    refinement=NoNode(SeqStmts),
    code="NESTED_SEQ",
    message="a block directly inside a block (flatten it)",
)

def _one_block(func: Function) -> bool:
    """True when the only block of ``func`` is its body (so no block is inside a block)."""
    return len(function_index(func).of(SeqStmts)) == isinstance(func.body, SeqStmts)


def _normalized_flat(func: Function) -> bool:
    """True when ``func`` is one block of several statements without a yield."""
    body = func.body
    return _one_block(func) and not (isinstance(body, SeqStmts) and len(body.stmts) == 1) and not (
        function_index(func).has(YieldStmt)
    )


NoRedundantBlocks = Invariant.declared(
    "NoRedundantBlocks", "no SeqStmts directly inside a SeqStmts", _FLAT, auto_verified=True, holds_if=_one_block
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
    holds_if=_normalized_flat,
)


def _no_call(of: type | tuple[type, ...], field: str | tuple[str, ...], where: str, anywhere: bool = False) -> Field:
    """Calls may not sit in ``field``; ``anywhere``: expression-level rules, not in while conditions
    nor in a dispatch predicate (never evaluated in orchestration: the scheduler reads its operand)."""
    return Field(
        of=of,
        field=field,
        refinement=NoNode(Call, Submit, through=TRANSPARENT),
        except_in=((WhileStmt, "condition"), (Submit, "predicate"), (SpmdScopeStmt, "attrs")) if anywhere else (),
        code="NESTED_CALL",
        message=f"a call nested in {where} (FlattenCallExpr hoists it)",
    )


def _calls_at_top(func: Function) -> bool:
    """True when every call in ``func`` is the whole value of an assignment or an evaluation: then
    no call sits inside another node's field (the index counts each occurrence of a node)."""
    index = function_index(func)
    calls = len(index.of(Call, Submit))
    if not calls:
        return True
    top = 0
    for stmt in index.of(AssignStmt):
        if isinstance(stmt.value, (Call, Submit)):
            top += 1
    for stmt in index.of(EvalStmt):
        if isinstance(stmt.expr, (Call, Submit)):
            top += 1
    return top == calls


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
    holds_if=_calls_at_top,
)
