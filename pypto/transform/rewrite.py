"""Statement rewriting: the framework the passes are written on.

A :class:`RewritePass` states only its interesting cases, as methods marked ``@on(NodeClass)``
(one ``multipledispatch`` Dispatcher per class, collected along the MRO, so a subclass keeps its
parent's cases). Everything else is generic:

* A **statement** handler gets the original statement and returns one statement, a list (spliced
  into the enclosing block) or None (deleted); ``self.emit(stmt)`` puts a statement before the
  current one (hoisting). Unhandled statements go through ``self.children(stmt)``: their
  expressions, defined variables and bodies rewritten, the statement rebuilt only if one changed.
* An **expression** handler gets the node after its children were rewritten (bottom-up, on the
  iterative kernel :func:`pypto.ir.transforms.transform`, so an expression of any depth costs no
  Python frames) and returns the replacement.
* ``self.remap`` is the one variable remap, applied at every use; with ``types = True`` it is also
  applied inside types (a variable whose type mentions a remapped variable is replaced by a copy
  with the new type, consistently). ``self.define(var)`` is the def side: the variable with its
  type (and an iter_arg's init) rewritten, recorded in the remap.
* ``self.remap`` and ``self.env`` (the pass's own facts, e.g. value ranges) are scoped: every body
  (branch, loop body, scope body) is rewritten in a new scope that is dropped when it is left.
  ``self.body(stmt, facts)`` seeds the new scope; ``with self.scope() as inner:`` exposes it (a
  versioning pass reads each branch's own entries). ``self.bind(var, value)`` and ``define`` write
  the outermost scope: a renaming holds everywhere.
* Untouched objects are returned as they are (tests assert identity); changed bodies are rebuilt
  as canonical blocks (flat, a single statement bare). ``self.names`` numbers fresh names.

Statement nesting costs four or five Python frames per level (stmt, handler, children, body,
block). A minimal pass::

    class DropEvals(RewritePass):
        @on(EvalStmt)
        def _eval(self, node: EvalStmt) -> None:
            return None
"""

from __future__ import annotations

from collections import ChainMap
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, ClassVar

from multipledispatch import Dispatcher

from pypto.analysis import NameSupply, deep_summary, defined_vars, expr_summary
from pypto.ir.errors import IRTypeError, IRValueError
from pypto.ir.expr import Expr, IterArg, Var
from pypto.ir.function import Function, Program
from pypto.ir.memref import MemRef
from pypto.ir.node import ModelBase
from pypto.ir.parts import copy_parts
from pypto.ir.span import Span
from pypto.ir.stmt import (
    AssignStmt,
    BreakStmt,
    ContinueStmt,
    EvalStmt,
    ReturnStmt,
    SeqStmts,
    Stmt,
    WhileStmt,
    YieldStmt,
)
from pypto.ir.transforms import copy_children, flatten_to_stmts, transform
from pypto.ir.traversal import child_fields
from pypto.ir.type_base import Type

from .base import FunctionPass
from .errors import PassError
from .util import block_of, keep_list, rebuild, same_list

Result = Stmt | Sequence[Stmt] | None
Handler = Callable[[Any, Any], Any]


def on(*classes: type) -> Callable[[Handler], Handler]:
    """Mark a method as the handler of nodes of ``classes`` (and their subclasses)."""

    def mark(fn: Handler) -> Handler:
        fn.rewrites = classes  # type: ignore[attr-defined]
        return fn

    return mark


_UNSET = object()
# Statement classes without a nested body: rewriting one needs no scope.
BODILESS = frozenset({AssignStmt, EvalStmt, ReturnStmt, YieldStmt, BreakStmt, ContinueStmt})
# Statements holding only a list of values, which their constructor does not look into.
_VALUE_STMTS = frozenset({ReturnStmt, YieldStmt})


