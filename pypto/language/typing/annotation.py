"""Shared machinery of the annotation classes: item checking and unresolved annotations.

``pl.Tensor[...]`` and friends build IR types from their items. Parameter annotations are
evaluated by Python when a decorated function is defined; if the items are not valid there, the
class returns an :class:`UnresolvedAnnotation` instead of raising, and the parser reports the
problem with a source location when it reads the annotation from the syntax tree.
"""

from __future__ import annotations

from typing import Any

from pypto import ir
from pypto.ir import DataType

from .dynamic import DynVar
from .values import Value

# The accepted forms of each annotation kind (the hint of a parser error in its items).
ANNOTATION_FORMS = {
    "Tensor": "pl.Tensor[[d0, d1, ...], dtype] with optional pl.MemRef(...) and a layout (pl.ND, pl.DN, pl.NZ) "
    'or pl.TensorView(...); a dimension is an int or pl.dynamic("name")',
    "Tile": "pl.Tile[[d0, d1, ...], dtype] with optional pl.MemRef(...), pl.Mem.<space> and pl.TileView(...); "
    'a dimension is an int or pl.dynamic("name")',
    "Scalar": "pl.Scalar[dtype], or the bare dtype such as pl.INT64",
    "Array": "pl.Array[extent, dtype] with a static int extent and an integer, BOOL or TASK_ID dtype: "
    "pl.Array[16, pl.INT32]",
    "Tuple": "pl.Tuple[T1, T2] or tuple[T1, T2], each item a type such as pl.Tensor[[64], pl.FP32]",
}


# The older call form of each annotation kind (the hint of an empty call).
_FORM = {"Tensor": "([64, 128], pl.FP32)", "Tile": "([16, 16], pl.FP16)", "Scalar": "(pl.INT64)",
         "Array": "(16, pl.INT32)", "Tuple": "(T1, T2)"}


class UnresolvedAnnotation:
    """An annotation whose items could not be turned into a type (kept for the parser to report)."""

    __slots__ = ("error", "items", "kind")

    def __init__(self, kind: str, items: tuple, error: Exception) -> None:
        self.kind = kind
        self.items = items
        self.error = error

    def __repr__(self) -> str:
        return f"<unresolved pl.{self.kind} annotation: {self.error}>"


class _AnnotationMeta(type):
    """Makes the DSL values of a kind instances of its annotation class, as in the established API:
    ``isinstance(pl.add(a, b), pl.Tensor)`` holds for the wrapper a ``pl.*`` op returns."""

    def __instancecheck__(cls, obj: Any) -> bool:
        own = cls.__dict__.get("value_class")  # a subclass such as pl.RUNTIME's has no values of its own
        return (own is not None and isinstance(obj, own)) or super().__instancecheck__(obj)


class Annotation(metaclass=_AnnotationMeta):
    """Base of the subscriptable annotation classes: ``X[items]`` is ``X.from_items(items)``, or an
    :class:`UnresolvedAnnotation` when the items are invalid (``from_items`` raised TypeError/ValueError).

    Called as values, the established API's forms: ``pl.Tensor(expr=e)`` wraps an ``ir.Expr`` of that
    kind as a DSL value (what ``pl.*`` ops return, also when called outside a function: an instance
    of ``pl.Tensor``), and the older ``pl.Tensor([64, 128], pl.FP32)`` is the type
    ``pl.Tensor[[64, 128], pl.FP32]`` (bad items raise at once).
    """

    kind = ""
    # The ir type class and DSL value class of each kind (set by the subclasses that have values).
    type_class: type | None = None
    value_class: type | None = None

    def __new__(cls, *items: Any, expr: Any = None) -> Any:
        if expr is not None:
            if items:
                raise ir.IRTypeError(f"pl.{cls.kind}(expr=...) takes no other arguments")
            if cls.type_class is None or cls.value_class is None:
                raise ir.IRTypeError(f"pl.{cls.kind} has no value form")
            if not isinstance(expr, ir.Expr) or not isinstance(expr.type, cls.type_class):
                got = f"an expression of type {expr.type}" if isinstance(expr, ir.Expr) else _describe(expr)
                raise ir.IRTypeError(f"pl.{cls.kind}(expr=...) wraps an ir.Expr of {cls.kind} type, got {got}")
            return cls.value_class(expr)
        if not items:
            raise ir.IRTypeError(f"pl.{cls.kind}(...) takes the annotation items, e.g. pl.{cls.kind}{_FORM[cls.kind]}, "
                            "or expr=<ir.Expr>")
        try:
            return cls.from_items(items)
        except (TypeError, ValueError) as err:
            raise ir.IRTypeError(str(err)) from None

    @staticmethod
    def from_items(items: tuple) -> ir.Type:
        """Build the type from the subscript items; every subclass defines it."""
        raise TypeError("Annotation is abstract: use pl.Tensor, pl.Tile, pl.Scalar, ...")

    def __class_getitem__(cls, item: Any) -> ir.Type | UnresolvedAnnotation:
        items = as_items(item)
        try:
            return cls.from_items(items)
        except (TypeError, ValueError) as err:
            return UnresolvedAnnotation(cls.kind, items, err)


def as_items(item: Any) -> tuple:
    """Subscript items as a tuple (``X[a]`` passes ``a``, ``X[a, b]`` passes ``(a, b)``)."""
    return item if isinstance(item, tuple) else (item,)


def check_dtype(value: Any, what: str) -> DataType:
    """``value`` as a DataType or a TypeError naming ``what``."""
    if not isinstance(value, DataType):
        raise TypeError(f"{what}: expected a dtype such as pl.FP32, got {_describe(value)}")
    return value


def dim(value: Any, what: str) -> int | ir.Expr:
    """One shape dimension: an int, a ``pl.dynamic`` variable or an integer scalar expression."""
    if isinstance(value, bool):
        raise TypeError(f"{what}: a shape dimension cannot be a bool")
    if isinstance(value, int):
        return value
    if isinstance(value, DynVar):
        return value.var
    if isinstance(value, Value):
        value = value.unwrap()
    if isinstance(value, ir.Expr):
        t = value.type
        if isinstance(t, ir.ScalarType) and t.dtype.is_int():
            return value
        raise TypeError(f"{what}: a shape dimension must be an integer scalar, got an expression of type {t}")
    raise TypeError(f"{what}: a shape dimension must be an int or pl.dynamic(...), got {_describe(value)}")


def shape(value: Any, what: str) -> list[int | ir.Expr]:
    """A shape list: a list or tuple of dimensions."""
    if not isinstance(value, (list, tuple)):
        raise TypeError(f"{what}: the shape must be a list such as [64, 128], got {_describe(value)}")
    return [dim(v, what) for v in value]


def _describe(value: Any) -> str:
    if isinstance(value, ir.Type):
        return f"type {value}"
    return f"{type(value).__name__} {value!r}" if isinstance(value, (int, float, str)) else type(value).__name__
