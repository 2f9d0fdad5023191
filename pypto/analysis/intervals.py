"""Integer intervals as pairs of scalar expressions ``(least, greatest)``: the rules of
:mod:`pypto.analysis.windows`, building expressions with constant arithmetic folded."""

from __future__ import annotations

import functools
from collections.abc import Callable

from pypto.ir import scalar_ops as ops
from pypto.ir.datatype import DataType
from pypto.ir.expr import Add, ConstInt, Expr, FloorDiv, FloorMod, Gt, Lt, Max, Min, Mul, Neg, Not, Sub, Var
from pypto.ir.structural import structural_equal
from pypto.ir.transforms import substitute_expr

Interval = tuple[Expr, Expr]


@functools.lru_cache(maxsize=4096)
def index_const(value: int) -> ConstInt:
    """The INDEX constant ``value``, one shared node per value: nodes are immutable, and bounds and
    window extents make the same few constants again and again (a validated construction each)."""
    return ConstInt(value, DataType.INDEX)


def _const(e: Expr) -> int | None:
    return e.value if isinstance(e, ConstInt) else None


def _fold(op: Callable[[Expr, Expr], Expr], py: Callable[[int, int], int]) -> Callable[[Expr, Expr], Expr]:
    def build(a: Expr, b: Expr) -> Expr:
        x, y = _const(a), _const(b)
        if x is not None and y is not None:
            return index_const(py(x, y))
        return op(a, b)

    return build


def _identity(op: Callable[[Expr, Expr], Expr], left: int | None, right: int | None) -> Callable[[Expr, Expr], Expr]:
    """``op`` that drops an operand equal to its identity (``0 + x``, ``x - 0``, ``1 * x``)."""

    def build(a: Expr, b: Expr) -> Expr:
        if left is not None and _const(a) == left:
            return b
        if right is not None and _const(b) == right:
            return a
        return op(a, b)

    return build


# ``a + b`` and ``a - b`` of two bounds, folded
add = _fold(_identity(ops.add, 0, 0), lambda x, y: x + y)
subtract = _fold(_identity(ops.sub, None, 0), lambda x, y: x - y)
_mul = _fold(_identity(ops.mul, 1, 1), lambda x, y: x * y)
_floordiv = _fold(ops.floordiv, lambda x, y: x // y)
_min = _fold(ops.min_, min)
_max = _fold(ops.max_, max)


def negate(e: Expr) -> Expr:
    """``-e``, folded for a constant."""
    return subtract(index_const(0), e)


def _same(a: Interval) -> bool:
    return a[0] is a[1]


def _mul_rule(a: Interval, b: Interval) -> Interval | None:
    if _same(a) and _same(b):
        p = _mul(a[0], b[0])
        return p, p
    for (x, y), other in ((a, b), (b, a)):
        c = _const(x)
        if c is not None and c == _const(y):
            return (_mul(other[0], x), _mul(other[1], x)) if c >= 0 else (_mul(other[1], x), _mul(other[0], x))
    products = [_mul(p, q) for p in a for q in b]
    least, most = products[0], products[0]
    for p in products[1:]:
        least, most = _min(least, p), _max(most, p)
    return least, most


def _floordiv_rule(a: Interval, b: Interval) -> Interval | None:
    c = _const(b[0]) if _same(b) else None
    if c is None or c <= 0:
        return None
    return _floordiv(a[0], b[0]), _floordiv(a[1], b[0])


def _floormod_rule(a: Interval, b: Interval) -> Interval | None:
    c = _const(b[0]) if _same(b) else None
    if c is None or c <= 0:
        return None
    return index_const(0), index_const(c - 1)


# The interval of a binary node from its operands' intervals (None: not bounded).
RULES: dict[type, Callable[[Interval, Interval], Interval | None]] = {
    Add: lambda a, b: (add(a[0], b[0]), add(a[1], b[1])),
    Sub: lambda a, b: (subtract(a[0], b[1]), subtract(a[1], b[0])),
    Mul: _mul_rule,
    FloorDiv: _floordiv_rule,
    FloorMod: _floormod_rule,
    Min: lambda a, b: (_min(a[0], b[0]), _min(a[1], b[1])),
    Max: lambda a, b: (_max(a[0], b[0]), _max(a[1], b[1])),
}

_FOLDERS: dict[type, Callable[[Expr, Expr], Expr]] = {
    Add: add, Sub: subtract, Mul: _mul, FloorDiv: _floordiv, Min: _min, Max: _max,
}

def last_value(start: Expr, stop: Expr, step: int) -> Expr:
    """The last value of ``range(start, stop, step)`` (when it is not empty)."""
    if step == 1:
        return ops.sub(stop, 1)
    if step == -1:
        return ops.add(stop, 1)
    size = abs(step)
    distance = ops.sub(ops.sub(stop, start), 1) if step > 0 else ops.sub(ops.sub(start, stop), 1)
    moved = ops.mul(ops.floordiv(distance, size), size)
    return ops.add(start, moved) if step > 0 else ops.sub(start, moved)


def distribute(e: Expr) -> Expr:
    """``x + min(a, b)`` as ``min(x + a, x + b)`` (and max alike), so the end of a window whose
    extent is clipped against the same offset (``min(32, N - i)`` at ``i``) bounds to ``N``."""
    if isinstance(e, Add):
        for x, m in ((e.left, e.right), (e.right, e.left)):
            if isinstance(m, (Min, Max)):
                combine = ops.min_ if isinstance(m, Min) else ops.max_
                return combine(distribute(_plus(x, m.left)), distribute(_plus(x, m.right)))
    return e


def _plus(x: Expr, y: Expr) -> Expr:
    """``x + y``, with ``x + (z - x)`` as ``z``."""
    if isinstance(y, Sub) and structural_equal(y.right, x):
        return y.left
    return ops.add(x, y)


def instantiate(e: Expr, values: dict[Var, Expr]) -> Expr:
    """``e`` with ``values`` substituted for its variables, constant arithmetic folded."""
    if isinstance(e, Var):
        return values.get(e, e)
    if type(e) is ConstInt:  # most bounds are constants: a substitution would return it as it is
        return e
    rebuild = _FOLDERS.get(type(e))
    if rebuild is not None:
        return rebuild(instantiate(e.left, values), instantiate(e.right, values))
    if isinstance(e, Neg):
        return negate(instantiate(e.operand, values))
    if isinstance(e, (Lt, Gt)):
        return type(e)(instantiate(e.left, values), instantiate(e.right, values), e.dtype, e.span)
    if isinstance(e, Not):
        return Not(instantiate(e.operand, values), e.dtype, e.span)
    return substitute_expr(e, values)


def const_truth(cond: Expr) -> bool | None:
    """The value of a condition :func:`instantiate` left as a comparison of constants, else None."""
    if isinstance(cond, Not):
        inner = const_truth(cond.operand)
        return None if inner is None else not inner
    if isinstance(cond, (Lt, Gt)) and isinstance(cond.left, ConstInt) and isinstance(cond.right, ConstInt):
        a, b = cond.left.value, cond.right.value
        return a < b if isinstance(cond, Lt) else a > b
    return None
