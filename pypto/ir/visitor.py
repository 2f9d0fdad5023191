"""``IRVisitor`` and ``IRMutator``: class-based walkers with one method per node kind (docs/ir.md#visitors).

A subclass overrides ``visit_<snake_case_class>`` (``visit_add``, ``visit_for_stmt``,
``visit_tuple_get_item_expr``, ...) and calls ``super().visit_<...>(node)`` to keep walking. An
override of an abstract kind (``visit_binary_expr``, ``visit_scope_stmt``) catches every subclass
that has no override of its own. ``visit_expr`` / ``visit_stmt`` dispatch; ``visit_function`` and
``visit_program`` are the handlers of those nodes.

Both walk expressions and statements (through lists and ``kwargs``/``attrs`` values), not types.
Variables are leaves; an ``IterArg``'s ``initValue`` belongs to the loop header and is visited when
the IterArg is first reached (normally in ``iter_args``). The iter_args of a ``while`` are visited
before its condition, which reads them.

``IRMutator`` copies on write: a handler returns the node itself when nothing below changed
(built on :func:`pypto.ir.traversal.map_children`). When the ``initValue`` of an IterArg changes,
the mutator builds a new IterArg and maps every later occurrence of the old one to it.

The default walk (``generic_visit``, and every ``visit_<kind>`` not overridden) runs on an explicit
stack: nodes whose handler is the default are walked by a loop, not by a nested call, so a chain
``x + x + ... + x`` of any length costs a few frames. An overridden handler that calls
``super().visit_<kind>(node)`` recurses as written, one level of Python calls per such node.
"""

from __future__ import annotations

import re
from typing import Any, Callable

from .expr import BinaryExpr, Expr, IterArg, UnaryExpr, Var
from .function import Function, Program
from .node import IRNode, ModelBase
from .memref import MemRef
from .stmt import ScopeStmt, Stmt, WhileStmt
from .traversal import iter_children, map_children


def snake_case(name: str) -> str:
    """``ForStmt`` -> ``for_stmt``, ``TupleGetItemExpr`` -> ``tuple_get_item_expr``."""
    name = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", name)
    return re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name).lower()


# Classes above which the method lookup stops (their names are dispatchers, not handlers).
_ROOTS = (Expr, Stmt, IRNode, ModelBase, object)
# The node kinds the walkers dispatch (types and views are not walked).
_WALKED = (Expr, Stmt, Function, Program)
# Abstract kinds whose handler, when overridden, catches the subclasses without an override.
_ABSTRACT = (BinaryExpr, UnaryExpr, ScopeStmt)


def _node_classes() -> list[type[IRNode]]:
    out, todo = [], [IRNode]
    while todo:
        cls = todo.pop()
        for sub in cls.__subclasses__():
            out.append(sub)
            todo.append(sub)
    return [c for c in out if c not in _ROOTS and not c.__name__.startswith("_")]


class _Walker:
    """Dispatch shared by the visitor and the mutator."""

    _dispatch_cache: dict[type, str]
    _default_cache: dict[type, bool]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._dispatch_cache = {}
        cls._default_cache = {}

    def _handler(self, node: IRNode) -> Callable[[Any], Any]:
        cls = type(self)
        ntype = type(node)
        name = cls._dispatch_cache.get(ntype)
        if name is None:
            name = _resolve(cls, ntype)
            cls._dispatch_cache[ntype] = name
        return getattr(self, name)

    def _walks_by_default(self, node: Any) -> bool:
        """True when ``node`` is an expression/statement/function/program whose handler is the
        default walk (the loop of ``generic_visit`` walks it instead of a nested call)."""
        cls = type(self)
        ntype = type(node)
        default = cls._default_cache.get(ntype)
        if default is None:
            if isinstance(node, _WALKED):
                name = cls._dispatch_cache.get(ntype) or _resolve(cls, ntype)
                default = getattr(cls, name) is _DEFAULT[_base(cls)]
            else:
                default = False
            cls._default_cache[ntype] = default
        return default

    def visit(self, node: Any) -> Any:
        """Dispatch any node (expression, statement, function or program) to its handler."""
        return self._handler(node)(node)

    def visit_expr(self, expr: Expr) -> Any:
        """Dispatch an expression to its ``visit_<kind>`` handler."""
        return self._handler(expr)(expr)

    def visit_stmt(self, stmt: Stmt) -> Any:
        """Dispatch a statement to its ``visit_<kind>`` handler."""
        return self._handler(stmt)(stmt)


