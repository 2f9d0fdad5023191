"""``pl.Out[T]`` and ``pl.InOut[T]``: parameter directions (a plain annotation means In)."""

from __future__ import annotations

from typing import Any

from pypto import ir
from pypto.ir import ParamDirection


class DirectedAnnotation:
    """A parameter type with its direction, as produced by ``pl.Out[T]`` / ``pl.InOut[T]``."""

    __slots__ = ("direction", "type")

    def __init__(self, direction: ParamDirection, type: Any) -> None:
        self.direction = direction
        self.type = type

    def __repr__(self) -> str:
        return f"pl.{self.direction.name}[{self.type}]"


def check_direction(direction: ParamDirection, type: ir.Type) -> None:
    """Scalars cannot be InOut: a scalar is passed by value (TypeError otherwise)."""
    if direction == ParamDirection.InOut and isinstance(type, ir.ScalarType):
        raise TypeError("Scalar parameters cannot be InOut: scalars are passed by value")


class Out:
    """``pl.Out[pl.Tensor[...]]``: a write-only output parameter."""

    direction = ParamDirection.Out

    def __class_getitem__(cls, item: Any) -> DirectedAnnotation:
        return DirectedAnnotation(cls.direction, item)


class InOut:
    """``pl.InOut[pl.Tensor[...]]``: a read-write parameter (not allowed for scalars)."""

    direction = ParamDirection.InOut

    def __class_getitem__(cls, item: Any) -> DirectedAnnotation:
        return DirectedAnnotation(cls.direction, item)
