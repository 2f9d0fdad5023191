"""Interpreter throughput: elements per second for a 256x256 tile add and a 128x128x128 matmul.

Run with ``python3 tests/benchmarks/bench_interp.py``. Each program is run repeatedly on fixed
inputs; the best time per run is reported with the number of output elements it produced per
second (and, for the matmul, multiply-accumulates per second).
"""

from __future__ import annotations

import time
from typing import Any, Callable

import numpy as np

from pypto import ir
from pypto.interp import run
from pypto.ir import DataType as D

SP = ir.Span.unknown()


def _idx(*values: int) -> ir.MakeTuple:
    return ir.MakeTuple([ir.ConstInt(v, D.INDEX, SP) for v in values], SP)


def _call(op: str, args: list[ir.Expr], kwargs: dict[str, Any], t: ir.Type) -> ir.Call:
    return ir.Call(ir.Op(op), args, kwargs, t, SP)


def tile_add_program(n: int) -> ir.Function:
    """``out = a + b`` on one ``n x n`` FP32 tile: two loads, an add, a store."""
    tt = ir.TensorType([n, n], D.FP32)
    vt = ir.TileType([n, n], D.FP32, None, None, ir.MemorySpace.Vec)
    a, b, out = ir.Var("a", tt, SP), ir.Var("b", tt, SP), ir.Var("out", tt, SP)
    ta, tb, tc, r = ir.Var("ta", vt, SP), ir.Var("tb", vt, SP), ir.Var("tc", vt, SP), ir.Var("r", tt, SP)
    vec = {"target_memory": ir.MemorySpace.Vec}
    body = ir.SeqStmts(
        [
            ir.AssignStmt(ta, _call("tile.load", [a, _idx(0, 0), _idx(n, n), _idx(n, n)], vec, vt), SP),
            ir.AssignStmt(tb, _call("tile.load", [b, _idx(0, 0), _idx(n, n), _idx(n, n)], vec, vt), SP),
            ir.AssignStmt(tc, _call("tile.add", [ta, tb], {}, vt), SP),
            ir.AssignStmt(r, _call("tile.store", [tc, _idx(0, 0), out], {}, tt), SP),
            ir.ReturnStmt([r], SP),
        ],
        SP,
    )
    return ir.Function("tile_add", [a, b, (out, ir.ParamDirection.Out)], [tt], body, SP, type=ir.FunctionType.InCore)


def matmul_program(m: int, k: int, n: int) -> ir.Function:
    """``out = a @ b``: FP16 loads to Mat, moves to Left/Right, an FP32 Acc matmul, a store."""
    at, bt, ot = ir.TensorType([m, k], D.FP16), ir.TensorType([k, n], D.FP16), ir.TensorType([m, n], D.FP32)
    S = ir.MemorySpace

    def tile(shape: list[int], dtype: D, space: ir.MemorySpace) -> ir.TileType:
        return ir.TileType(shape, dtype, None, None, space)

    a, b, out = ir.Var("a", at, SP), ir.Var("b", bt, SP), ir.Var("out", ot, SP)
    a_mat, b_mat = ir.Var("a_mat", tile([m, k], D.FP16, S.Mat), SP), ir.Var("b_mat", tile([k, n], D.FP16, S.Mat), SP)
    a_l, b_r = ir.Var("a_l", tile([m, k], D.FP16, S.Left), SP), ir.Var("b_r", tile([k, n], D.FP16, S.Right), SP)
    c = ir.Var("c", tile([m, n], D.FP32, S.Acc), SP)
    r = ir.Var("r", ot, SP)
    mat = {"target_memory": S.Mat}
    body = ir.SeqStmts(
        [
            ir.AssignStmt(a_mat, _call("tile.load", [a, _idx(0, 0), _idx(m, k), _idx(m, k)], mat, a_mat.type), SP),
            ir.AssignStmt(b_mat, _call("tile.load", [b, _idx(0, 0), _idx(k, n), _idx(k, n)], mat, b_mat.type), SP),
            ir.AssignStmt(a_l, _call("tile.move", [a_mat], {"target_memory": S.Left}, a_l.type), SP),
            ir.AssignStmt(b_r, _call("tile.move", [b_mat], {"target_memory": S.Right}, b_r.type), SP),
            ir.AssignStmt(c, _call("tile.matmul", [a_l, b_r], {}, c.type), SP),
            ir.AssignStmt(r, _call("tile.store", [c, _idx(0, 0), out], {}, ot), SP),
            ir.ReturnStmt([r], SP),
        ],
        SP,
    )
    return ir.Function("matmul", [a, b, (out, ir.ParamDirection.Out)], [ot], body, SP, type=ir.FunctionType.InCore)


def best_time(fn: Callable[[], Any], min_seconds: float = 1.0) -> tuple[float, int]:
    """Best wall time of one call over repeated calls lasting at least ``min_seconds``; and the count."""
    best, count, start = float("inf"), 0, time.perf_counter()
    while count < 5 or time.perf_counter() - start < min_seconds:
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
        count += 1
    return best, count


def main() -> None:
    rng = np.random.default_rng(0)
    n = 256
    add = tile_add_program(n)
    xa, xb = rng.random((n, n), dtype=np.float32), rng.random((n, n), dtype=np.float32)
    zeros = np.zeros((n, n), np.float32)
    assert np.array_equal(run(add, xa, xb, zeros).value, xa + xb)
    t, count = best_time(lambda: run(add, xa, xb, zeros))
    print(f"tile add {n}x{n}: {t * 1e3:.3f} ms/run over {count} runs, {n * n / t:,.0f} elements/s")

    m = k = nn = 128
    mm = matmul_program(m, k, nn)
    ma, mb = rng.random((m, k)).astype(np.float16), rng.random((k, nn)).astype(np.float16)
    mzeros = np.zeros((m, nn), np.float32)
    ref = ma.astype(np.float64) @ mb.astype(np.float64)
    assert np.allclose(run(mm, ma, mb, mzeros).value, ref, rtol=1e-5)
    t, count = best_time(lambda: run(mm, ma, mb, mzeros))
    print(
        f"matmul {m}x{k}x{nn}: {t * 1e3:.3f} ms/run over {count} runs, {m * nn / t:,.0f} output elements/s, "
        f"{m * k * nn / t:,.0f} multiply-accumulates/s"
    )


if __name__ == "__main__":
    main()
