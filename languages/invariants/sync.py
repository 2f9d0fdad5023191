"""Invariant of the synced dialect: every kernel has had its pipe synchronisation placed."""

from __future__ import annotations

from pypto.ir.enums import FunctionType
from pypto.ir.expr import Call, GlobalVar
from pypto.ir.function import Function, Program
from pypto.ir.stmt import EvalStmt, ReturnStmt
from pypto.ir.transforms import flatten_to_stmts

from .base import Invariant, Reporter

_KERNELS = (FunctionType.AIV, FunctionType.AIC)


def _ends_with_placed_barrier(func: Function) -> bool:
    stmts = flatten_to_stmts(func.body)
    if stmts and isinstance(stmts[-1], ReturnStmt):
        stmts.pop()
    last = stmts[-1] if stmts else None
    if not isinstance(last, EvalStmt) or not isinstance(last.expr, Call) or isinstance(last.expr.op, GlobalVar):
        return False
    return last.expr.op.name == "system.bar_all" and last.expr.attrs.get("auto_sync") is True


def _check_sync(func: Function, program: Program, report: Reporter) -> None:
    if func.func_type in _KERNELS and not _ends_with_placed_barrier(func):
        report.error(
            "SYNC_NOT_PLACED",
            f"{func.func_type.name} kernel '{func.name}' has no pipe synchronisation placed "
            "(run InsertPipeSync: it ends every kernel with system.bar_all(attrs={'auto_sync': True}))",
            func,
        )


# The marker, not a re-check of every cross-pipe hazard: InsertPipeSync is the one analysis of
# hazards, and repeating it at every boundary would double its cost for no new fact.
PipeSyncPlaced = Invariant.per_function(
    "PipeSyncPlaced",
    "every AIV/AIC kernel has had its pipe synchronisation placed (it ends with InsertPipeSync's system.bar_all)",
    _check_sync,
    auto_verified=True,
)
