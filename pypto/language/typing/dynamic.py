"""Symbolic dimensions: ``N = pl.dynamic("N")`` names a size known only at run time."""

from __future__ import annotations

from pypto import ir
from pypto.ir import DataType


class DynVar:
    """A named symbolic dimension. Every use in a shape refers to the same ``ir.Var`` (``.var``)."""

    __slots__ = ("name", "var")

    def __init__(self, name: str) -> None:
        if not isinstance(name, str) or not name.isidentifier():
            raise ValueError(f"pl.dynamic: the name must be a Python identifier, got {name!r}")
        self.name = name
        self.var = ir.Var(name, ir.ScalarType(DataType.INDEX))

    def __repr__(self) -> str:
        return f'pl.dynamic("{self.name}")'


def dynamic(name: str) -> DynVar:
    """``pl.dynamic("N")``: a symbolic dimension usable in ``pl.Tensor[[N, 64], ...]`` shapes."""
    return DynVar(name)
