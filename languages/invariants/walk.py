"""The analyses the checkers use, re-exported from :mod:`pypto.analysis` (their one home), and
:func:`checked_defs`, the defined variables several checkers list, computed once per function."""

from __future__ import annotations

from pypto.analysis import (
    FunctionIndex,
    base_name,
    block,
    callee,
    defined_vars,
    expr_calls,
    expr_vars,
    function_index,
    op_name,
    stmt_defs,
    stmt_exprs,
    stmt_reads,
    sub_blocks,
    type_vars,
    walk,
    walk_values,
)
from pypto.ir.expr import Var
from pypto.ir.function import Function

from .base import cached


def checked_defs(func: Function) -> list[Var]:
    """:func:`defined_vars` of ``func``, shared by the checkers while ``func`` is unchanged (callers
    must not change the list): TensorViewCanonical, TileTypeCoherence and AllocatedMemoryAddr read
    it at the same boundaries."""
    return cached("<defined vars>", func, None, lambda: defined_vars(func))


__all__ = [
    "FunctionIndex",
    "base_name",
    "block",
    "callee",
    "checked_defs",
    "defined_vars",
    "expr_calls",
    "expr_vars",
    "function_index",
    "op_name",
    "stmt_defs",
    "stmt_exprs",
    "stmt_reads",
    "sub_blocks",
    "type_vars",
    "walk",
    "walk_values",
]
