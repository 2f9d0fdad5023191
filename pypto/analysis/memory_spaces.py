"""Where tile operands may live: the call statements of a body and the memory spaces each
operand of a registered tile op allows (read by InferTileMemorySpace and CanonicalizeTileSlice)."""

from __future__ import annotations

from collections.abc import Iterator

from pypto.ir import op_registry
from pypto.ir.enums import MemorySpace
from pypto.ir.expr import Call, Expr, Var
from pypto.ir.stmt import AssignStmt, EvalStmt, Stmt
from pypto.ir.transforms import flatten_to_stmts

from .callgraph import op_name


def call_statements(stmts: list[Stmt]) -> Iterator[tuple[Var | None, Call]]:
    """``(assigned var or None, call)`` of every call statement, nested bodies included, in
    program order."""
    for stmt in stmts:
        if isinstance(stmt, AssignStmt) and isinstance(stmt.value, Call):
            yield stmt.var, stmt.value
        elif isinstance(stmt, EvalStmt) and isinstance(stmt.expr, Call):
            yield None, stmt.expr
        for body in (getattr(stmt, "then_body", None), getattr(stmt, "else_body", None), getattr(stmt, "body", None)):
            if isinstance(body, Stmt):
                yield from call_statements(flatten_to_stmts(body))


def operand_spaces(call: Call) -> list[tuple[Expr, list[MemorySpace]]]:
    """Each argument of a registered tile op with the spaces its parameter allows (empty: any);
    no entries for a call without a memory spec. The lists are shared: callers must not change them."""
    name = op_name(call)
    entry = op_registry.lookup(name) if name else None
    if entry is None or entry.memory is None:
        return []
    allowed = entry.input_spaces
    return [(a, allowed[p.name]) for p, a in zip(entry.bind(list(call.args)), call.args)]
