"""Walking helpers shared by the checkers and the passes.

``function_index(func)`` lists every IR node of a function once (types are not entered; variables
are leaves, and a loop's iter_args contribute their init values). The index is cached per Function
object: nodes are immutable and passes share untouched functions, so a function that several
boundary checks look at is walked once. The block helpers give a uniform view of statements:
``block(stmt)`` is the statement list a body stands for, ``stmt_exprs(stmt)`` the expressions a
statement evaluates itself, and ``sub_blocks(stmt)`` the bodies nested in it.
"""

from __future__ import annotations

import functools
import re

from pypto.ir.expr import (
    BinaryExpr,
    Call,
    ConstBool,
    ConstFloat,
    ConstInt,
    Expr,
    GlobalVar,
    MakeTuple,
    Submit,
    TupleGetItemExpr,
    UnaryExpr,
    Var,
)
from pypto.ir.function import Function, Program
from pypto.ir.node import IRNode
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
from pypto.ir.traversal import child_fields
from pypto.ir.type_base import TupleType, Type
from pypto.ir.types import ShapedType


@functools.cache
def _node_fields(cls: type) -> tuple[str, ...]:
    """Child fields of ``cls`` that may hold IR nodes (types are skipped, variables are leaves)."""
    if issubclass(cls, Var):
        return ()
    return tuple(name for name in child_fields(cls) if name != "type")


def _push_value(value: object, out: list[IRNode]) -> None:
    if isinstance(value, IRNode):
        out.append(value)
    elif isinstance(value, (list, tuple)):
        for item in value:
            _push_value(item, out)
    elif isinstance(value, dict):
        for item in value.values():
            _push_value(item, out)


def walk(root: IRNode) -> list[IRNode]:
    """Every IR node under ``root`` (itself included) in pre-order."""
    out: list[IRNode] = []
    stack: list[IRNode] = [root]
    while stack:
        node = stack.pop()
        out.append(node)
        cls = type(node)
        children: list[IRNode] = []
        for name in _node_fields(cls):
            _push_value(getattr(node, name), children)
        if cls is ForStmt or cls is WhileStmt:
            children.extend(ia.initValue for ia in node.iter_args)
        children.reverse()
        stack.extend(children)
    return out


class FunctionIndex:
    """All nodes of one function, with per-class lookups (in pre-order)."""

    def __init__(self, func: Function) -> None:
        self.func = func
        self.nodes = walk(func)
        self._positions: dict[type, list[int]] = {}
        for i, node in enumerate(self.nodes):
            self._positions.setdefault(type(node), []).append(i)
        self.classes = frozenset(self._positions)
        self._by_class: dict[tuple[type, ...], list] = {}

    def of(self, *classes: type) -> list:
        """The nodes that are instances of any of ``classes``, in pre-order."""
        found = self._by_class.get(classes)
        if found is None:
            groups = [pos for cls, pos in self._positions.items() if issubclass(cls, classes)]
            positions = groups[0] if len(groups) == 1 else sorted(p for g in groups for p in g)
            found = [self.nodes[i] for i in positions]
            self._by_class[classes] = found
        return found

    def has(self, *classes: type) -> bool:
        """True when some node is an instance of one of ``classes``."""
        return any(issubclass(c, classes) for c in self.classes)


@functools.lru_cache(maxsize=8192)
def function_index(func: Function) -> FunctionIndex:
    """The (cached) node index of ``func``."""
    return FunctionIndex(func)


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


def _collect_vars(root: IRNode, out: list[Var]) -> None:
    """Append the variables of ``root`` in order (direct cases for the common node kinds; an
    explicit stack, so a chain of operators of any depth costs one frame)."""
    todo: list[IRNode] = [root]
    while todo:
        expr = todo.pop()
        cls = type(expr)
        if cls is Var or isinstance(expr, Var):
            out.append(expr)
        elif cls is ConstInt or cls is ConstFloat or cls is ConstBool:
            continue
        elif cls is Call:
            for extra in (expr.attrs, expr.kwargs):
                if extra:
                    todo.extend(reversed([n for n in walk_values(extra) if isinstance(n, Var)]))
            todo.extend(reversed(expr.args))
        elif isinstance(expr, BinaryExpr):
            todo += (expr.right, expr.left)
        elif isinstance(expr, UnaryExpr):
            todo.append(expr.operand)
        elif cls is MakeTuple:
            todo.extend(reversed(expr.elements))
        elif cls is TupleGetItemExpr:
            todo.append(expr.tuple)
        else:
            todo.extend(reversed([n for n in walk(expr) if isinstance(n, Var)]))


