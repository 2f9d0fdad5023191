"""The analyses the checkers use, re-exported from :mod:`pypto.analysis` (their one home)."""

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

__all__ = [
    "FunctionIndex",
    "base_name",
    "block",
    "callee",
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
