"""What statements read, evaluate and define; blocks; free variables.

``stmt_defs`` is the one answer to "what does this statement define": the ``_defs`` fields of the
node classes (docs/ir.md#statements), shared with :func:`pypto.ir.transforms.collect_def_vars`.
``block(stmt)`` is the statement list a body stands for, ``stmt_exprs(stmt)`` the expressions a
statement evaluates itself, and ``sub_blocks(stmt)`` the bodies nested in it. Everything here
walks with explicit stacks, so deep expressions cost no recursion.
"""

from __future__ import annotations

import atexit
import operator
import re
from collections import Counter

from pypto.ir.expr import Call, ConstBool, ConstFloat, ConstInt, Expr, Submit, Var
from pypto.ir.function import Function
from pypto.ir.node import IRNode, ModelBase
from pypto.ir.stmt import (
    AssignStmt,
    EvalStmt,
    ForStmt,
    IfStmt,
    ReturnStmt,
    ScopeStmt,
    SeqStmts,
    SpmdScopeStmt,
    Stmt,
    WhileStmt,
    YieldStmt,
)
from pypto.ir.transforms import def_vars
from pypto.ir.transforms import walk as walk_all  # types entered (index.walk skips them)
from pypto.ir.type_base import TupleType, Type
from pypto.ir.types import ShapedType, TensorType, TileType
from pypto.util import IdentityCache

from .index import PLAIN, function_index, plain_attrs, push_value, walk


def block(stmt: Stmt | None) -> list[Stmt]:
    """The statements a body stands for: a SeqStmts' children, one statement, or none."""
    if stmt is None:
        return []
    if isinstance(stmt, SeqStmts):
        return list(stmt.stmts)
    return [stmt]


def sub_blocks(stmt: Stmt) -> list[Stmt]:
    """The bodies directly nested in ``stmt`` (then/else, loop body, scope body, block items)."""
    if isinstance(stmt, SeqStmts):
        return list(stmt.stmts)
    if isinstance(stmt, IfStmt):
        return [stmt.then_body] + ([stmt.else_body] if stmt.else_body is not None else [])
    if isinstance(stmt, (ForStmt, WhileStmt, ScopeStmt)):
        return [stmt.body]
    return []


def stmt_exprs(stmt: Stmt) -> list[Expr]:
    """The expressions ``stmt`` evaluates itself (not those of nested bodies)."""
    if isinstance(stmt, AssignStmt):
        return [stmt.value]
    if isinstance(stmt, EvalStmt):
        return [stmt.expr]
    if isinstance(stmt, IfStmt):
        return [stmt.condition]
    if isinstance(stmt, ForStmt):
        return [stmt.start, stmt.stop, stmt.step] + [ia.initValue for ia in stmt.iter_args]
    if isinstance(stmt, WhileStmt):
        return [ia.initValue for ia in stmt.iter_args]
    if isinstance(stmt, (YieldStmt, ReturnStmt)):
        return list(stmt.value)
    if isinstance(stmt, SpmdScopeStmt):
        return [stmt.core_num]
    return []


def stmt_defs(stmt: Stmt) -> list[Var]:
    """The variables ``stmt`` itself defines (not those of nested bodies)."""
    return def_vars(stmt)


def scope_attr_reads(stmt: ScopeStmt) -> list[Var]:
    """The variables a scope's attrs read (deps, predicate, dumps, no_dep args), in order; not the
    ``as tid`` TaskId it defines, which :func:`scope_task_id` gives."""
    values = [v for k, v in stmt.attrs.items() if k != "task_id_var"]
    return [n for n in walk_values(values) if isinstance(n, Var)]


def scope_task_id(stmt: Stmt) -> Var | None:
    """The TaskId a ``with pl.at(...) as tid`` / ``pl.spmd(...) as tid`` scope defines, else None."""
    tid = stmt.attrs.get("task_id_var") if isinstance(stmt, ScopeStmt) else None
    return tid if isinstance(tid, Var) else None


def walk_values(value: object) -> list[IRNode]:
    """Every IR node inside a field value (a node, or lists/tuples/dicts of them)."""
    roots: list[IRNode] = []
    push_value(value, roots)
    return [n for root in roots for n in walk(root)]


def expr_vars(expr: Expr) -> tuple[Var, ...]:
    """The variables read by ``expr`` (with repetitions, in evaluation order)."""
    if isinstance(expr, Var):
        return (expr,)
    hit = _SUMMARY_ENTRIES.get(id(expr))  # expr_summary's cache lookup, inlined: most calls hit
    if hit is not None:
        return hit[1][0]
    return expr_summary(expr)[0]


