"""A Submit's dispatch predicate as the runtime's ``operand OP target`` triple (docs/codegen.md#orchestration).

The IR keeps the comparison as written (``Gt(Cast(tensor.read(rc, [e])), 0)``, or mirrored
``0 < rc[e]``); the runtime compares one tensor element (sign-extended to 64 bits) with an integer,
so a mirrored comparison is flipped to put the tensor on the left::

    CoreTaskPredicate params_t0_pred;
    params_t0_pred.operand.tensor = &ext_rc;
    params_t0_pred.operand.ndims = 1;
    params_t0_pred.operand.indices[0] = (uint32_t)(e);
    params_t0_pred.op = PredicateOp::GT;
    params_t0_pred.target = 0;
    params_t0.set_predicate(params_t0_pred);
"""

from __future__ import annotations

from dataclasses import dataclass

from pypto.ir.expr import BinaryExpr, Call, Cast, ConstInt, Eq, Expr, Ge, Gt, Le, Lt, MakeTuple, Ne, Neg, Var

from .errors import CodegenError

# The runtime's PredicateOp for each IR comparison, and the comparison read the other way round.
PREDICATE_OPS: dict[type, str] = {Eq: "EQ", Ne: "NE", Gt: "GT", Lt: "LT", Ge: "GE", Le: "LE"}
_MIRRORED: dict[type, type] = {Eq: Eq, Ne: Ne, Gt: Lt, Lt: Gt, Ge: Le, Le: Ge}

_SHAPE = "a predicate is one tensor element compared with an integer literal: predicate=(t[i] > 0)"


@dataclass(frozen=True)
class DispatchPredicate:
    """``tensor[indices] op target`` with the tensor on the left (``op`` is a PredicateOp name)."""

    tensor: Var
    indices: list[Expr]
    op: str
    target: int


def dispatch_predicate(predicate: Expr) -> DispatchPredicate:
    """The runtime triple of ``predicate`` (a comparison the parser accepted), flipped when mirrored."""
    kind = type(predicate)
    if kind not in PREDICATE_OPS or not isinstance(predicate, BinaryExpr):
        raise CodegenError(f"no rule for a dispatch predicate '{predicate.as_python()}' in orchestration",
                           predicate.span, _SHAPE)
    left, right = predicate.left, predicate.right
    if _element(left) is None:
        left, right, kind = right, left, _MIRRORED[kind]
    read, target = _element(left), _integer(right)
    if read is None or target is None:
        raise CodegenError(f"no rule for a dispatch predicate '{predicate.as_python()}' in orchestration",
                           predicate.span, _SHAPE)
    tensor, indices = read.args[0], read.args[1]
    if not isinstance(tensor, Var):
        raise CodegenError("no rule for a dispatch predicate on an unnamed tensor in orchestration", predicate.span,
                           _SHAPE)
    return DispatchPredicate(tensor, list(indices.elements) if isinstance(indices, MakeTuple) else [indices],
                             PREDICATE_OPS[kind], target)


def _element(e: Expr) -> Call | None:
    """The ``tensor.read`` that ``e`` (or ``Cast(e)``) is."""
    e = e.operand if isinstance(e, Cast) else e
    if isinstance(e, Call) and getattr(e.op, "name", None) == "tensor.read":
        return e
    return None


def _integer(e: Expr) -> int | None:
    e = e.operand if isinstance(e, Cast) else e
    if isinstance(e, ConstInt):
        return e.value
    if isinstance(e, Neg) and isinstance(e.operand, ConstInt):
        return -e.operand.value
    return None


__all__ = ["PREDICATE_OPS", "DispatchPredicate", "dispatch_predicate"]
