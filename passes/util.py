"""Small helpers shared by the passes: canonical blocks, copy-on-write rebuilds, cheap prechecks."""

from __future__ import annotations

import operator
from collections.abc import Callable, Collection, Iterable

from pypto.analysis import expr_summary, function_index, op_name
from pypto.ir.expr import Call
from pypto.ir.function import Function
from pypto.ir.node import IRNode, replace
from pypto.ir.type_base import TupleType, Type
from pypto.ir.span import Span
from pypto.ir.stmt import AssignStmt, EvalStmt, ReturnStmt, SeqStmts, Stmt, YieldStmt
from pypto.ir.transforms import flatten_to_stmts


def block_of(stmts: Iterable[Stmt], span: Span) -> Stmt:
    """The canonical body holding ``stmts``, as the parser builds it: flat, one statement bare.

    Passes build bodies with it so that every program they produce prints and parses back to a
    structurally equal program (a one-statement SeqStmts would print exactly like the statement).
    """
    flat = [s for item in stmts for s in flatten_to_stmts(item)]
    return flat[0] if len(flat) == 1 else SeqStmts(flat, span)


def same_list(a: list, b: list) -> bool:
    """Element-wise identity of two lists."""
    return len(a) == len(b) and all(map(operator.is_, a, b))


def keep_list(new: list, old: list) -> list:
    """``old`` when ``new`` holds the same objects (so an unchanged node stays the same), else ``new``."""
    return old if same_list(new, old) else new


def rebuild(node: IRNode, **changes: object) -> IRNode:
    """``node`` with ``changes`` applied, or ``node`` itself when every change is the same object."""
    for k, v in changes.items():
        if getattr(node, k) is not v:
            return replace(node, **changes)
    return node


# Prechecks for ``RewritePass.applies``: a pass that would leave a function unchanged skips it
# without a rewrite walk. They read the function's cached node index (the boundary checks built it).


def calls_any(func: Function, names: Collection[str]) -> bool:
    """True when ``func`` calls an op named in ``names`` (anywhere in its body)."""
    return any(op_name(call) in names for call in function_index(func).of(Call))


def mentions_type(func: Function, pred: Callable[[Type], bool]) -> bool:
    """True when ``pred`` holds for the type of a node of ``func`` or of its returns (tuples entered)."""

    def holds(t: object) -> bool:
        if isinstance(t, TupleType):
            return any(holds(e) for e in t.types)
        return isinstance(t, Type) and pred(t)

    if any(holds(t) for t in func.return_types):
        return True
    return any(holds(getattr(node, "type", None)) for node in function_index(func).nodes)


# Straight-line functions (most kernels): the prechecks decide them from their statements, without
# building the node index (a walk of every expression node).
_STRAIGHT = frozenset({AssignStmt, EvalStmt, ReturnStmt, YieldStmt})


def straight_line(func: Function) -> list[Stmt] | None:
    """The statements of ``func`` when its body holds only assignments, evaluations, returns and
    yields (no nested body, no attrs), else None."""
    stmts = flatten_to_stmts(func.body)
    return stmts if _STRAIGHT.issuperset(map(type, stmts)) else None


def expr_classes(stmts: list[Stmt]) -> set[type]:
    """The classes of every node in the expressions of ``stmts`` (from :func:`straight_line`)."""
    classes: set[type] = set()
    for s in stmts:
        kind = type(s)
        for e in (s.value,) if kind is AssignStmt else (s.expr,) if kind is EvalStmt else s.value:
            classes |= expr_summary(e)[1]
    return classes