def expr_summary(expr: Expr) -> tuple[tuple[Var, ...], frozenset[type]]:
    """``(variables, node classes)`` of ``expr``: the variables it reads (as :func:`expr_vars`) and
    the classes of every node in it (types not entered).

    Cached per expression object: expressions are immutable and shared by every program a pass
    derives, so the passes and boundary checks that all ask this of one statement walk it once.
    """
    hit = _SUMMARY_ENTRIES.get(id(expr))
    if hit is not None:
        return hit[1]
    found = _leaf_call_summary(expr) if type(expr) is Call else None
    if found is None:
        nodes = walk(expr)
        found = (tuple(n for n in nodes if isinstance(n, Var)), frozenset(map(type, nodes)))
    return _SUMMARIES.put(expr, found)


def _leaf_call_summary(call: Call) -> tuple[tuple[Var, ...], frozenset[type]] | None:
    """The summary of a call of variables and constants only (the common statement, also with plain
    keyword or attribute values such as a sync's pipes), without a walk; None for any other call."""
    kwargs, attrs = call.kwargs, call.attrs
    if kwargs and not all(isinstance(v, PLAIN) for v in kwargs.values()):
        return None
    if attrs.__pydantic_fields_set__ and not plain_attrs(attrs):
        return None
    args = call.args
    key = (type(call.op), *map(type, args))
    shape = _LEAF_CALL_SHAPES.get(key)
    if shape is None:
        shape = _LEAF_CALL_SHAPES[key] = _leaf_call_shape(key)
    if shape is False:
        return None
    positions, classes = shape
    return tuple([args[i] for i in positions]), classes


def _leaf_call_shape(key: tuple[type, ...]) -> tuple[tuple[int, ...], frozenset[type]] | bool:
    """For a call of op class ``key[0]`` on arguments of classes ``key[1:]``: the positions of its
    variable arguments and the classes of its nodes, or False when an argument is not a leaf."""
    kinds = key[1:]
    if not all(issubclass(k, _LEAVES) for k in kinds):
        return False
    return tuple(i for i, k in enumerate(kinds) if issubclass(k, Var)), frozenset([Call, *key])


# _leaf_call_shape by op and argument classes: a handful of shapes serve every statement.
_LEAF_CALL_SHAPES: dict[tuple[type, ...], tuple[tuple[int, ...], frozenset[type]] | bool] = {}


# expr_summary results by expression identity, each dropped when its expression is freed.
_SUMMARIES: IdentityCache[Expr, tuple[tuple[Var, ...], frozenset[type]]] = IdentityCache(100_000)
_SUMMARY_ENTRIES = _SUMMARIES.entries  # read directly on the hot paths (see IdentityCache)


def deep_summary(value: ModelBase) -> tuple[tuple[Var, ...], frozenset[type]]:
    """``(variables, node classes)`` of an expression or type with types entered: every object the
    traversal kernel (:func:`pypto.ir.transforms.transform` with ``types=True``) visits in ``value``,
    ``value`` included (variables are leaves). Cached per object, as :func:`expr_summary`."""
    hit = _DEEP_SUMMARY_ENTRIES.get(id(value))
    if hit is not None:
        return hit[1]
    nodes = list(walk_all(value))
    return _DEEP_SUMMARIES.put(value, (tuple(n for n in nodes if isinstance(n, Var)), frozenset(map(type, nodes))))


_DEEP_SUMMARIES: IdentityCache[ModelBase, tuple[tuple[Var, ...], frozenset[type]]] = IdentityCache(100_000)
_DEEP_SUMMARY_ENTRIES = _DEEP_SUMMARIES.entries  # read directly on the hot paths (see IdentityCache)
# Its keys include module-level types (op signatures, constants) that are freed only while the
# interpreter tears its modules down, when the entries' drop callbacks can no longer run: empty it first.
atexit.register(_DEEP_SUMMARIES.clear)


def clear_expr_vars() -> None:
    """Forget cached :func:`expr_summary` and :func:`deep_summary` results."""
    _SUMMARIES.clear()
    _DEEP_SUMMARIES.clear()


_LEAVES = (Var, ConstInt, ConstFloat, ConstBool)


