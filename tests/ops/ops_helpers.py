"""Small constructors shared by the op tests: typed variables and printed-type checks."""

from __future__ import annotations

from pypto import ir


def tensor(name: str, shape: list, dtype: ir.DataType = ir.FP32, view: ir.TensorView | None = None) -> ir.Var:
    return ir.Var(name, ir.TensorType(shape, dtype, None, view))


def tile(name: str, shape: list, dtype: ir.DataType = ir.FP32, space: ir.MemorySpace | None = ir.Mem.Vec,
         view: ir.TileView | None = None) -> ir.Var:
    return ir.Var(name, ir.TileType(shape, dtype, None, view, space))


def scalar(name: str, dtype: ir.DataType = ir.FP32) -> ir.Var:
    return ir.Var(name, ir.ScalarType(dtype))


def printed(expr: ir.Expr) -> str:
    """The printed type of an expression."""
    return str(expr.type)
