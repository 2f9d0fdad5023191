"""NormalizeStmtStructure: flatten nested blocks and unwrap single-statement ones
(docs/passes.md#normalizestmtstructure).

The passes of this package build canonical blocks themselves (``util.block_of``), so the programs
they produce print and parse back unchanged; this pass canonicalises IR built any other way (IR
builders, plugin passes), whose redundant blocks print exactly like their contents.
"""

from __future__ import annotations

from pypto.languages.invariants import NoRedundantBlocks, NormalizedStmtStructure

from pypto.ir.stmt import SeqStmts, Stmt

from pypto.transform.base import SAME
from pypto.transform.rewrite import RewritePass
from pypto.transform.util import block_of, same_list


class NormalizeStmtStructure(RewritePass):
    """Splice nested SeqStmts into their parent and replace a one-statement SeqStmts by its statement.

    before:  SeqStmts([SeqStmts([a]), SeqStmts([b, c])])        after:  SeqStmts([a, b, c])
             (an if whose then-branch is SeqStmts([x = 1]))             (the then-branch is x = 1)
    """

    target = SAME  # runs in any dialect and keeps it
    produces = frozenset({NormalizedStmtStructure, NoRedundantBlocks})

    @staticmethod
    def reblock(old: Stmt, stmts: list[Stmt]) -> Stmt:
        """Every body canonical, not only the changed ones."""
        canonical = same_list(old.stmts, stmts) and len(stmts) != 1 if isinstance(old, SeqStmts) else stmts == [old]
        return old if canonical else block_of(stmts, old.span)