class Rewrite:
    """A rewriting walk over statements and expressions (see the module docstring)."""

    types: ClassVar[bool] = False
    _dispatcher: ClassVar[Dispatcher] = Dispatcher("Rewrite")
    _table: ClassVar[dict[type, Any]] = {}
    _exprs: ClassVar[bool] = False  # some handler rewrites expressions or types
    _handler_free: ClassVar[dict[frozenset[type], bool]] = {}  # node class sets no handler matches
    _plain: ClassVar[bool] = True  # no expression handlers and the generic stmt/def/use/children cases

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._dispatcher = Dispatcher(cls.__name__)
        for klass in reversed(cls.__mro__):
            for fn in vars(klass).values():
                for node_class in getattr(fn, "rewrites", ()):
                    cls._dispatcher.add((node_class,), fn)
        cls._table = {}
        cls._handler_free = {}
        cls._exprs = cls.types or any(issubclass(sig[0], (Expr, Type)) for sig in cls._dispatcher.funcs)
        cls._plain = not cls._exprs and all(
            getattr(cls, m) is getattr(Rewrite, m) for m in ("stmt", "children", "define", "expr", "use")
        )

    def handler(self, node_class: type) -> Handler | None:
        """The handler for nodes of ``node_class`` (None: the generic case)."""
        table = type(self)._table
        found = table.get(node_class, _UNSET)
        if found is _UNSET:
            found = table[node_class] = type(self)._dispatcher.dispatch(node_class)
        return found

    def start(self, func: Function | None = None, program: Program | None = None) -> None:
        """Fresh state for one run (a function, or a fragment when ``func`` is None)."""
        self.func, self.program = func, program
        self.remap: ChainMap[Var, Expr] = ChainMap()
        self.env: ChainMap[Any, Any] = ChainMap()
        self.names = NameSupply(lambda: [v.name_hint for v in defined_vars(func)] if func is not None else [])
        self._out: list[Stmt] = []

    # ---- statements ----------------------------------------------------------------------------

    def stmt(self, node: Stmt) -> Result:
        """``node`` rewritten: its handler's result, or the generic case."""
        fn = self.handler(type(node))
        if fn is not None:
            try:
                return fn(self, node)
            except (IRTypeError, IRValueError) as err:  # an op built for this statement: locate it here
                if err.span is None or not err.span.is_valid():
                    err.span = node.span
                raise
        if type(node) is SeqStmts:
            return self.block(node.stmts)
        if type(node) in BODILESS and self._plain and not any(self.remap.maps):
            return node  # the generic case would rebuild nothing: no body, and no use or def changes
        return self.children(node)

    def block(self, stmts: Sequence[Stmt]) -> list[Stmt]:
        """The statements rewritten in order, with emitted ones before and lists spliced."""
        if self._plain and not any(self.remap.maps):
            kinds = frozenset(map(type, stmts))
            if kinds <= BODILESS and self._no_handler(kinds):
                return list(stmts)  # each statement would stay as it is (see ``stmt``)
        out: list[Stmt] = []
        outer = self._out
        self._out = out  # a nested block restores it when it is left
        try:
            for s in stmts:
                new = self.stmt(s)
                if isinstance(new, Stmt):
                    out.append(new)
                elif new is not None:
                    out.extend(new)
        finally:
            self._out = outer
        return out

    def emit(self, *stmts: Stmt) -> None:
        """Put ``stmts`` before the statement being rewritten, in its block."""
        self._out.extend(stmts)

    @contextmanager
    def scope(self, facts: dict[Any, Any] | None = None, remap: bool = True) -> Iterator[dict[Var, Expr]]:
        """A new scope for the remap and the environment (``facts`` seeds the environment); yields
        the scope's own remap entries, readable after it is left. ``remap=False`` scopes only the
        environment (a region whose definitions stay visible after it)."""
        outer = self.remap, self.env
        inner: dict[Var, Expr] = {}
        self.env = self.env.new_child(dict(facts or {}))
        if remap:
            self.remap = self.remap.new_child(inner)
        try:
            yield inner
        finally:
            self.remap, self.env = outer

    def body(self, node: Stmt | None, facts: dict[Any, Any] | None = None) -> Stmt | None:
        """A nested body rewritten in its own scope (the same object if nothing changed)."""
        if node is None:
            return None
        with self.scope(facts):
            return self.reblock(node, self.block(flatten_to_stmts(node)))

    @staticmethod
    def reblock(old: Stmt, stmts: list[Stmt]) -> Stmt:
        """``old`` if ``stmts`` are its statements, else their canonical block."""
        return old if same_list(stmts, flatten_to_stmts(old)) else block_of(stmts, old.span)

    def children(self, node: Stmt) -> Stmt:
        """The generic case: defined variables, expressions and bodies of ``node`` rewritten."""
        changes: dict[str, Any] = {}
        defs = type(node)._defs
        for name in _field_order(type(node)):
            old = getattr(node, name)
            if name in defs:
                new = [self.define(v) for v in old] if isinstance(old, list) else self.define(old)
                new = old if isinstance(old, list) and same_list(new, old) else new
            elif isinstance(old, Stmt):
                new = self.body(old)
            elif isinstance(old, list) and old and isinstance(old[0], Stmt):
                new = keep_list(self.block(old), old)
            elif old is None:
                continue
            else:
                new = self.expr(old)
            if new is not old:
                changes[name] = new
        if not changes:
            return node
        if type(node) in _VALUE_STMTS and changes.keys() == {"value"} and all(
            isinstance(v, Expr) for v in changes["value"]
        ):
            return copy_parts(node, changes)  # a return or yield derives nothing from its values
        return rebuild(node, **changes)

    # ---- variables and expressions -------------------------------------------------------------

    def define(self, var: Var) -> Var:
        """``var`` at its definition: its type (with ``types``) and iter_arg init rewritten; a new
        variable when one changed, recorded in the remap for the uses that follow."""
        vtype = self.expr(var.type) if self.types and not isinstance(var, MemRef) else var.type
        if isinstance(var, IterArg):
            init = self.expr(var.initValue)
            new: Var = var if init is var.initValue and vtype is var.type else IterArg(var.name_hint, vtype, init, var.span)
        else:
            new = var if vtype is var.type else type(var)(var.name_hint, vtype, var.span)
        if new is not var or self.types:  # with types, uses look the variable up instead of its type
            self.bind(var, new)
        return new

    def bind(self, var: Var, value: Expr) -> None:
        """Replace ``var`` by ``value`` at every later use, in every scope."""
        self.remap.maps[-1][var] = value

    def use(self, var: Var) -> Expr:
        """The expression standing for ``var`` where it is read."""
        for scope in self.remap.maps:  # ChainMap.get, without its generic membership test
            found = scope.get(var)
            if found is not None:
                return found
        if not self.types or isinstance(var, (IterArg, MemRef)):
            return var
        vtype = self.expr(var.type)
        new = var if vtype is var.type else type(var)(var.name_hint, vtype, var.span)
        self.bind(var, new)  # a free variable: the same copy everywhere
        return new

    def expr(self, value: Any) -> Any:
        """An expression (or type, or container of them) rewritten bottom-up by the handlers."""
        if not self._exprs and not any(self.remap.maps):
            return value  # nothing could change
        if isinstance(value, Var):
            return self.use(value)
        if isinstance(value, ModelBase):
            if not self.types:
                if isinstance(value, Expr) and self._untouched(value):
                    return value  # the common operand or statement value, without the traversal kernel
                return transform(value, self._enter, self._leave, types=False, memo={}, rebuild=copy_children)
            if self._untouched_typed(value):
                return value  # most types and values: the kernel would rebuild nothing
            return transform(value, self._enter_typed, self._leave, types=True, memo={})
        if isinstance(value, list):
            new = [self.expr(v) for v in value]
            return value if same_list(new, value) else new
        if isinstance(value, dict):
            new_d = {k: self.expr(v) for k, v in value.items()}
            return value if all(new_d[k] is v for k, v in value.items()) else new_d
        return value

    def _untouched(self, value: Expr) -> bool:
        """True when no handler and no remap entry would change ``value`` (types not entered): no
        node of it has a handler, and none of its variables is remapped to something else."""
        variables, classes = expr_summary(value)
        if not self._no_handler(classes):
            return False
        return all(self.use(var) is var for var in variables)

    def _no_handler(self, classes: frozenset[type]) -> bool:
        """True when no node of ``classes`` has a handler (cached per class set)."""
        free = type(self)._handler_free
        ok = free.get(classes)
        if ok is None:
            ok = free[classes] = all(self.handler(c) is None for c in classes)
        return ok

    def _untouched_typed(self, value: ModelBase) -> bool:
        """``_untouched`` with types entered (``types = True``): no node of ``value`` or of the types
        in it has a handler, and none of the variables in them is remapped or retyped."""
        variables, classes = deep_summary(value)
        if not self._no_handler(classes):
            return False
        use = self.use
        return all(use(var) is var for var in variables)

    def _enter(self, node: Any) -> Any:
        return self.use(node) if isinstance(node, Var) else None

    def _enter_typed(self, node: Any) -> Any:
        """``_enter`` with types entered: an untouched type is kept without its walk."""
        if isinstance(node, Var):
            return self.use(node)
        return node if isinstance(node, Type) and self._untouched_typed(node) else None

    def _leave(self, old: Any, new: Any) -> Any:
        fn = self.handler(type(new))
        return new if fn is None else fn(self, new)

    # ---- functions ---------------------------------------------------------------------------

    def function(self, func: Function) -> Function:
        """``func`` rewritten: parameters defined, body rewritten, return types (with ``types``)."""
        params = [self.define(p) for p in func.params]
        body = self.reblock(func.body, self.block(flatten_to_stmts(func.body)))
        returns = self.expr(func.return_types) if self.types else func.return_types
        if same_list(params, func.params) and returns is func.return_types and isinstance(body, Stmt):
            # Only the body may have changed, and a function derives nothing from its body: the copy
            # needs no validation (a malformed body is still refused at the next boundary check).
            return func if body is func.body else copy_parts(func, {"body": body})
        return rebuild(func, params=params if not same_list(params, func.params) else func.params, body=body,
                       return_types=returns)


