"""Dispatch predicates: ``predicate=(t[i, j] > 0)`` on ``pl.submit`` / ``pl.spmd_submit`` / ``pl.spmd``.

A predicate is one comparison ``tensor[indices] OP int-literal`` (mirrored ``0 < t[i]`` is kept
as written). It is parsed as an ordinary expression, so it lowers to ordinary IR,
``Gt(Cast(tensor.read(t, [i, j])), 0)`` (the ``Cast`` is the usual promotion of the element to
the literal's INDEX type; an INT64 element needs none), and is stored on the Submit / spmd
scope, never executed as a statement. The runtime evaluates it as ``operand OP target``, so only
that shape is accepted: chains, arithmetic, boolean combinations, a non-literal target, an
index count other than the tensor rank and an element that is not a signed integer or BOOL (the
runtime sign-extends the element it reads) are rejected here.

Best-effort producer contract: when the tensor was bound by an earlier ``out, tid =
pl.submit(...)`` / ``pl.spmd_submit(...)`` or assigned in a ``with pl.spmd(...) as tid`` body,
its producer's TaskId must be in ``deps=`` (the check is skipped when ``deps=`` holds a TaskId
array, whose producers are not listed one by one).
"""

from __future__ import annotations

import ast
from typing import Any

from pypto import ir

from .core import describe
from .diagnostics import InvalidOperationError, ParserSyntaxError, ParserTypeError
from .expressions import IR_COMPARE
from .scope_state import is_task_id_array, state_of

_SHAPE = "predicate=(t[i, j] > 0): one tensor element compared with an integer literal"
_GATE_HINT = "reduce the condition to one gate value in an earlier kernel and compare that element: " + _SHAPE
_READS = ("tensor.read",)


def parse_predicate(p: Any, node: ast.expr, deps: list[ir.Expr]) -> ir.Expr:
    """The IR of ``predicate=(...)``, checked against the accepted shape and the producer contract."""
    _check_shape(p, node)
    compare: ast.Compare = node  # type: ignore[assignment]
    nodes = [compare.left, compare.comparators[0]]
    sides = [_side(p, n) for n in nodes]
    variable = [i for i, s in enumerate(sides) if isinstance(s, ir.Expr) and not isinstance(s, ir.ConstInt)]
    if not variable:
        p.fail(
            ParserSyntaxError, "a predicate must read a tensor element; this one compares two constants", node, _SHAPE
        )
    reads = [i for i in variable if _element_read(sides[i]) is not None]
    operand = reads[0] if reads else variable[0]
    for i in variable:
        if i != operand:
            p.fail(
                ParserSyntaxError,
                f"the predicate compares with '{ast.unparse(nodes[i])}', which is not an integer literal",
                nodes[i],
                _GATE_HINT,
            )
    tensor = _check_operand(p, sides[operand], nodes[operand])
    _check_contract(p, tensor, deps, node)
    _check_dtype(p, tensor, nodes[operand])
    left, right = [s if isinstance(s, ir.Expr) else p.to_expr(s, node) for s in sides]
    try:
        return IR_COMPARE[type(compare.ops[0])](left, right, span=p.span(node))
    except (TypeError, ValueError) as err:
        p.fail(ParserTypeError, f"predicate: {err}", node, _SHAPE)


def _check_shape(p: Any, node: ast.expr) -> None:
    if type(node) is ast.BoolOp:
        p.fail(
            ParserSyntaxError,
            "a predicate is a single comparison; boolean combinations (and / or) are not supported",
            node,
            _GATE_HINT,
        )
    if type(node) is ast.UnaryOp and type(node.op) is ast.Not:
        p.fail(ParserSyntaxError, "a predicate is a single comparison; 'not' is not supported", node, _GATE_HINT)
    if type(node) is not ast.Compare:
        p.fail(ParserSyntaxError, f"a predicate must be a comparison, got '{ast.unparse(node)}'", node, _SHAPE)
    if len(node.ops) != 1:
        p.fail(
            ParserSyntaxError,
            f"chained comparisons are not supported in a predicate: '{ast.unparse(node)}'",
            node,
            _GATE_HINT,
        )
    if type(node.ops[0]) not in IR_COMPARE:
        p.fail(ParserSyntaxError, "a predicate compares with one of == != < <= > >=", node, _SHAPE)


def _side(p: Any, node: ast.expr) -> int | ir.Expr:
    """One side of the comparison: an int literal or an IR expression (not yet checked)."""
    if type(node) is ast.BinOp or (type(node) is ast.UnaryOp and not _is_negative_literal(node)):
        p.fail(
            ParserSyntaxError, f"arithmetic is not supported in a predicate: '{ast.unparse(node)}'", node, _GATE_HINT
        )
    if type(node) is ast.Subscript:
        _check_subscript(p, node)
    value = p.eval(node)
    if isinstance(value, ir.Expr) or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    p.fail(
        ParserSyntaxError, f"the target of a predicate must be an integer literal, got {describe(value)}", node, _SHAPE
    )


