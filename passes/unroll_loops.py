"""UnrollLoops: replace each ``pl.unroll`` loop by one copy of its body per iteration (docs/passes.md#unrollloops)."""

from __future__ import annotations

from typing import Annotated

from annotated_types import Ge

from pypto.analysis import function_index, stmt_defs, walk
from pypto.languages.invariants import UnrollResolved
from pypto.languages.surface import surface

from pypto.ir.datatype import DataType
from pypto.ir.enums import ForKind
from pypto.ir.expr import ConstInt, Expr, Var
from pypto.ir.function import Function
from pypto.ir.stmt import AssignStmt, ForStmt, Stmt
from pypto.ir.transforms import copy_binders
from pypto.ir.type_base import ScalarType

from pypto.transform.reassign import fresh_reassignments
from pypto.transform.rewrite import Result, RewritePass, on
from pypto.transform.util import straight_line


def _same_name(v: Var) -> str:
    return v.name_hint


class UnrollLoops(RewritePass):
    """Expand ``pl.unroll`` loops: one body copy per iteration, the loop variable a constant.

    before:  for i in pl.unroll(2):        after:  x = pl.add(x, 0)
                 x = pl.add(x, i)                  x = pl.add(x, 1)

    Option ``max_trip_count`` (``int >= 1`` or None, default None: no limit): a ``pl.unroll`` loop of
    more iterations is an error instead of that many body copies (a guard against a mistyped bound
    blowing up the program).
    """

    source = surface
    target = surface
    produces = frozenset({UnrollResolved})

    max_trip_count: Annotated[int, Ge(1)] | None = None

    def applies(self, func: Function) -> bool:
        if straight_line(func) is not None:
            return False
        return any(loop.kind is ForKind.Unroll for loop in function_index(func).of(ForStmt))

    def function(self, func: Function) -> Function:
        new = super().function(func)
        # The copies re-assign variables in the block that bound them: new variables, as parsed.
        return new if new is func else fresh_reassignments(new)

    def constant(self, e: Expr, what: str, loop: ForStmt) -> int:
        if not isinstance(e, ConstInt):
            raise self.error(
                f"pl.unroll needs a constant {what}",
                loop.span,
                "give pl.unroll int literals or closure ints (a loop over a runtime bound is pl.range)",
            )
        return e.value

    @on(ForStmt)
    def _for(self, node: ForStmt) -> Result:
        if node.kind is not ForKind.Unroll:
            return self.children(node)
        start, stop = self.constant(node.start, "start", node), self.constant(node.stop, "stop", node)
        step = self.constant(node.step, "step", node)
        if step == 0:
            raise self.error("pl.unroll with step 0", node.span)
        if node.iter_args:
            raise self.error("pl.unroll loops cannot carry values (init_values)", node.span)
        trips = len(range(start, stop, step))
        if self.max_trip_count is not None and trips > self.max_trip_count:
            raise self.error(
                f"pl.unroll of {trips} iterations exceeds the option max_trip_count={self.max_trip_count}",
                node.span,
                "write pl.range for a long loop, or raise the limit: "
                f"pass_options={{'UnrollLoops': {{'max_trip_count': {trips}}}}}",
            )
        var = node.loop_var
        dtype = var.type.dtype if isinstance(var.type, ScalarType) else DataType.INDEX
        # Each copy gets its own nested loop binders, as the printed copies would when parsed back.
        # A body that re-assigns the loop variable keeps it a variable, set to the constant first.
        reassigned = any(v is var for n in walk(node.body) if isinstance(n, Stmt) for v in stmt_defs(n))
        copies: list[Stmt] = []
        for i in range(start, stop, step):
            value = ConstInt(i, dtype, node.span)
            if reassigned:
                copies += [AssignStmt(var, value, node.span), copy_binders(node.body, {}, _same_name)]
            else:
                copies.append(copy_binders(node.body, {var: value}, _same_name))
        # Outer loops first: an inner pl.unroll may take its bounds from this loop's variable.
        return self.block(copies)
