"""Small helpers shared by the passes: canonical blocks, copy-on-write rebuilds, cheap prechecks."""

from __future__ import annotations

import operator
from collections.abc import Callable, Collection, Iterable

from pypto.analysis import expr_summary, function_index
from pypto.ir.attrs import AttrsBase
from pypto.ir.expr import Call, ConstBool, ConstFloat, ConstInt, Expr, MakeTuple, Var
from pypto.ir.function import Function
from pypto.ir.node import IRNode
from pypto.ir.parts import replace_parts
from pypto.ir.type_base import TupleType, Type
from pypto.ir.span import Span
from pypto.ir.stmt import AssignStmt, EvalStmt, ReturnStmt, SeqStmts, Stmt, YieldStmt
from pypto.ir.transforms import flatten_to_stmts


def block_of(stmts: Iterable[Stmt], span: Span) -> Stmt:
    """The canonical body holding ``stmts``, as the parser builds it: flat, one statement bare.

    Passes build bodies with it so that every program they produce prints and parses back to a
    structurally equal program (a one-statement SeqStmts would print exactly like the statement).
    """
    flat: list[Stmt] = []
    for item in stmts:
        if isinstance(item, SeqStmts):
            flat += flatten_to_stmts(item)
        else:
            flat.append(item)  # most items: no call
    return flat[0] if len(flat) == 1 else SeqStmts(flat, span)


def same_list(a: list, b: list) -> bool:
    """Element-wise identity of two lists."""
    return len(a) == len(b) and all(map(operator.is_, a, b))


def keep_list(new: list, old: list) -> list:
    """``old`` when ``new`` holds the same objects (so an unchanged node stays the same), else ``new``."""
    return old if same_list(new, old) else new


def rebuild(node: IRNode, **changes: object) -> IRNode:
    """``node`` with ``changes`` applied, or ``node`` itself when every change is the same object
    (a pass's changes are parts it built or kept: :func:`~pypto.ir.parts.replace_parts`)."""
    for k, v in changes.items():
        if getattr(node, k) is not v:
            return replace_parts(node, **changes)
    return node


# Prechecks for ``RewritePass.applies``: a pass that would leave a function unchanged skips it
# without a rewrite walk. They read the function's cached node index (the boundary checks built it).


def calls_any(func: Function, names: Collection[str]) -> bool:
    """True when ``func`` calls an op named in ``names`` (anywhere in its body)."""
    return not function_index(func).op_names.isdisjoint(names)


def mentions_type(func: Function, pred: Callable[[Type], bool]) -> bool:
    """True when ``pred`` holds for the type of a node of ``func`` or of its returns (tuples entered)."""
    return _holds(func.return_types, pred) or _holds(function_index(func).types, pred)


def _holds(types: Iterable[Type], pred: Callable[[Type], bool]) -> bool:
    # A module function, not a closure calling itself: that closure was a reference cycle per call,
    # garbage only a full collection frees (three quarters of a compile's cyclic garbage).
    for t in types:
        # The class itself (TupleType has no subclass): most types are not tuples, and isinstance
        # against a pydantic class the object is not of is several times slower.
        if type(t) is TupleType:
            if _holds(t.types, pred):
                return True
        elif pred(t):
            return True
    return False


# Straight-line functions (most kernels): the prechecks decide them from their statements, without
# building the node index (a walk of every expression node).
_STRAIGHT = frozenset({AssignStmt, EvalStmt, ReturnStmt, YieldStmt})


def straight_line(func: Function) -> list[Stmt] | None:
    """The statements of ``func`` when its body holds only assignments, evaluations, returns and
    yields (no nested body, no attrs), else None."""
    stmts = flatten_to_stmts(func.body)
    return stmts if _STRAIGHT.issuperset(map(type, stmts)) else None


# Expressions with no subexpressions (nothing below them to find).
LEAVES = (Var, ConstInt, ConstFloat, ConstBool)


def _may_hold_nodes(value: object) -> bool:
    return isinstance(value, (IRNode, list, tuple, dict, AttrsBase))  # what the node walk enters


def contains(e: Expr, classes: tuple[type, ...]) -> bool:
    """True when a node of ``e`` is an instance of ``classes`` (no variable or constant classes),
    among the nodes :func:`expr_summary` lists (types not entered); calls of leaves and tuples are
    looked through without a walk."""
    if isinstance(e, classes):
        return True
    kind = type(e)
    if kind is MakeTuple:
        items = e.elements
    # Empty attrs read from the fields set: attrs.__len__ is a Python call, and most calls pass here.
    elif (
        kind is Call
        and not e.attrs.__pydantic_fields_set__
        and not (e.kwargs and any(map(_may_hold_nodes, e.kwargs.values())))
    ):
        if isinstance(e.op, classes):
            return True
        items = e.args
    elif isinstance(e, LEAVES):
        return False
    else:
        return any(issubclass(c, classes) for c in expr_summary(e)[1])
    return any_contains(items, classes)


def any_contains(items: Iterable[Expr], classes: tuple[type, ...]) -> bool:
    """True when :func:`contains` holds for one of ``items`` (variables and constants skipped inline)."""
    for item in items:
        if not isinstance(item, LEAVES) and contains(item, classes):
            return True
    return False