def _element_read(value: ir.Expr) -> ir.Call | None:
    """The ``tensor.read`` of ``value`` or of ``Cast(value)``."""
    read = value.operand if isinstance(value, ir.Cast) else value
    if isinstance(read, ir.Call) and isinstance(read.op, ir.Op) and read.op.name in _READS:
        return read
    return None


def _check_operand(p: Any, value: ir.Expr, node: ast.expr) -> ir.Var:
    """The operand side reads one element of a named tensor with plain indices; returns the tensor."""
    if isinstance(value.type, ir.TensorType):
        p.fail(
            ParserSyntaxError,
            f"the predicate operand must select a single tensor element, but '{ast.unparse(node)}' is {describe(value)}",
            node,
            _SHAPE,
        )
    read = _element_read(value)
    if read is None:
        p.fail(
            ParserSyntaxError,
            f"the predicate operand must be a tensor element t[i, j], got '{ast.unparse(node)}'",
            node,
            _SHAPE,
        )
    tensor = read.args[0]
    if not isinstance(tensor, ir.Var):
        p.fail(
            ParserSyntaxError,
            "the predicate reads an element of a named tensor (a parameter or a tensor variable)",
            node,
            _SHAPE,
        )
    indices = read.args[1].elements if isinstance(read.args[1], ir.MakeTuple) else [read.args[1]]
    for index in indices:
        if not _plain_index(index):
            p.fail(
                ParserSyntaxError,
                f"each predicate index must be an integer constant or an integer variable, got '{index.as_python()}'",
                node,
                _SHAPE,
            )
    return tensor


def _check_dtype(p: Any, tensor: ir.Var, node: ast.expr) -> None:
    """The runtime reads the element as a sign-extended integer: floats and unsigned values above
    the signed range would compare differently from the program's meaning."""
    dtype = tensor.type.dtype
    if not (dtype.is_signed_int() or dtype.is_bool()):
        p.fail(
            ParserTypeError,
            f"the predicate reads '{tensor.name_hint}', a {dtype.name} tensor, but the scheduler compares its "
            "element as a signed integer",
            node,
            "compute the gate into an INT8/INT16/INT32/INT64 (or BOOL) tensor in an earlier kernel and compare that",
        )


def _check_subscript(p: Any, node: ast.Subscript) -> None:
    """``t[i, j]``: one plain index per dimension of a tensor."""
    base = p.eval(node.value)
    if not isinstance(base, ir.Expr):
        return
    t = base.type
    if isinstance(t, ir.TileType):
        p.fail(
            ParserSyntaxError,
            f"the predicate operand must be a tensor element, but '{ast.unparse(node.value)}' is a tile",
            node,
            _SHAPE,
        )
    if not isinstance(t, ir.TensorType):
        return
    items = node.slice.elts if type(node.slice) is ast.Tuple else [node.slice]
    for item in items:
        if type(item) is ast.Slice:
            p.fail(ParserSyntaxError, "a predicate index selects one element; slices are not supported", item, _SHAPE)
    rank = len(t.shape)
    if len(items) != rank:
        p.fail(
            ParserSyntaxError,
            f"the predicate needs one index per dimension: '{ast.unparse(node.value)}' has rank {rank}, "
            f"got {len(items)} index(es)",
            node,
            _SHAPE,
        )


def _plain_index(index: ir.Expr) -> bool:
    if isinstance(index, ir.ConstInt):
        return True
    t = index.type
    return isinstance(index, ir.Var) and isinstance(t, ir.ScalarType) and t.dtype.is_int()


def _is_negative_literal(node: ast.UnaryOp) -> bool:
    operand = node.operand
    return (
        type(node.op) is ast.USub
        and type(operand) is ast.Constant
        and isinstance(operand.value, int)
        and not isinstance(operand.value, bool)
    )


def _check_contract(p: Any, tensor: ir.Var, deps: list[ir.Expr], node: ast.expr) -> None:
    """The producer of the predicate tensor, if recorded, must be one of ``deps``."""
    if any(is_task_id_array(d) or _is_array_read(d) for d in deps):
        return
    producer = state_of(p).producer_of(tensor)
    if producer is None:
        return
    tid = producer.task_id
    if tid is not None and any(d is tid for d in deps):
        return
    name = tensor.name_hint
    if tid is None:
        message = (
            f"the predicate reads '{name}', which an earlier {producer.construct} produced, but that task's TaskId "
            "was discarded, so it cannot be in deps="
        )
        hint = f"bind it (`{name}, tid = {producer.construct}(...)`) and add deps=[tid]"
    else:
        message = (
            f"the predicate reads '{name}', produced by the task '{tid.name_hint}' ({producer.construct}), "
            f"but '{tid.name_hint}' is not in deps="
        )
        hint = f"add deps=[..., {tid.name_hint}] so the scheduler evaluates the predicate after '{name}' is written"
    p.fail(InvalidOperationError, message, node, hint)


def _is_array_read(dep: ir.Expr) -> bool:
    return isinstance(dep, ir.Call) and isinstance(dep.op, ir.Op) and dep.op.name == "array.get_element"


__all__ = ["parse_predicate"]
