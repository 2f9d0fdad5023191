"""DSL value wrappers: what ``pl.*`` op functions take and return inside ``@pl.function``.

A wrapper holds one IR expression (``.unwrap()``). The class says what kind of value it is:
``Tensor`` (TensorType), ``Tile`` (TileType), ``Scalar`` (ScalarType), ``Array`` (ArrayType).
Op functions accept wrappers, raw ``ir.Expr`` and Python numbers/lists, and return wrappers.
"""

from __future__ import annotations

from typing import Any

from pypto import ir


class Value:
    """Base of the DSL value wrappers."""

    __slots__ = ("_expr",)

    def __init__(self, expr: ir.Expr) -> None:
        if not isinstance(expr, ir.Expr):
            raise TypeError(f"{type(self).__name__} wraps an ir.Expr, got {type(expr).__name__}")
        self._expr = expr

    def unwrap(self) -> ir.Expr:
        """The wrapped IR expression."""
        return self._expr

    @property
    def type(self) -> ir.Type:
        return self._expr.type

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._expr.as_python()})"


class TensorValue(Value):
    """A tensor-typed DSL value."""


class TileValue(Value):
    """A tile-typed DSL value."""


class ScalarValue(Value):
    """A scalar-typed DSL value."""


class ArrayValue(Value):
    """An array-typed DSL value."""


def wrap(expr: ir.Expr) -> Any:
    """Wrap ``expr`` in the value class matching its type (other types are returned unwrapped)."""
    t = expr.type
    if isinstance(t, ir.TensorType):
        return TensorValue(expr)
    if isinstance(t, ir.TileType):
        return TileValue(expr)
    if isinstance(t, ir.ScalarType):
        return ScalarValue(expr)
    if isinstance(t, ir.ArrayType):
        return ArrayValue(expr)
    return expr


def unwrap(value: Any) -> Any:
    """The IR expression inside a wrapper; anything else unchanged (lists unwrapped element-wise)."""
    if isinstance(value, Value):
        return value.unwrap()
    if isinstance(value, list):
        return [unwrap(v) for v in value]
    if isinstance(value, tuple):
        return tuple(unwrap(v) for v in value)
    return value
