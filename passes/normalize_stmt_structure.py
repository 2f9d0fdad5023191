"""NormalizeStmtStructure: flatten nested blocks and unwrap single-statement ones
(docs/passes.md#normalizestmtstructure).

The passes of this package build canonical blocks themselves (``util.block_of``), so the programs
they produce print and parse back unchanged; this pass canonicalises IR built any other way (IR
builders, plugin passes), whose redundant blocks print exactly like their contents.
"""

from __future__ import annotations

from pypto.languages.invariants import NoRedundantBlocks, NormalizedStmtStructure

from pypto.analysis import function_index
from pypto.ir.function import Function
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

    def applies(self, func: Function) -> bool:
        # The rewrite changes only a block of one statement or one holding a block (every other body
        # is kept as it is): a function with neither, among the blocks of its index, is kept.
        for block in function_index(func).of(SeqStmts):
            stmts = block.stmts
            if len(stmts) == 1 or any(issubclass(c, SeqStmts) for c in set(map(type, stmts))):
                return True
        return False

    @staticmethod
    def reblock(old: Stmt, stmts: list[Stmt]) -> Stmt:
        """Every body canonical, not only the changed ones."""
        canonical = same_list(old.stmts, stmts) and len(stmts) != 1 if isinstance(old, SeqStmts) else stmts == [old]
        return old if canonical else block_of(stmts, old.span)