def expr_calls(expr: Expr) -> list[Expr]:
    """The Call and Submit nodes inside ``expr`` (itself included)."""
    if isinstance(expr, _LEAVES):
        return []
    if type(expr) is Call and all(isinstance(a, _LEAVES) for a in expr.args):
        return [expr]
    return [n for n in walk(expr) if isinstance(n, (Call, Submit))]


def _nested(stmt: Stmt) -> list[Stmt]:
    """``stmt`` and the statements nested in it, in pre-order (the order :func:`walk` meets them), found
    from body to body: only statements read variables, so the expressions and types below them, most
    of a body's nodes, are not entered."""
    out: list[Stmt] = []
    todo = [stmt]
    while todo:
        s = todo.pop()
        out.append(s)
        todo.extend(reversed(sub_blocks(s)))
    return out


def stmt_evaluated(stmt: Stmt) -> list[Expr]:
    """What ``stmt`` itself reads: :func:`stmt_exprs` and a while loop's condition."""
    exprs = stmt_exprs(stmt)
    return exprs + [stmt.condition] if isinstance(stmt, WhileStmt) else exprs


def stmt_reads(stmt: Stmt) -> set[Var]:
    """Every variable read by ``stmt`` or a statement nested in it (while conditions included)."""
    found: set[Var] = set()
    for node in _nested(stmt):
        for expr in stmt_evaluated(node):
            found.update(expr_vars(expr))
    return found


def use_counts(stmt: Stmt) -> Counter[Var]:
    """How often each variable is read in ``stmt`` and the statements nested in it."""
    counts: Counter[Var] = Counter()
    for node in _nested(stmt):
        for expr in stmt_evaluated(node):
            counts.update(expr_vars(expr))
    return counts


def free_vars(stmt: Stmt) -> list[Var]:
    """The variables ``stmt`` reads that are not defined inside it, in first-read order (its live-ins
    when it is outlined)."""
    stmts = _nested(stmt)
    defined = {id(v) for node in stmts for v in stmt_defs(node)}
    out: dict[int, Var] = {}
    for node in stmts:
        for v in (v for e in stmt_evaluated(node) for v in expr_vars(e)):
            if id(v) not in defined:
                out.setdefault(id(v), v)
    return list(out.values())


def type_vars(t: Type, out: set[Var]) -> None:
    """Add to ``out`` the variables used as dimensions inside ``t`` (dynamic shapes, valid shapes)."""
    todo = [t]
    while todo:
        t = todo.pop()
        if isinstance(t, ShapedType):
            dims = list(t.shape)
            view = getattr(t, "tensor_view", None) or getattr(t, "tile_view", None)
            if view is not None:
                dims += list(view.valid_shape)
            for d in dims:
                out.update(n for n in walk(d) if isinstance(n, Var))
        elif isinstance(t, TupleType):
            todo.extend(t.types)


def view_vars(t: Type) -> tuple[Var, ...]:
    """The variables read by the valid shape and strides of ``t``'s view (tuple members too): the
    values a definition of that type uses, which UseAfterDef checks are defined before it."""
    kind = type(t)  # the exact classes first: after memory planning each tile variable has its own type
    if kind is TileType:
        view = t.tile_view
    elif kind is TensorType:
        view = t.tensor_view
    elif isinstance(t, TupleType):
        return tuple(v for member in t.types for v in view_vars(member))
    else:
        view = getattr(t, "tensor_view", None) or getattr(t, "tile_view", None)
    if view is None or not (view.valid_shape or view.stride):
        return ()
    dims = (*view.valid_shape, *view.stride)
    if _CONSTANT.issuperset(map(type, dims)):  # static extents and strides (most views): nothing to walk
        return ()
    return tuple(n for d in dims for n in walk(d) if isinstance(n, Var))


_CONSTANT = frozenset({ConstInt})


_VAR = operator.attrgetter("var")


def defined_vars(func: Function) -> list[Var]:
    """The parameters and every variable a statement of ``func`` defines, in order."""
    out = list(func.params)
    index = function_index(func)
    if all(cls is AssignStmt or not cls._defs for cls in index.classes if issubclass(cls, Stmt)):
        out += map(_VAR, index.of(AssignStmt))  # only assignments define (most kernels): no look at the rest
        return out
    for stmt in index.of(Stmt):
        out.extend(stmt_defs(stmt))
    return out


_COMPILER_SUFFIX = re.compile(r"__(ssa|phi|iter|rv|tmp)_v\d+$")


def base_name(name: str) -> str:
    """A variable name without its compiler version suffix (``x__ssa_v2`` -> ``x``)."""
    return _COMPILER_SUFFIX.sub("", name)
