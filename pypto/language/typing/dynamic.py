"""Symbolic dimensions: ``N = pl.dynamic("N")`` names a size known only at run time."""

from __future__ import annotations

from pypto import ir
from pypto.ir import DataType


def _operand(value: object) -> object:
    return value.var if isinstance(value, DynVar) else value


class DynVar:
    """A named symbolic dimension. Every use in a shape refers to the same ``ir.Var`` (``.var``).

    Arithmetic with ints or other dimensions gives the scalar expression over ``.var``
    (``pl.Tensor[[N * 2, 64], pl.FP32]``), as in the established API.
    """

    __slots__ = ("name", "var")

    def __init__(self, name: str) -> None:
        if not isinstance(name, str) or not name.isidentifier():
            raise ValueError(f"pl.dynamic: the name must be a Python identifier, got {name!r}")
        self.name = name
        self.var = ir.Var(name, ir.ScalarType(DataType.INDEX))

    def __repr__(self) -> str:
        return f'pl.dynamic("{self.name}")'

    def __ir_expr__(self) -> ir.Var:
        """The IR expression it stands for where a view's extents are built (``pl.TensorView(valid_shape=[M, 64])``)."""
        return self.var

    def __add__(self, other: object) -> ir.Expr:
        return self.var + _operand(other)

    def __radd__(self, other: object) -> ir.Expr:
        return _operand(other) + self.var

    def __sub__(self, other: object) -> ir.Expr:
        return self.var - _operand(other)

    def __rsub__(self, other: object) -> ir.Expr:
        return _operand(other) - self.var

    def __mul__(self, other: object) -> ir.Expr:
        return self.var * _operand(other)

    def __rmul__(self, other: object) -> ir.Expr:
        return _operand(other) * self.var

    def __floordiv__(self, other: object) -> ir.Expr:
        return self.var // _operand(other)

    def __rfloordiv__(self, other: object) -> ir.Expr:
        return _operand(other) // self.var

    def __mod__(self, other: object) -> ir.Expr:
        return self.var % _operand(other)

    def __rmod__(self, other: object) -> ir.Expr:
        return _operand(other) % self.var


def dynamic(name: str) -> DynVar:
    """``pl.dynamic("N")``: a symbolic dimension usable in ``pl.Tensor[[N, 64], ...]`` shapes."""
    return DynVar(name)
