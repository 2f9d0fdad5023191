"""Argument normalisation used by the IR builders (docs/ops.md#arguments).

Each normaliser takes the raw builder value plus the other bound builder arguments and returns
what the op stores: Python lists become ``MakeTuple``s of INDEX constants, scalar operands are
re-typed against the paired tensor/tile dtype, and so on. Values a normaliser does not recognise
are passed through unchanged so that the registry reports the kind mismatch.
"""

from __future__ import annotations

from typing import Any, Callable

from ..datatype import DataType
from ..expr import Cast, ConstBool, ConstFloat, ConstInt, Expr, MakeTuple
from ..numpy_dtypes import normalize_scalar
from ..type_base import ScalarType

Normalizer = Callable[[Any, dict[str, Any]], Any]


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _index_item(v: Any) -> Any:
    return ConstInt(int(v), DataType.INDEX) if _is_int(v) else v


def to_tuple(value: Any, bound: dict[str, Any]) -> Any:
    """``[a, b]`` / ``(a, b)`` -> ``MakeTuple`` (ints become INDEX constants)."""
    if isinstance(value, (list, tuple)):
        return MakeTuple([_index_item(v) for v in value])
    return value


def to_tuple_or_single(value: Any, bound: dict[str, Any]) -> Any:
    """Like :func:`to_tuple`, but a single int or scalar Expr becomes a one-element tuple."""
    if _is_int(value) or (isinstance(value, Expr) and isinstance(value.type, ScalarType)):
        return MakeTuple([_index_item(value)])
    return to_tuple(value, bound)


def to_index(value: Any, bound: dict[str, Any]) -> Any:
    """An int becomes ``ConstInt(v, INDEX)``."""
    return _index_item(value)


def const_of(dtype: DataType) -> Normalizer:
    """An int becomes ``ConstInt(v, dtype)``."""

    def norm(value: Any, bound: dict[str, Any]) -> Any:
        return ConstInt(int(value), dtype) if _is_int(value) else value

    return norm


def to_bool(value: Any, bound: dict[str, Any]) -> Any:
    """A bool becomes ``ConstBool``."""
    return ConstBool(value) if isinstance(value, bool) else value


def element_dtype(value: Any) -> DataType | None:
    """The element dtype of a tensor/tile/array-typed expression, else None."""
    t = getattr(value, "type", None)
    dtype = getattr(t, "dtype", None)
    return dtype if isinstance(dtype, DataType) and not isinstance(t, ScalarType) else None


def retype_scalar(value: Any, dtype: DataType | None, bitwise: bool = False) -> Any:
    """Normalise a scalar operand against the paired element dtype (docs/ops.md#arguments).

    Python numbers and INDEX constants take ``dtype`` (docs/ops.md#arguments: ``muls(fp16_tensor, 0.5)`` is
    FP16), ints wrapped to its width when it is an integer type (``adds(int8_tile, 300)`` adds 44, as
    the target's scalar register would); a float paired with an integer dtype is an FP32 constant, so
    the result promotes; typed non-INDEX expressions are kept; a non-constant INDEX scalar is rejected.
    """
    if isinstance(value, bool):
        return ConstBool(value)
    if isinstance(value, ConstInt) and value.dtype == DataType.INDEX:
        value = value.value
    if isinstance(value, (int, float)):
        target = dtype if dtype is not None else (DataType.INT32 if bitwise else DataType.FP32)
        if isinstance(value, float) and not target.is_float():
            return ConstFloat(value, DataType.FP32)
        if target.is_float():
            return ConstFloat(float(value), target)
        return ConstInt(normalize_scalar(value, target) if target.is_int() else int(value), target)
    if isinstance(value, Expr) and isinstance(value.type, ScalarType) and value.type.dtype == DataType.INDEX:
        raise ValueError(
            "Scalar operand has dtype `index`; element-wise ops need a typed scalar. "
            "Convert it explicitly, e.g. pl.cast(<value>, pl.INT32)"
        )
    return value


def scalar_for(pair: str | None, bitwise: bool = False) -> Normalizer:
    """Normaliser of a scalar operand paired with parameter ``pair``'s element dtype."""

    def norm(value: Any, bound: dict[str, Any]) -> Any:
        dtype = element_dtype(bound.get(pair)) if pair is not None else None
        return retype_scalar(value, dtype, bitwise)

    return norm


def write_value(pair: str) -> Normalizer:
    """``write``'s value: an INDEX scalar (a loop variable, ``dim``) written into an integer tensor or
    tile ``pair`` is cast to its dtype, as the established API accepts it; anything else is normalised
    as a scalar operand."""
    scalar = scalar_for(pair)

    def norm(value: Any, bound: dict[str, Any]) -> Any:
        dtype = element_dtype(bound.get(pair))
        if (isinstance(value, Expr) and not isinstance(value, ConstInt) and isinstance(value.type, ScalarType)
                and value.type.dtype == DataType.INDEX and dtype is not None and dtype.is_int()):
            return value if dtype == DataType.INDEX else Cast(value, dtype, value.span)
        return scalar(value, bound)

    return norm


def value_of_kwarg_dtype(key: str) -> Normalizer:
    """A number (or constant) becomes a constant of the dtype in keyword ``key`` (``full``'s value)."""

    def norm(value: Any, bound: dict[str, Any]) -> Any:
        dtype = bound.get(key)
        if _is_int(dtype):
            dtype = DataType(dtype)
        if isinstance(value, (ConstInt, ConstFloat)):
            value = value.value
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not isinstance(dtype, DataType):
            return value
        if dtype.is_float():
            return ConstFloat(float(value), dtype)
        if isinstance(value, float) and not value.is_integer():
            return ConstFloat(value, DataType.FP32)  # deduction reports the mismatch
        return ConstInt(int(value), dtype)

    return norm
