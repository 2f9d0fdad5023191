"""NormalizeStmtStructure: flatten nested blocks and unwrap single-statement ones (spec §4.6).

The passes of this package build canonical blocks themselves (``util.block_of``), so the programs
they produce print and parse back unchanged; this pass canonicalises IR built any other way (IR
builders, plugin passes), whose redundant blocks print exactly like their contents.
"""

from __future__ import annotations

from pypto.languages.invariants import NormalizedStmtStructure
from pypto.languages.invariants.walk import function_index

from pypto.ir.function import Function, Program
from pypto.ir.stmt import SeqStmts, Stmt

from .base import FunctionPass, Rewriter
from .util import flat, rebuild, same_list

NAME = "NormalizeStmtStructure"


class _Run:
    rewrite = Rewriter(NAME)

    @rewrite.register(SeqStmts)
    def _seq(self, node: SeqStmts) -> Stmt:
        node = self.rewrite.children(node)
        stmts = flat(node.stmts)
        if len(stmts) == 1:
            return stmts[0]
        return node if same_list(stmts, node.stmts) else SeqStmts(stmts, node.span)


def _normalized(func: Function) -> bool:
    return not any(
        len(seq.stmts) == 1 or any(isinstance(s, SeqStmts) for s in seq.stmts)
        for seq in function_index(func).of(SeqStmts)
    )


class NormalizeStmtStructure(FunctionPass):
    """Splice nested SeqStmts into their parent and replace a one-statement SeqStmts by its statement.

    before:  SeqStmts([SeqStmts([a]), SeqStmts([b, c])])        after:  SeqStmts([a, b, c])
             (an if whose then-branch is SeqStmts([x = 1]))             (the then-branch is x = 1)
    """

    name = NAME
    produces = frozenset({NormalizedStmtStructure})

    def run_function(self, func: Function, program: Program) -> Function:
        if _normalized(func):
            return func
        return rebuild(func, body=_Run().rewrite(func.body))


def normalize_stmt_structure() -> NormalizeStmtStructure:
    """The NormalizeStmtStructure pass."""
    return NormalizeStmtStructure()
