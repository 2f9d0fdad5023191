"""Small rewriting helpers shared by the passes: blocks, substitution and binder copies."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from pypto.ir.expr import Expr, IterArg, Var
from pypto.ir.node import IRNode, replace
from pypto.ir.span import Span
from pypto.ir.stmt import ForStmt, SeqStmts, Stmt, WhileStmt

from .base import Rewriter


def flat(stmts: Iterable[Stmt]) -> list[Stmt]:
    """``stmts`` with nested blocks spliced in (no SeqStmts directly inside the result)."""
    out: list[Stmt] = []
    for s in stmts:
        if isinstance(s, SeqStmts):
            out.extend(flat(s.stmts))
        else:
            out.append(s)
    return out


def block_of(stmts: Iterable[Stmt], span: Span) -> Stmt:
    """The canonical body holding ``stmts``, as the parser builds it: flat, one statement bare.

    Passes build bodies with it so that every program they produce prints and parses back to a
    structurally equal program (a one-statement SeqStmts would print exactly like the statement).
    """
    stmts = flat(stmts)
    return stmts[0] if len(stmts) == 1 else SeqStmts(stmts, span)


def reblock(node: SeqStmts, stmts: list[Stmt]) -> Stmt:
    """``node`` if ``stmts`` are its statements, else the canonical block of ``stmts``."""
    return node if same_list(stmts, node.stmts) else block_of(stmts, node.span)


def same_list(a: list, b: list) -> bool:
    """Element-wise identity of two lists."""
    return len(a) == len(b) and all(x is y for x, y in zip(a, b))


def keep_list(new: list, old: list) -> list:
    """``old`` when ``new`` holds the same objects (so an unchanged node stays the same), else ``new``."""
    return old if same_list(new, old) else new


class Substitute:
    """Replace variables by expressions, optionally giving loop binders fresh copies.

    ``mapping`` maps a variable (by identity) to its replacement at every use and definition.
    ``fresh`` (optional) names copies of loop variables and iter_args met in the tree, so a copied
    loop gets its own binders; an iter_arg whose init changes is always re-created.
    """

    rewrite = Rewriter("Substitute")

    def __init__(self, mapping: dict[Var, Expr], fresh: Callable[[Var], str] | None = None) -> None:
        self.mapping = dict(mapping)
        self.fresh = fresh

    def __call__(self, node: IRNode) -> IRNode:
        return self.rewrite(node)

    @rewrite.register(Var)
    def _var(self, node: Var) -> Expr:
        return self.mapping.get(node, node)

    @rewrite.register(ForStmt, WhileStmt)
    def _loop(self, node: ForStmt | WhileStmt) -> Stmt:
        binders: list[Var] = [node.loop_var] if isinstance(node, ForStmt) else []
        if self.fresh is not None:
            for var in binders:
                self.mapping[var] = Var(self.fresh(var), var.type, var.span)
        for ia in node.iter_args:
            init = self.rewrite(ia.initValue)
            if self.fresh is not None or init is not ia.initValue:
                name = self.fresh(ia) if self.fresh is not None else ia.name_hint
                self.mapping[ia] = IterArg(name, ia.type, init, ia.span)
        return self.rewrite.children(node)


def substitute(node: IRNode, mapping: dict[Var, Expr]) -> IRNode:
    """``node`` with each variable in ``mapping`` replaced (the same object if none occurs)."""
    if not mapping:
        return node
    return Substitute(mapping)(node)


def rebuild(node: IRNode, **changes: object) -> IRNode:
    """``node`` with ``changes`` applied, or ``node`` itself when every change is the same object."""
    if all(getattr(node, k) is v for k, v in changes.items()):
        return node
    return replace(node, **changes)
