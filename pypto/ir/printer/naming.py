"""Printed variable names (docs/ir.md#printed-names).

A pre-pass walks a function (or a bare statement/expression root) and records, in print order,
the variables it defines, the variables it only uses, and the variables that appear in printed
types (shape dims, view fields). ``assign_names`` then gives every distinct Var object a stable
name: unique hints are kept, colliding hints get the first free of ``name``, ``name_1``, ...
"""

from __future__ import annotations

from typing import Any, Collection, Iterable

from ..attrs import AttrsBase
from ..expr import (
    BinaryExpr,
    Call,
    ConstBool,
    ConstFloat,
    ConstInt,
    Expr,
    GlobalVar,
    IterArg,
    MakeTuple,
    Submit,
    TupleGetItemExpr,
    UnaryExpr,
    Var,
)
from ..memref import MemRef
from ..stmt import (
    AssignStmt,
    BreakStmt,
    ContinueStmt,
    EvalStmt,
    ForStmt,
    IfStmt,
    InlineStmt,
    ReturnStmt,
    ScopeStmt,
    SeqStmts,
    SpmdScopeStmt,
    Stmt,
    WhileStmt,
    YieldStmt,
)
from ..type_base import TupleType, Type
from ..types import ArrayType, ShapedType, TensorType, TileType

FREE_VAR_SUFFIX = "__FREE_VAR"


class VarCollector:
    """Collects defined, used and type-referenced variables of a piece of IR, in print order."""

    def __init__(self) -> None:
        # Keyed by the Var itself (identity-hashed), valued by it too: ordered sets.
        self.defs: dict[Var, Var] = {}
        self.uses: dict[Var, Var] = {}
        self.type_vars: dict[Var, Var] = {}
        # Names of program functions called (GlobalVar callees), for callee-first ordering.
        self.callees: set[str] = set()
        self._seen_types: set[int] = set()

    # ---- definitions -------------------------------------------------------------------
    def define(self, var: Var) -> None:
        """Record a def site and the variables of its type."""
        self.defs.setdefault(var, var)
        t = var.type
        if _reads_no_vars(t):
            return
        self.type(t)

    # ---- types -------------------------------------------------------------------------
    def type(self, t: Type) -> None:
        """Record the Vars read by a type's shape and view fields."""
        key = id(t)
        if key in self._seen_types:
            return
        self._seen_types.add(key)
        if isinstance(t, ShapedType):
            self.dims(t.shape)
            if isinstance(t, TileType) and t.tile_view is not None:
                view = t.tile_view
                self.dims(view.valid_shape)
                self.dims(view.stride)
                if view.start_offset is not None:
                    self.dims([view.start_offset])
            elif isinstance(t, TensorType) and t.tensor_view is not None:
                self.dims(t.tensor_view.valid_shape)
                self.dims(t.tensor_view.stride)
        elif isinstance(t, TupleType):
            for member in t.types:
                self.type(member)
        elif isinstance(t, ArrayType):
            self.dims([t.extent])

    def dims(self, dims: Iterable[Expr]) -> None:
        """Record the Vars of dim expressions as type vars."""
        for d in dims:
            if type(d) is not ConstInt:
                break
        else:
            return  # constant dims (most shapes) read no Vars
        saved, self.uses = self.uses, self.type_vars
        for d in dims:
            self.expr(d)
        self.uses = saved

    # ---- expressions -------------------------------------------------------------------
    def expr(self, e: Expr) -> None:
        """Record the Vars an expression reads."""
        t = type(e)
        if t is Var or t is IterArg:
            self.uses.setdefault(e, e)
        elif t is ConstInt or t is ConstFloat or t is ConstBool or t is MemRef:
            return
        elif t is Call:
            self._call(e)
        elif isinstance(e, (BinaryExpr, UnaryExpr)):
            self._operators(e)
        elif t is Submit:
            if type(e.op) is GlobalVar:
                self.callees.add(e.op.name)
            for a in e.args:
                self.expr(a)
            for d in e.deps:
                self.expr(d)
            if e.core_num is not None:
                self.expr(e.core_num)
            if e.predicate is not None:
                self.expr(e.predicate)
            self.value(e.kwargs)
            self.value(e.attrs)
        elif t is MakeTuple:
            for a in e.elements:
                self.expr(a)
        elif t is TupleGetItemExpr:
            self.expr(e.tuple)
        elif isinstance(e, Var) and not isinstance(e, MemRef):
            self.uses.setdefault(e, e)

    def _call(self, e: Call) -> None:
        if type(e.op) is GlobalVar:
            self.callees.add(e.op.name)
        uses = self.uses
        for a in e.args:
            t = type(a)
            if t is Var:  # the common operand, without the dispatch
                uses.setdefault(a, a)
            elif t is not ConstInt and t is not ConstFloat:
                self.expr(a)
        if e.kwargs:
            self.value(e.kwargs)
        if e.attrs.__pydantic_fields_set__:  # the attrs model's len(), without its Python call
            self.value(e.attrs)

    def _operators(self, e: BinaryExpr | UnaryExpr) -> None:
        """The operands of a tree of scalar operators, left to right on an explicit stack: a
        chain ``x + x + ... + x`` of any length costs one frame."""
        todo: list[Expr] = [e]
        uses = self.uses
        while todo:
            node = todo.pop()
            t = type(node)
            if t is Var or t is IterArg:
                uses.setdefault(node, node)
            elif isinstance(node, BinaryExpr):
                todo += (node.right, node.left)
            elif isinstance(node, UnaryExpr):
                todo.append(node.operand)
            else:
                self.expr(node)

    def value(self, v: Any) -> None:
        """Record the Vars inside a kwarg/attr value (Exprs, lists and dicts of them)."""
        if isinstance(v, Expr):
            self.expr(v)
        elif isinstance(v, (list, tuple)):
            for x in v:
                self.value(x)
        elif isinstance(v, (dict, AttrsBase)):
            for x in v.values():
                self.value(x)

    # ---- statements --------------------------------------------------------------------
    def stmt(self, s: Stmt) -> None:
        """Walk a statement in print order."""
        t = type(s)
        if t is AssignStmt:
            self.expr(s.value)
            self.define(s.var)
        elif t is SeqStmts:
            defs = self.defs
            for x in s.stmts:
                if type(x) is AssignStmt:  # most statements: inlined, one frame less each
                    value = x.value
                    if type(value) is Call:
                        self._call(value)
                    else:
                        self.expr(value)
                    var = x.var
                    defs.setdefault(var, var)
                    vt = var.type
                    if not _reads_no_vars(vt):
                        self.type(vt)
                else:
                    self.stmt(x)
        elif t is EvalStmt:
            self.expr(s.expr)
        elif t is YieldStmt or t is ReturnStmt:
            for x in s.value:
                self.expr(x)
        elif t is ForStmt:
            self.expr(s.start)
            self.expr(s.stop)
            self.expr(s.step)
            self.define(s.loop_var)
            self._iter_args(s.iter_args)
            self.value(s.attrs)
            self.stmt(s.body)
            for v in s.return_vars:
                self.define(v)
        elif t is WhileStmt:
            self._iter_args(s.iter_args)
            self.expr(s.condition)
            self.stmt(s.body)
            for v in s.return_vars:
                self.define(v)
        elif t is IfStmt:
            self.expr(s.condition)
            self.stmt(s.then_body)
            for v in s.return_vars:
                self.define(v)
            if s.else_body is not None:
                self.stmt(s.else_body)
        elif isinstance(s, ScopeStmt):
            if isinstance(s, SpmdScopeStmt):
                self.expr(s.core_num)
            tid = s.attrs.get("task_id_var")
            self.value({k: v for k, v in s.attrs.items() if k != "task_id_var"})
            if isinstance(tid, Var):
                self.define(tid)
            self.stmt(s.body)
        elif t is BreakStmt or t is ContinueStmt or t is InlineStmt:
            return

    def _iter_args(self, iter_args: list[IterArg]) -> None:
        for ia in iter_args:
            self.expr(ia.initValue)
        for ia in iter_args:
            self.define(ia)


