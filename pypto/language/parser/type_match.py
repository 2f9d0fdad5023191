"""Does a value's type agree with a declared type? (call arguments, returns, annotated assignments)

The parser compares what the TypeChecked invariant compares: the kind (Scalar, Tensor, Tile,
Array, Tuple ...), the dtype, the rank and every dimension that is static on one side and provably
another constant on the other (:mod:`pypto.ir.affine`: ``c + 128 - (c + 64)`` is 64); a symbolic
dimension (``pl.dynamic``, a DSL variable) otherwise matches any size. INDEX and INT64 scalars are
interchangeable, and a bare literal takes any dtype of its category (int or float). Memory
space, views and MemRefs are not compared: an annotation without them only states the data.
"""

from __future__ import annotations

from pypto import ir
from pypto.ir import ConstInt, DataType
from pypto.ir.affine import affine_difference
from pypto.ir.op_registry import format_dims

_INT_LIKE = frozenset({DataType.INDEX, DataType.INT64})


def kind_name(t: ir.Type) -> str:
    """``Tensor``, ``Tile``, ``Scalar``, ``Array``, ``Tuple`` or the type class's own name."""
    name = _KINDS.get(type(t))
    if name is None:
        name = _KINDS[type(t)] = _kind_name(t)
    return name


_KINDS: dict[type, str] = {}  # type class -> kind_name


def _kind_name(t: ir.Type) -> str:
    for cls, name in (
        (ir.TensorType, "Tensor"),
        (ir.TileType, "Tile"),
        (ir.ScalarType, "Scalar"),
        (ir.ArrayType, "Array"),
        (ir.TupleType, "Tuple"),
    ):
        if isinstance(t, cls):
            return name
    return type(t).__name__.removesuffix("Type")


def _same_dtype(expected: DataType, given: DataType, literal: bool) -> bool:
    if expected == given or {expected, given} <= _INT_LIKE:
        return True
    return literal and expected.is_int() == given.is_int() and expected.is_float() == given.is_float()


def type_mismatch(expected: ir.Type, given: ir.Type, literal: bool = False) -> str | None:
    """How ``given`` disagrees with ``expected`` ("dtype FP16, expected FP32" ...), or None.

    ``literal``: the value is a constant literal, which may take any dtype of its category.
    An unknown type on either side agrees with everything.
    """
    if expected is given:
        return None
    if type(expected) is type(given) and type(expected) in _SHAPED:  # the common case, in short
        if expected.dtype is not given.dtype and not _same_dtype(expected.dtype, given.dtype, False):
            return f"dtype {given.dtype.name}, expected {expected.dtype.name}"
        return _shape_mismatch(expected.shape, given.shape)
    if isinstance(expected, ir.UnknownType) or isinstance(given, ir.UnknownType):
        return None
    if type(expected) is not type(given):
        kind, given_kind = kind_name(expected), kind_name(given)
        if kind != given_kind:
            return f"a {given_kind} where a {kind} is expected"
    if isinstance(expected, ir.TupleType):
        assert isinstance(given, ir.TupleType)
        if len(expected.types) != len(given.types):
            return f"a tuple of {len(given.types)} values, expected {len(expected.types)}"
        for i, (e, g) in enumerate(zip(expected.types, given.types)):
            inner = type_mismatch(e, g)
            if inner is not None:
                return f"tuple element {i}: {inner}"
        return None
    if isinstance(expected, (ir.ScalarType, ir.ShapedType, ir.ArrayType)):
        given_dtype = given.dtype  # type: ignore[attr-defined]
        if not _same_dtype(expected.dtype, given_dtype, literal and isinstance(expected, ir.ScalarType)):
            return f"dtype {given_dtype.name}, expected {expected.dtype.name}"
    if isinstance(expected, (ir.ShapedType, ir.ArrayType)):
        return _shape_mismatch(expected.shape, given.shape)  # type: ignore[attr-defined]
    return None


_SHAPED = frozenset({ir.TensorType, ir.TileType})


def _shape_mismatch(shape: list[ir.Expr], given_shape: list[ir.Expr]) -> str | None:
    if len(shape) != len(given_shape):
        return f"rank {len(given_shape)}, expected {len(shape)}"
    for axis, (e, g) in enumerate(zip(shape, given_shape)):
        # Two symbolic dims are not compared: a callee's pl.dynamic dim is bound anew by each call.
        if e is not g and (isinstance(e, ConstInt) or isinstance(g, ConstInt)) and affine_difference(g, e):
            return f"dimension {axis} is {format_dims([g])[1:-1]}, expected {format_dims([e])[1:-1]}"
    return None


def show_type(t: ir.Type) -> str:
    """A type as its DSL annotation (``pl.Tensor[[64], pl.FP32]``)."""
    return ir.python_print_type(t)
