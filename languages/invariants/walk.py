"""The analyses the checkers use, re-exported from :mod:`pypto.analysis` (their one home),
:func:`checked_defs`, the defined variables several checkers list, computed once per function, and
:func:`holds_any`, a node-class test of a function's index for the checkers' shortcuts."""

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


def holds_any(index: FunctionIndex, classes: tuple[type, ...]) -> bool:
    """``index.has(*classes)``, read from the index's exact classes when none of ``classes`` has a
    subclass (asked every time: a subclass made later is seen). A shortcut runs on every new index,
    where a first has() of its classes costs more than the rule check of a function holding none."""
    if any(map(type.__subclasses__, classes)):
        return index.has(*classes)
    return not index.classes.isdisjoint(classes)


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
    "holds_any",
    "op_name",
    "stmt_defs",
    "stmt_exprs",
    "stmt_reads",
    "sub_blocks",
    "type_vars",
    "walk",
    "walk_values",
]
