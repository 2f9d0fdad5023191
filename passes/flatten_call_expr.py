"""FlattenCallExpr: hoist nested calls into temporaries (docs/passes.md#flattencallexpr)."""

from __future__ import annotations

from pypto.languages.invariants import NoNestedCalls, NormalizedStmtStructure
from pypto.languages.ssa import ssa

from pypto.analysis import function_index

from pypto.ir.expr import Call, Expr, MakeTuple, Submit, TupleGetItemExpr, Var
from pypto.ir.function import Function
from pypto.ir.stmt import AssignStmt, EvalStmt, SpmdScopeStmt, Stmt, WhileStmt

from pypto.transform.rewrite import Result, RewritePass, on
from pypto.transform.util import any_contains, contains, keep_list, rebuild, straight_line

_CALLS = (Call, Submit)


def _top_calls(e: Expr) -> int:
    """How many calls ``e`` holds at the positions ``FlattenCallExpr.top`` keeps."""
    if isinstance(e, _CALLS):
        return 1
    if isinstance(e, MakeTuple):
        return sum(map(_top_calls, e.elements))
    if isinstance(e, TupleGetItemExpr):
        return _top_calls(e.tuple)
    return 0


class FlattenCallExpr(RewritePass):
    """Hoist every call nested in arguments, operands, conditions, ranges, returns and yields.

    before:  c = self.foo(self.bar(a))         after:  t__tmp_v0 = self.bar(a)
                                                       c = self.foo(t__tmp_v0)

    A dispatch predicate (``Submit.predicate``, a spmd scope's ``attrs["predicate"]``) keeps its
    ``tensor.read``: the scheduler reads that element at dispatch, orchestration never executes it.
    """

    source = ssa
    target = ssa
    requires = frozenset({NormalizedStmtStructure})
    produces = frozenset({NoNestedCalls})

    def applies(self, func: Function) -> bool:
        stmts = straight_line(func)
        if stmts is None:
            # Only a call below the positions ``top`` keeps is hoisted: none when every call the
            # index counts (each occurrence once) is at the top of an assignment or evaluation.
            index = function_index(func)
            if index.has(SpmdScopeStmt):
                return True  # its predicate is set back as a new attrs dict
            at_top = sum(_top_calls(s.value) for s in index.of(AssignStmt))
            at_top += sum(_top_calls(s.expr) for s in index.of(EvalStmt))
            return at_top != len(index.of(Call, Submit))
        return any(map(self._changes, stmts))

    def _changes(self, s: Stmt) -> bool:
        """True when the rewrite would hoist a call out of straight-line statement ``s``."""
        kind = type(s)
        if kind is AssignStmt:
            return self._nested(s.value)
        if kind is EvalStmt:
            return self._nested(s.expr)
        return any_contains(s.value, _CALLS)  # a return or yield: every call in it is nested

    def _nested(self, e: Expr) -> bool:
        """True when ``e`` has a call below the positions ``top`` keeps (which ``Rewrite.expr`` hoists)."""
        if isinstance(e, _CALLS):
            return any_contains(e.args, _CALLS)
        if isinstance(e, MakeTuple):
            return any(map(self._nested, e.elements))
        if isinstance(e, TupleGetItemExpr):
            return self._nested(e.tuple)
        return contains(e, _CALLS)

    @on(Call, Submit)
    def _hoist(self, node: Call | Submit) -> Expr:
        """A call reached bottom-up is nested: it becomes a temporary (its own arguments first)."""
        tmp = Var(self.names.name("tmp", lambda n: f"t__tmp_v{n}"), node.type, node.span)
        self.emit(AssignStmt(tmp, node, node.span))
        return tmp

    def top(self, e: Expr) -> Expr:
        """``e`` where it may itself be a call (a statement's value, and tuples of such values)."""
        if isinstance(e, (Call, Submit)):
            return rebuild(e, args=self.expr(e.args))
        if isinstance(e, MakeTuple):
            return rebuild(e, elements=keep_list([self.top(x) for x in e.elements], e.elements))
        if isinstance(e, TupleGetItemExpr):
            return rebuild(e, tuple=self.top(e.tuple))
        return self.expr(e)

    @on(AssignStmt)
    def _assign(self, node: AssignStmt) -> Result:
        return rebuild(node, value=self.top(node.value))

    @on(EvalStmt)
    def _eval(self, node: EvalStmt) -> Result:
        return rebuild(node, expr=self.top(node.expr))

    @on(SpmdScopeStmt)
    def _spmd(self, node: SpmdScopeStmt) -> Result:
        predicate = node.attrs.get("predicate")
        if predicate is None:
            return self.children(node)
        attrs = {k: v for k, v in node.attrs.items() if k != "predicate"}
        new = self.children(rebuild(node, attrs=attrs))
        return rebuild(new, attrs={**new.attrs, "predicate": predicate})  # this pass renames no variable

    @on(WhileStmt)
    def _while(self, node: WhileStmt) -> Result:
        # The condition is evaluated every iteration: a call in it cannot move before the loop.
        return rebuild(node, body=self.body(node.body))