def reads_vars(t: Type) -> bool:
    """Whether :meth:`VarCollector.type` may record a Var for ``t`` (conservatively: True for
    views, non-constant dims, arrays and other shaped types)."""
    cls = type(t)
    if cls is TileType or cls is TensorType:  # _reads_no_vars, inlined: one call per printed def
        if (t.tile_view if cls is TileType else t.tensor_view) is not None:
            return True
        for d in t.shape:
            if type(d) is not ConstInt:
                return True
        return False
    if isinstance(t, TupleType):
        return any(reads_vars(x) for x in t.types)
    return isinstance(t, (ShapedType, ArrayType))


def _reads_no_vars(t: Type) -> bool:
    """A view-less tile or tensor type of constant dims (most types): its walk records nothing."""
    cls = type(t)
    if cls is TileType:
        if t.tile_view is not None:
            return False
    elif cls is not TensorType or t.tensor_view is not None:
        return False
    for d in t.shape:
        if type(d) is not ConstInt:
            return False
    return True


def assign_names(ordered: Iterable[Var], fixed: dict[Var, str], free: Collection[Var] | None = None) -> dict[Var, str]:
    """Names for ``ordered`` Vars (keyed by the Var objects, which hash by identity), keeping the
    names in ``fixed``.

    Hints used by exactly one Var (and not fixed) are kept; the others take the first free of
    ``hint``, ``hint_1``, ``hint_2``, ... in order. Vars in ``free`` get the
    ``__FREE_VAR`` suffix.
    """
    if not fixed and not free:
        pending = list(ordered)
        hints = [v.name_hint or "v" for v in pending]
        if len(set(hints)) == len(hints):  # no collisions (most functions): every Var keeps its hint
            return dict(zip(pending, hints))
    names = dict(fixed)
    pending = [v for v in ordered if v not in names]
    counts: dict[str, int] = {}
    for v in pending:
        hint = v.name_hint or "v"
        counts[hint] = counts.get(hint, 0) + 1
    reserved = set(fixed.values())
    taken = set(reserved)
    taken.update(h for h, c in counts.items() if c == 1)
    next_suffix: dict[str, int] = {}  # per hint, the first suffix not yet tried (0 = bare hint)
    for v in pending:
        hint = v.name_hint or "v"
        if counts[hint] == 1 and hint not in reserved:
            name = hint
        else:
            k = next_suffix.get(hint, 0)
            name = hint if k == 0 else f"{hint}_{k}"
            while name in taken:
                k += 1
                name = f"{hint}_{k}"
            next_suffix[hint] = k + 1
            taken.add(name)
        names[v] = name + FREE_VAR_SUFFIX if free and v in free else name
    return names
