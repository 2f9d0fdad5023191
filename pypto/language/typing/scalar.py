"""``pl.Scalar[dtype]``, ``pl.Array[extent, dtype]`` and ``pl.Tuple[T1, T2]`` annotations."""

from __future__ import annotations

from pypto import ir

from .values import ScalarValue, ArrayValue
from .annotation import Annotation, check_dtype


class Scalar(Annotation):
    """``pl.Scalar[pl.INT64]``: a scalar value (a bare dtype such as ``pl.INT64`` means the same)."""

    kind = "Scalar"
    type_class = ir.ScalarType
    value_class = ScalarValue

    @staticmethod
    def from_items(items: tuple) -> ir.ScalarType:
        """Build the type from the subscript items; TypeError on bad items."""
        if len(items) != 1:
            raise TypeError(f"pl.Scalar takes exactly one dtype, got {len(items)} items")
        return ir.ScalarType(check_dtype(items[0], "pl.Scalar"))


class Array(Annotation):
    """``pl.Array[16, pl.INT32]``: an on-core array of integers, BOOL or TASK_ID."""

    kind = "Array"
    type_class = ir.ArrayType
    value_class = ArrayValue

    @staticmethod
    def from_items(items: tuple) -> ir.ArrayType:
        """Build the type from the subscript items; TypeError/ValueError on bad items."""
        if len(items) != 2:
            raise TypeError("pl.Array takes an extent and a dtype: pl.Array[16, pl.INT32]")
        extent, dtype = items
        if isinstance(extent, ir.ConstInt):
            extent = extent.value
        if isinstance(extent, bool) or not isinstance(extent, int):
            raise TypeError(f"pl.Array: the extent must be a static int, got {type(extent).__name__}")
        return ir.ArrayType(check_dtype(dtype, "pl.Array"), extent)


class Tuple(Annotation):
    """``pl.Tuple[T1, T2]`` (``pl.Tuple[()]`` for the empty tuple)."""

    kind = "Tuple"

    @staticmethod
    def from_items(items: tuple) -> ir.TupleType:
        """Build the type from the subscript items; TypeError on bad items."""
        if items == ((),):
            items = ()
        types = []
        for item in items:
            if not isinstance(item, ir.Type):
                item = ir.ScalarType(check_dtype(item, "pl.Tuple"))
            types.append(item)
        return ir.TupleType(types)


class RuntimeScalarMarker(Scalar):
    """``pl.RUNTIME``: a ``@pl.jit`` scalar left unspecialised (a run-time parameter), accepted only
    as a keyword or default of ``.compile()`` / ``.lower()`` without sample arguments."""

    dtype = None

    def __new__(cls) -> RuntimeScalarMarker:
        return object.__new__(cls)

    def __repr__(self) -> str:
        return "pl.RUNTIME"

    def _no_value(self, *_: object) -> None:
        raise RuntimeError("pl.RUNTIME marks a run-time scalar parameter; it has no value to compute with")

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = __floordiv__ = _no_value


RUNTIME = RuntimeScalarMarker()
