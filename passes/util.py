"""Small rebuilding helpers shared by the passes: canonical blocks and copy-on-write rebuilds."""

from __future__ import annotations

import operator
from collections.abc import Iterable

from pypto.ir.node import IRNode, replace
from pypto.ir.span import Span
from pypto.ir.stmt import SeqStmts, Stmt
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