def _field_order(cls: type) -> tuple[str, ...]:
    fields = child_fields(cls)
    if cls is WhileStmt:  # the condition reads the iter_args
        return ("iter_args",) + tuple(f for f in fields if f != "iter_args")
    return fields


class RewritePass(FunctionPass, Rewrite):
    """A function pass written as rewrite handlers; its name defaults to the class name.

    Each function runs on a fresh copy of the pass (options are fields of the pass, state lives on
    the copy). ``applies(func)`` may skip functions cheaply; ``self.add_function(f)`` adds a new
    function to the program (outlining).
    """

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "name" not in cls.__dict__:
            cls.name = cls.__name__

    def applies(self, func: Function) -> bool:
        """False for functions the pass leaves alone without looking inside."""
        return True

    def error(self, message: str, span: Span | None = None, hint: str | None = None) -> PassError:
        """A PassError of this pass, to raise (``hint`` says what to write instead)."""
        return PassError(self.name, message, span, hint)

    def add_function(self, func: Function) -> None:
        """Add ``func`` to the program being rewritten."""
        self._added.append(func)

    def _copy(self) -> RewritePass:
        """A shallow copy: ``copy.copy(self)`` without its generic protocol lookups (one per function)."""
        run = type(self).__new__(type(self))
        run.__dict__.update(self.__dict__)
        return run

    def run_function(self, func: Function, program: Program) -> Function:
        if not self.applies(func):
            return func
        run = self._copy()
        run.start(func, program)
        run._added = getattr(self, "_added", [])
        return run.function(func)

    def run(self, program: Program) -> Program:
        run = self._copy()
        run._added = []
        new = super(RewritePass, run).run(program)
        if not run._added:
            return new
        return Program(list(new.functions.values()) + run._added, program.name, program.span)