class IRVisitor(_Walker):
    """Read-only walk; handlers return None."""

    @property
    def _seen_iter_args(self) -> set[int]:
        # created lazily: subclasses often define __init__ without calling super().__init__()
        return self.__dict__.setdefault("_seen_iter_args_set", set())

    def _child(self, child: ModelBase) -> None:
        if isinstance(child, _WALKED):
            self._handler(child)(child)

    def generic_visit(self, node: IRNode) -> None:
        """Visit every expression/statement child in field order (see the module docstring)."""
        todo = [iter_children(node)]
        while todo:
            child = next(todo[-1], None)
            if child is None:
                todo.pop()
            elif self._walks_by_default(child):
                todo.append(iter_children(child))
            elif isinstance(child, _WALKED):
                self._handler(child)(child)

    def visit_var(self, op: Var) -> None:
        """A variable: a leaf."""

    def visit_mem_ref(self, op: MemRef) -> None:
        """A MemRef: a leaf."""

    def visit_iter_arg(self, op: IterArg) -> None:
        """Visit the ``initValue`` the first time this IterArg is reached."""
        if id(op) not in self._seen_iter_args:
            self._seen_iter_args.add(id(op))
            self._child(op.initValue)

    def visit_while_stmt(self, op: WhileStmt) -> None:
        """iter_args, then condition, body, return_vars."""
        for arg in op.iter_args:
            self._child(arg)
        self._child(op.condition)
        self._child(op.body)
        for var in op.return_vars:
            self._child(var)

    def visit_function(self, op: Function) -> None:
        """Parameters, then the body (and expressions in attrs)."""
        self.generic_visit(op)

    def visit_program(self, op: Program) -> None:
        """Every function, in name order."""
        self.generic_visit(op)


class IRMutator(_Walker):
    """Rewriting walk; handlers return the replacement node (the same object when unchanged)."""

    @property
    def var_remap(self) -> dict[int, Var]:
        """``id(old variable) -> replacement`` for IterArgs rebuilt with a new ``initValue``
        (created lazily: subclasses often define __init__ without calling super().__init__())."""
        return self.__dict__.setdefault("_var_remap", {})

    def _child(self, child: Any) -> Any:
        if isinstance(child, _WALKED):
            return self._handler(child)(child)
        return child

    def generic_visit(self, node: IRNode) -> Any:
        """Rebuild ``node`` from its rewritten children; ``node`` itself when none changed.

        Children whose handler is the default are rebuilt by this loop, bottom-up on an explicit
        stack; the others are given to their handlers in field order.
        """
        # Entries: a node, its children, and the results of the children handled so far.
        stack: list[tuple[Any, list[Any], list[Any]]] = [(node, _children(node), [])]
        while True:
            current, children, results = stack[-1]
            if len(results) < len(children):
                child = children[len(results)]
                if self._walks_by_default(child):
                    stack.append((child, _children(child), []))
                else:
                    results.append(self._handler(child)(child) if isinstance(child, _WALKED) else child)
                continue
            stack.pop()
            rebuilt = map_children(current, _taking(results)) if results else current
            if not stack:
                return rebuilt
            stack[-1][2].append(rebuilt)

    def visit_var(self, op: Var) -> Expr:
        """A variable: itself, or its replacement if an earlier rewrite renewed it."""
        return self.var_remap.get(id(op), op)

    def visit_mem_ref(self, op: MemRef) -> Expr:
        """A MemRef: like a variable."""
        return self.var_remap.get(id(op), op)

    def visit_iter_arg(self, op: IterArg) -> Expr:
        """Rewrite the ``initValue`` once; a changed one gives a new IterArg used from then on."""
        known = self.var_remap.get(id(op))
        if known is not None:
            return known
        init = self._child(op.initValue)
        new = op if init is op.initValue else IterArg(op.name_hint, op.type, init, op.span)
        self.var_remap[id(op)] = new
        return new

    def visit_while_stmt(self, op: WhileStmt) -> Stmt:
        """iter_args first (the condition reads them), then the other fields."""
        for arg in op.iter_args:
            self._child(arg)
        return self.generic_visit(op)

    def visit_function(self, op: Function) -> Function:
        """Rebuild the function from its rewritten parameters, body and attrs."""
        return self.generic_visit(op)

    def visit_program(self, op: Program) -> Program:
        """Rebuild the program from its rewritten functions."""
        return self.generic_visit(op)


_BASES = (IRVisitor, IRMutator)
_DEFAULT = {IRVisitor: IRVisitor.generic_visit, IRMutator: IRMutator.generic_visit}


def _base(walker: type) -> type:
    return next(b for b in walker.__mro__ if b in _BASES)


def _taking(results: list[Any]) -> Callable[[Any], Any]:
    """A ``map_children`` function giving each child, in order, its already computed result."""
    it = iter(results)
    return lambda _child: next(it)


def _children(node: Any) -> list[Any]:
    """The children ``map_children`` maps, in its order (none for a variable: it is a leaf)."""
    return [] if isinstance(node, Var) else list(iter_children(node))


def _resolve(walker: type, ntype: type) -> str:
    """The handler name for nodes of ``ntype``: an override for the class itself, else an override
    for one of its abstract bases, else the default for the class (``generic_visit`` if none)."""
    base = _base(walker)
    for klass in ntype.__mro__:
        if klass in _ROOTS or (klass is not ntype and klass not in _ABSTRACT):
            break
        name = "visit_" + snake_case(klass.__name__)
        method = getattr(walker, name, None)
        if method is not None and method is not getattr(base, name, None):
            return name
    own = "visit_" + snake_case(ntype.__name__)
    return own if hasattr(walker, own) else "generic_visit"


def _install_defaults() -> None:
    """Give both bases a ``visit_<kind>`` for every node kind, so ``super().visit_add(op)`` works."""
    for cls in _node_classes():
        name = "visit_" + snake_case(cls.__name__)
        for base in _BASES:
            if name not in base.__dict__:
                setattr(base, name, base.generic_visit)


_install_defaults()

__all__ = ["IRMutator", "IRVisitor", "snake_case"]
