"""MaterializeRuntimeScopes: explicit runtime scopes in Orchestration functions
(docs/passes.md#materializeruntimescopes)."""

from __future__ import annotations

from pypto.languages.invariants import CallDirectionsResolved, RuntimeScopesMaterialized
from pypto.languages.memref import memref

from pypto.ir.attrs import FunctionAttrs
from pypto.ir.enums import FunctionType
from pypto.ir.function import Function
from pypto.ir.parts import copy_parts
from pypto.ir.stmt import ForStmt, IfStmt, ReturnStmt, RuntimeScopeStmt, Stmt, YieldStmt
from pypto.ir.transforms import flatten_to_stmts

from pypto.transform.rewrite import Result, RewritePass, on
from pypto.transform.util import block_of, rebuild


class MaterializeRuntimeScopes(RewritePass):
    """Wrap the body, every ``for`` body and every ``if`` branch of an Orchestration function with
    ``auto_scope`` (the default) in ``RuntimeScopeStmt(manual=False)``, then set ``auto_scope=False``.

    The trailing ``yield``/``return`` of a body stays after its scope (it is the body's control,
    not work of the scope). Nothing is wrapped inside a manual scope, a body that already is one
    runtime scope is not wrapped again, and a function with ``auto_scope=False`` keeps only the
    scopes its author placed::

        before:  for i in pl.range(2):                after:  with pl.scope():
                     t = self.k(a, t)                             for i in pl.range(2):
                 return t                                             with pl.scope():
                                                                          t = self.k(a, t)
                                                              return t
    """

    source = memref
    requires = frozenset({CallDirectionsResolved})
    produces = frozenset({RuntimeScopesMaterialized})

    def applies(self, func: Function) -> bool:
        return func.func_type is FunctionType.Orchestration

    def function(self, func: Function) -> Function:
        if func.attrs.get("auto_scope", True) is False:
            return func
        body = self.wrap(super().function(func).body)
        # Only the body and the attrs change (the attrs validated here, as the constructor would): a
        # function derives nothing from either, so the copy needs no validation of its other fields.
        attrs = FunctionAttrs.for_node(f"Function '{func.name}'", {**func.attrs, "auto_scope": False})
        return copy_parts(func, {"body": body, "attrs": attrs})

    def wrap(self, body: Stmt) -> Stmt:
        """``body`` with its statements (all but a trailing yield/return) in one auto runtime scope."""
        stmts = flatten_to_stmts(body)
        tail = [stmts.pop()] if stmts and isinstance(stmts[-1], (YieldStmt, ReturnStmt)) else []
        if not stmts or (len(stmts) == 1 and isinstance(stmts[0], RuntimeScopeStmt)):
            return body
        scope = RuntimeScopeStmt(manual=False, body=block_of(stmts, body.span), span=body.span)
        return block_of([scope, *tail], body.span)

    @on(ForStmt)
    def _loop(self, node: ForStmt) -> Result:
        new = self.children(node)
        return rebuild(new, body=self.wrap(new.body))

    @on(IfStmt)
    def _if(self, node: IfStmt) -> Result:
        new = self.children(node)
        other = None if new.else_body is None else self.wrap(new.else_body)
        return rebuild(new, then_body=self.wrap(new.then_body), else_body=other)

    @on(RuntimeScopeStmt)
    def _scope(self, node: RuntimeScopeStmt) -> Result:
        return node if node.manual else self.children(node)
