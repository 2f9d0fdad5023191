"""Block-structure invariants (flat blocks, yields last) and NoNestedCalls, as grammar rules."""

from __future__ import annotations

import itertools
import operator

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
    # (positions: the index's own list for one class, where a list of the blocks would be made)
    return len(function_index(func).positions(SeqStmts)) == isinstance(func.body, SeqStmts)


def _no_nested_blocks(func: Function) -> bool:
    """True when no block of ``func`` holds a block: none of the classes of the blocks' statements is
    one (a function with loops or branches has several blocks; their statements' classes are read
    in C, not tested one by one against the rule)."""
    if _one_block(func):
        return True
    kinds: set[type] = set()
    for found in function_index(func).of(SeqStmts):
        kinds.update(map(type, found.stmts))
    return not any(issubclass(c, SeqStmts) for c in kinds)


def _normalized(func: Function) -> bool:
    """True when every block of ``func`` holds other than one statement, no block and no yield
    before its last statement: then no rule of NormalizedStmtStructure can fail."""
    body = func.body
    if _one_block(func):  # most functions: one block, mostly without a yield (no class read per statement)
        single = isinstance(body, SeqStmts) and len(body.stmts) == 1
        if not single and not function_index(func).has(YieldStmt):
            return True
    kinds: set[type] = set()
    leading: set[type] = set()  # the classes of the statements before each block's last
    for found in function_index(func).of(SeqStmts):
        stmts = found.stmts
        if len(stmts) == 1:
            return False
        kinds.update(map(type, stmts))
        leading.update(map(type, stmts[:-1]))
    return not any(issubclass(c, SeqStmts) for c in kinds) and not any(issubclass(c, YieldStmt) for c in leading)


NoRedundantBlocks = Invariant.declared(
    "NoRedundantBlocks",
    "no SeqStmts directly inside a SeqStmts",
    _FLAT,
    auto_verified=True,
    holds_if=_no_nested_blocks,
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
    holds_if=_normalized,
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
    no call sits inside another node's field (the index counts each occurrence of a node).

    Read off positions, no node looked at: in the pre-order an assignment is followed by its
    variable and then its value, an evaluation by its expression."""
    index = function_index(func)
    calls = index.positions(Call, Submit) if index.has(Submit) else index.positions(Call)
    if not calls:
        return True
    tops = set(map(operator.add, index.positions(AssignStmt), itertools.repeat(2)))
    tops.update(map(operator.add, index.positions(EvalStmt), itertools.repeat(1)))
    return tops.issuperset(calls)


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
