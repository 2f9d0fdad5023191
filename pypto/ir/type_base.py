"""The root of the type hierarchy and the types that need no expressions.

Types compare structurally: ``==`` and ``hash`` delegate to :mod:`pypto.ir.structural` (through
:mod:`pypto.ir.hooks`: structural equality builds on the types).
"""

from __future__ import annotations

from typing import ClassVar

from . import hooks
from .node import DType, ModelBase


class Type(ModelBase):
    """Base of every IR type. Printed with ``ir.python_print_type``."""

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Type):
            return NotImplemented
        return hooks.structural_equal(self, other)

    def __hash__(self) -> int:
        return hooks.structural_hash(self)

    def __str__(self) -> str:
        return hooks.print_type(self)

    def __repr__(self) -> str:
        return str(self)

    def __copy__(self) -> Type:
        return self

    def __deepcopy__(self, _memo: dict) -> Type:
        return self


class _SingletonType(Type):
    _instance: ClassVar[Type | None] = None

    @classmethod
    def get(cls) -> Type:
        """The shared instance."""
        if cls.__dict__.get("_instance") is None:
            cls._instance = cls()
        return cls._instance


class UnknownType(_SingletonType):
    """The type of an expression whose type has not been deduced."""


class PtrType(_SingletonType):
    """An allocation token, the base of a MemRef (result of ``tile.alloc``)."""


class MemRefType(_SingletonType):
    """The type of a MemRef variable."""


class ScalarType(Type):
    """A scalar of one element type: ``pl.Scalar[pl.INT64]``."""

    dtype: DType
    _positional = ("dtype",)


class TupleType(Type):
    """An ordered tuple of types: ``pl.Tuple[T1, T2]``."""

    types: list[Type]
    _positional = ("types",)


class WindowBufferType(_SingletonType):
    """Distributed window buffer handle (distributed dialect only)."""


class CommCtxType(_SingletonType):
    """Distributed communication context (distributed dialect only)."""


class PrefetchAsyncContextType(_SingletonType):
    """Context of ``pl.prefetch`` operations."""


class AsyncEventType(_SingletonType):
    """Event returned by ``pl.prefetch.async_prefetch``."""


class AsyncSessionType(_SingletonType):
    """Session of ``pl.prefetch.session``."""