def walk_values(value: object) -> list[IRNode]:
    """Every IR node inside a field value (a node, or lists/tuples/dicts of them)."""
    roots: list[IRNode] = []
    _push_value(value, roots)
    return [n for root in roots for n in walk(root)]


def expr_vars(expr: Expr) -> list[Var]:
    """The variables read by ``expr`` (with repetitions)."""
    out: list[Var] = []
    _collect_vars(expr, out)
    return out


_LEAVES = (Var, ConstInt, ConstFloat, ConstBool)


def expr_calls(expr: Expr) -> list[Expr]:
    """The Call and Submit nodes inside ``expr`` (itself included)."""
    if isinstance(expr, _LEAVES):
        return []
    if type(expr) is Call and all(isinstance(a, _LEAVES) for a in expr.args):
        return [expr]
    return [n for n in walk(expr) if isinstance(n, (Call, Submit))]


def stmt_reads(stmt: Stmt) -> set[Var]:
    """Every variable read by ``stmt`` or a statement nested in it (while conditions included)."""
    found: set[Var] = set()
    for node in walk(stmt):
        if isinstance(node, Stmt):
            exprs = stmt_exprs(node) + ([node.condition] if isinstance(node, WhileStmt) else [])
            for expr in exprs:
                found.update(expr_vars(expr))
    return found


def stmt_defs(stmt: Stmt) -> list[Var]:
    """The variables ``stmt`` itself defines (not those of nested bodies)."""
    if isinstance(stmt, AssignStmt):
        return [stmt.var]
    if isinstance(stmt, IfStmt):
        return list(stmt.return_vars)
    if isinstance(stmt, ForStmt):
        return [stmt.loop_var, *stmt.iter_args, *stmt.return_vars]
    if isinstance(stmt, WhileStmt):
        return [*stmt.iter_args, *stmt.return_vars]
    return []


def type_vars(t: Type, out: set[Var]) -> None:
    """Add to ``out`` the variables used as dimensions inside ``t`` (dynamic shapes, valid shapes)."""
    if isinstance(t, ShapedType):
        dims = list(t.shape)
        view = getattr(t, "tensor_view", None) or getattr(t, "tile_view", None)
        if view is not None:
            dims += list(view.valid_shape)
        for d in dims:
            out.update(n for n in walk(d) if isinstance(n, Var))
    elif isinstance(t, TupleType):
        for item in t.types:
            type_vars(item, out)


def defined_vars(func: Function) -> list[Var]:
    """The parameters and every variable a statement of ``func`` defines, in order."""
    out = list(func.params)
    for stmt in function_index(func).of(Stmt):
        out.extend(stmt_defs(stmt))
    return out


def callee(program: Program, expr: Expr) -> Function | None:
    """The program function a Call/Submit invokes, or None for op calls."""
    if isinstance(expr, (Call, Submit)) and isinstance(expr.op, GlobalVar):
        return program.get_function(expr.op.name)
    return None


def op_name(expr: Expr) -> str | None:
    """The name of an op call (``tile.add``), or None for function calls and non-calls."""
    if isinstance(expr, (Call, Submit)) and not isinstance(expr.op, GlobalVar):
        return expr.op.name
    return None


_COMPILER_SUFFIX = re.compile(r"__(ssa|phi|iter|rv|tmp)_v\d+$")


def base_name(name: str) -> str:
    """A variable name without its compiler version suffix (``x__ssa_v2`` -> ``x``)."""
    return _COMPILER_SUFFIX.sub("", name)
