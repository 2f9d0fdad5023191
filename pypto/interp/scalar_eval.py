"""Meaning of the scalar expression nodes (``Add``, ``Lt``, ``Cast``, ...) on Python scalars.

Each function takes already-evaluated operands and the node's dtype; the result is normalised to that
dtype (integers wrap, floats round). ``And``/``Or`` evaluate both operands (the IR has no
short-circuit). Integer division or modulo by zero is an ``OpError``; float division follows IEEE.
"""

from __future__ import annotations

import math
from typing import Any, Callable

from pypto.ir import expr as E
from pypto.ir.datatype import DataType

from .dtypes import normalize_scalar
from .errors import OpError


def _int_div_check(b: Any, dtype: DataType, what: str) -> None:
    if not dtype.is_float() and b == 0:
        raise OpError(f"integer {what} by zero")


def _true_div(a: Any, b: Any, dtype: DataType) -> Any:
    if dtype.is_float():
        if b == 0:
            if a == 0 or (isinstance(a, float) and math.isnan(a)):
                return math.nan
            return math.copysign(math.inf, a) * math.copysign(1.0, b)
        return a / b
    _int_div_check(b, dtype, "division")
    q = abs(int(a)) // abs(int(b))
    return q if (a >= 0) == (b >= 0) else -q


def _floor_div(a: Any, b: Any, dtype: DataType) -> Any:
    if dtype.is_float():
        return math.floor(a / b) if b != 0 else _true_div(a, b, dtype)
    _int_div_check(b, dtype, "floor division")
    return a // b


def _floor_mod(a: Any, b: Any, dtype: DataType) -> Any:
    if dtype.is_float():
        return a % b if b != 0 else math.nan
    _int_div_check(b, dtype, "modulo")
    return a % b


def _pow(a: Any, b: Any, dtype: DataType) -> Any:
    if not dtype.is_float() and b < 0:
        raise OpError(f"integer power with negative exponent {b}")
    return a**b


def _shift_count(b: Any) -> int:
    if b < 0:
        raise OpError(f"negative shift count {b}")
    return int(b)


BINARY: dict[type, Callable[[Any, Any, DataType], Any]] = {
    E.Add: lambda a, b, d: a + b,
    E.Sub: lambda a, b, d: a - b,
    E.Mul: lambda a, b, d: a * b,
    E.FloatDiv: _true_div,
    E.FloorDiv: _floor_div,
    E.FloorMod: _floor_mod,
    E.Pow: _pow,
    E.Min: lambda a, b, d: min(a, b),
    E.Max: lambda a, b, d: max(a, b),
    E.Eq: lambda a, b, d: a == b,
    E.Ne: lambda a, b, d: a != b,
    E.Lt: lambda a, b, d: a < b,
    E.Le: lambda a, b, d: a <= b,
    E.Gt: lambda a, b, d: a > b,
    E.Ge: lambda a, b, d: a >= b,
    E.And: lambda a, b, d: bool(a) and bool(b),
    E.Or: lambda a, b, d: bool(a) or bool(b),
    E.Xor: lambda a, b, d: bool(a) != bool(b),
    E.BitAnd: lambda a, b, d: int(a) & int(b),
    E.BitOr: lambda a, b, d: int(a) | int(b),
    E.BitXor: lambda a, b, d: int(a) ^ int(b),
    E.BitShiftLeft: lambda a, b, d: int(a) << _shift_count(b),
    E.BitShiftRight: lambda a, b, d: int(a) >> _shift_count(b),
}

UNARY: dict[type, Callable[[Any, DataType], Any]] = {
    E.Neg: lambda a, d: -a,
    E.BitNot: lambda a, d: ~int(a),
    E.Not: lambda a, d: not a,
    E.Abs: lambda a, d: abs(a),
    E.Cast: lambda a, d: a,
}


def eval_binary(node_type: type, a: Any, b: Any, dtype: DataType) -> Any:
    """Apply the binary node kind ``node_type`` to ``a``, ``b`` and normalise to ``dtype``."""
    return normalize_scalar(BINARY[node_type](a, b, dtype), dtype)


def eval_unary(node_type: type, a: Any, dtype: DataType) -> Any:
    """Apply the unary node kind ``node_type`` to ``a`` and normalise to ``dtype``."""
    return normalize_scalar(UNARY[node_type](a, dtype), dtype)
