"""UnrollLoops: replace each ``pl.unroll`` loop by one copy of its body per iteration (spec §4.2)."""

from __future__ import annotations

from pypto.languages.invariants import UnrollResolved
from pypto.languages.invariants.walk import function_index, stmt_defs, walk
from pypto.languages.surface import surface

from pypto.ir.datatype import DataType
from pypto.ir.enums import ForKind
from pypto.ir.expr import ConstInt
from pypto.ir.function import Function, Program
from pypto.ir.stmt import AssignStmt, ForStmt, SeqStmts, Stmt
from pypto.ir.type_base import ScalarType

from .base import FunctionPass, Rewriter
from .errors import PassError
from .util import Substitute, block_of, rebuild

NAME = "UnrollLoops"


def _constant(e: object, what: str, loop: ForStmt) -> int:
    if not isinstance(e, ConstInt):
        raise PassError(NAME, f"pl.unroll needs a constant {what}", loop.span)
    return e.value


class _Run:
    rewrite = Rewriter(NAME)

    @rewrite.register(ForStmt)
    def _for(self, node: ForStmt) -> Stmt:
        if node.kind is not ForKind.Unroll:
            return self.rewrite.children(node)
        start, stop = _constant(node.start, "start", node), _constant(node.stop, "stop", node)
        step = _constant(node.step, "step", node)
        if step == 0:
            raise PassError(NAME, "pl.unroll with step 0", node.span)
        if node.iter_args:
            raise PassError(NAME, "pl.unroll loops cannot carry values (init_values)", node.span)
        var = node.loop_var
        dtype = var.type.dtype if isinstance(var.type, ScalarType) else DataType.INDEX
        # Each copy gets its own nested loop binders, as the printed copies would when parsed back.
        # A body that re-assigns the loop variable keeps it a variable, set to the constant first.
        reassigned = any(v is var for n in walk(node.body) if isinstance(n, Stmt) for v in stmt_defs(n))
        copies: list[Stmt] = []
        for i in range(start, stop, step):
            value = ConstInt(i, dtype, node.span)
            if reassigned:
                copies += [AssignStmt(var, value, node.span), Substitute({}, fresh=lambda v: v.name_hint)(node.body)]
            else:
                copies.append(Substitute({var: value}, fresh=lambda v: v.name_hint)(node.body))
        # Outer loops first: an inner pl.unroll may take its bounds from this loop's variable.
        return self.rewrite(block_of(copies, node.span))

    @rewrite.register(SeqStmts)
    def _seq(self, node: SeqStmts) -> Stmt:
        new = self.rewrite.children(node)
        return new if new is node else block_of(new.stmts, new.span)


class UnrollLoops(FunctionPass):
    """Expand ``pl.unroll`` loops: one body copy per iteration, the loop variable a constant.

    before:  for i in pl.unroll(2):        after:  x = pl.add(x, 0)
                 x = pl.add(x, i)                  x = pl.add(x, 1)
    """

    name = NAME
    source = surface
    target = surface
    produces = frozenset({UnrollResolved})

    def run_function(self, func: Function, program: Program) -> Function:
        if not any(loop.kind is ForKind.Unroll for loop in function_index(func).of(ForStmt)):
            return func
        return rebuild(func, body=_Run().rewrite(func.body))


def unroll_loops() -> UnrollLoops:
    """The UnrollLoops pass."""
    return UnrollLoops()
