"""Benchmark: print a generated program of 10k statements (built directly in IR).

Not collected by pytest (no ``test_`` prefix). Run ``python3 tests/benchmarks/bench_printer.py``;
it prints the best wall time in seconds over a few runs (target: well under 0.35 s).
"""

from __future__ import annotations

import sys
import time

from pypto import ir

STATEMENTS = 10_000


def build_program(statements: int = STATEMENTS) -> ir.Program:
    """One function with a loop-heavy mix of assignments, calls, scalar arithmetic and yields."""
    span = ir.Span.unknown()
    index = ir.ScalarType(ir.INDEX)
    n = ir.Var("N", index)
    tile_t = ir.TensorType([n, 128], ir.FP32)
    x = ir.Var("x", tile_t)
    out = ir.Var("out", tile_t)
    stmts: list[ir.Stmt] = []
    count = 0
    acc_init = ir.Var("acc", tile_t)
    stmts.append(ir.AssignStmt(acc_init, ir.Call(ir.Op("tensor.add"), [x, x], tile_t), span))
    prev = acc_init
    while count < statements:
        i = ir.Var("i", index)
        carried = ir.IterArg("acc", tile_t, prev)
        body: list[ir.Stmt] = []
        cur: ir.Expr = carried
        for k in range(8):
            s = ir.Var("s", index)
            body.append(ir.AssignStmt(s, ir.Add(ir.Mul(i, ir.ConstInt(k, ir.INDEX), ir.INDEX), n, ir.INDEX), span))
            t_type = ir.TensorType([n, 128], ir.FP32)  # a fresh type object, as a parser would build
            t = ir.Var("t", t_type)
            body.append(ir.AssignStmt(t, ir.Call(ir.Op("tensor.muls"), [cur, ir.ConstFloat(0.5, ir.FP32)], t_type), span))
            cur = t
        body.append(ir.YieldStmt([cur], span))
        result = ir.Var("acc", tile_t)
        loop = ir.ForStmt(i, 0, n, 1, [carried], ir.SeqStmts(body, span), [result], span)
        stmts.append(loop)
        prev = result
        count += len(body) + 1
    stmts.append(ir.ReturnStmt([prev], span))
    func = ir.Function("main", [x, (out, ir.ParamDirection.Out)], [tile_t], ir.SeqStmts(stmts, span), span)
    return ir.Program([func], "bench", span)


def main() -> None:
    program = build_program()
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        text = ir.python_print(program)
        best = min(best, time.perf_counter() - start)
    lines = text.count("\n") + 1
    sys.stdout.write(f"printed {lines} lines ({STATEMENTS} statements) in {best:.3f} s\n")


if __name__ == "__main__":
    main()
