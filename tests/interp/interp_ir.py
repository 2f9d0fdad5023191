"""Small builders for hand-written IR in the interpreter tests."""

from __future__ import annotations

from typing import Any

from pypto import ir
from pypto.ir import DataType as D

FILE = "prog.py"


def span(line: int) -> ir.Span:
    """A span on ``line`` of the fake source file."""
    return ir.Span(FILE, line, 1)


SP = ir.Span.unknown()


def idx(v: int) -> ir.ConstInt:
    return ir.ConstInt(v, D.INDEX, SP)


def i32(v: int) -> ir.ConstInt:
    return ir.ConstInt(v, D.INT32, SP)


def f32(v: float) -> ir.ConstFloat:
    return ir.ConstFloat(v, D.FP32, SP)


def tup(*values: int | ir.Expr) -> ir.MakeTuple:
    return ir.MakeTuple([idx(v) if isinstance(v, int) else v for v in values], SP)


def tensor_t(shape: list[Any], dtype: D = D.FP32) -> ir.TensorType:
    return ir.TensorType(shape, dtype)


def tile_t(
    shape: list[Any], dtype: D = D.FP32, space: ir.MemorySpace = ir.MemorySpace.Vec, memref: Any = None
) -> ir.TileType:
    return ir.TileType(shape, dtype, memref, None, space)


def scalar_t(dtype: D = D.INDEX) -> ir.ScalarType:
    return ir.ScalarType(dtype)


def var(name: str, t: ir.Type) -> ir.Var:
    return ir.Var(name, t, SP)


def call(op: str, args: list[Any], kwargs: dict[str, Any] | None = None, t: ir.Type | None = None) -> ir.Call:
    args = [idx(a) if isinstance(a, int) and not isinstance(a, bool) else a for a in args]
    if t is None:
        return ir.Call(ir.Op(op), args, kwargs or {}, SP)
    return ir.Call(ir.Op(op), args, kwargs or {}, t, SP)


def assign(v: ir.Var, value: ir.Expr, line: int = -1) -> ir.AssignStmt:
    return ir.AssignStmt(v, value, span(line) if line > 0 else SP)


def seq(*stmts: ir.Stmt) -> ir.SeqStmts:
    return ir.SeqStmts(list(stmts), SP)


def ret(*values: ir.Expr) -> ir.ReturnStmt:
    return ir.ReturnStmt(list(values), SP)


def function(name: str, params: list[Any], returns: list[ir.Type], *stmts: ir.Stmt, **kw: Any) -> ir.Function:
    return ir.Function(name, params, returns, seq(*stmts), SP, **kw)


def op_function(
    op: str, operands: list[Any], kwargs: dict[str, Any] | None = None, result: ir.Type | None = None
) -> ir.Function:
    """``def f(p0, p1, ...): r = op(operands...); return r`` where each Type operand becomes a parameter."""
    params, args = [], []
    for k, operand in enumerate(operands):
        if isinstance(operand, ir.Type):
            p = var(f"p{k}", operand)
            params.append(p)
            args.append(p)
        else:
            args.append(operand)
    r = var("r", result or ir.UnknownType())
    return function("f", params, [r.type], assign(r, call(op, args, kwargs, result)), ret(r))
