"""Meaning of the scalar expression nodes (``Add``, ``Lt``, ``Cast``, ...) on Python scalars.

Each function takes already-evaluated operands and the node's dtype; the result is normalised to that
dtype (integers wrap, floats round). ``And``/``Or`` evaluate both operands (the IR has no
short-circuit). Integer division or modulo by zero, a negative integer exponent and a negative shift
count are an ``OpError``; float arithmetic follows IEEE (division by zero gives inf/nan).

This is the one definition of scalar semantics: the reference interpreter evaluates with
:func:`eval_binary` / :func:`eval_unary`, and the Simplify pass folds constants with
:func:`fold_binary` / :func:`fold_unary` / :func:`constant_value`, so folding cannot disagree with
execution. It lives with the IR, below both, so that a compile folds constants without loading the
interpreter and its op semantics.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from pypto.ir import expr as E
from pypto.ir.datatype import DataType

from .numpy_dtypes import normalize_scalar
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
        q = _true_div(a, b, dtype)
        return math.floor(q) if math.isfinite(q) else q
    _int_div_check(b, dtype, "floor division")
    return a // b


def _floor_mod(a: Any, b: Any, dtype: DataType) -> Any:
    if dtype.is_float():
        return a % b if b != 0 else math.nan
    _int_div_check(b, dtype, "modulo")
    return a % b


def _pow(a: Any, b: Any, dtype: DataType) -> Any:
    if dtype.is_float():
        # IEEE pow: overflow is inf and a negative base with a fractional exponent nan (Python's
        # float ** raises or goes complex instead).
        with np.errstate(all="ignore"):
            return float(np.power(np.float64(a), np.float64(b)))
    if b < 0:
        # The real power truncated towards zero, as the generated C++ computes it.
        if a == 0:
            raise OpError(f"0 cannot be raised to the negative power {b}")
        return 1 if a == 1 else (-1 if b % 2 else 1) if a == -1 else 0
    if dtype.is_int():
        # The result wraps to the dtype's width anyway; modular pow stays fast for huge exponents.
        return pow(int(a), int(b), 1 << dtype.get_bit())
    return a**b


def _shift_count(b: Any, dtype: DataType) -> int:
    if b < 0:
        raise OpError(f"negative shift count {b}")
    # Shifting by the width or more leaves only zero bits once wrapped: cap the count.
    return min(int(b), dtype.get_bit()) if dtype.is_int() else int(b)


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
    E.BitShiftLeft: lambda a, b, d: int(a) << _shift_count(b, d),
    E.BitShiftRight: lambda a, b, d: int(a) >> _shift_count(b, d),
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


# Float dtypes whose constants are folded; FP8/FP4/HF* are left to run time.
_FOLDED_FLOATS = frozenset({DataType.FP32, DataType.FP16, DataType.BF16})


def _folded(dtype: DataType) -> bool:
    return dtype.is_bool() or dtype.is_int() or dtype in _FOLDED_FLOATS


def constant_value(e: E.Expr) -> Any:
    """The value constant ``e`` holds as its dtype computes it (ints wrapped, floats rounded).

    None when ``e`` is not a constant or its dtype is not folded (FP8, FP4, HF*, task ids).
    """
    if isinstance(e, E.ConstBool):
        return e.value
    if isinstance(e, E.ConstInt) and e.dtype.is_int() or isinstance(e, E.ConstFloat) and e.dtype in _FOLDED_FLOATS:
        return normalize_scalar(e.value, e.dtype)
    return None


def _finite(value: Any) -> Any:
    """``value`` unless it is a non-finite float (no constant literal spells inf or nan)."""
    return value if not isinstance(value, float) or math.isfinite(value) else None


def fold_binary(node_type: type, a: Any, b: Any, dtype: DataType) -> Any:
    """:func:`eval_binary` at compile time: None where it raises, the dtype is not folded or the
    result is inf/nan."""
    if not _folded(dtype):
        return None
    try:
        return _finite(eval_binary(node_type, a, b, dtype))
    except OpError:
        return None


def fold_unary(node_type: type, a: Any, dtype: DataType) -> Any:
    """:func:`eval_unary` at compile time: None where it raises, the dtype is not folded or the
    result is inf/nan."""
    if not _folded(dtype):
        return None
    try:
        return _finite(eval_unary(node_type, a, dtype))
    except OpError:
        return None
