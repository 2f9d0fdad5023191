"""Benchmark: how deep a program each component outside the passes survives, and what a level costs.

Not collected by pytest (no ``test_`` prefix). Run ``python3 tests/benchmarks/bench_depth.py``. For
four shapes of deep program, built directly in IR,

* ``sum``: ``x + x + ... + x`` (a left spine of additions, n terms),
* ``unary``: ``-(-(...(-x)))`` (n negations),
* ``calls``: ``pl.tensor.add(x, pl.tensor.add(x, ...))`` (n nested op calls),
* ``ifs``: n nested ``if x > k:`` around ``y = x``,

it prints, per component, the Python frames one more level costs (from the smallest recursion limit
at which the component succeeds, at two sizes) and the largest size that succeeds at the default
limit of 1,000 (up to ``CAP``; some minutes in all). Text cannot hold every shape at every size: Python's own
parser allows 200 nested brackets and 100 indentation levels, and builds at most about 3,000
nested operators; ``parse`` parses the printed program, so it fails beyond those limits.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import numpy as np

import pypto.language as pl
from pypto import ir
from pypto.interp import run
from pypto.language.parser.diagnostics import ParserError
from pypto.languages import ssa, surface

CAP = 20_000
I64 = ir.ScalarType(ir.INT64)
TENSOR = ir.TensorType([4], ir.FP32)


def _program(x: ir.Var, stmts: list[ir.Stmt], ret: ir.Type) -> ir.Program:
    func = ir.Function("main", [x], [ret], ir.SeqStmts(stmts))
    return ir.Program([func], "Deep", ir.Span.unknown())


def sum_program(n: int) -> ir.Program:
    x, y = ir.Var("x", I64), ir.Var("y", I64)
    e: ir.Expr = x
    for _ in range(n - 1):
        e = ir.Add(e, x, ir.INT64)
    return _program(x, [ir.AssignStmt(y, e), ir.ReturnStmt([y])], I64)


def unary_program(n: int) -> ir.Program:
    x, y = ir.Var("x", I64), ir.Var("y", I64)
    e: ir.Expr = x
    for _ in range(n):
        e = ir.Neg(e, ir.INT64)
    return _program(x, [ir.AssignStmt(y, e), ir.ReturnStmt([y])], I64)


def calls_program(n: int) -> ir.Program:
    x, y = ir.Var("x", TENSOR), ir.Var("y", TENSOR)
    e: ir.Expr = x
    for _ in range(n):
        e = ir.create_op_call("tensor.add", [x, e], ir.Span.unknown())
    return _program(x, [ir.AssignStmt(y, e), ir.ReturnStmt([y])], TENSOR)


def ifs_program(n: int) -> ir.Program:
    x, y = ir.Var("x", I64), ir.Var("y", I64)
    body: ir.Stmt = ir.AssignStmt(y, x)
    for k in reversed(range(n)):
        body = ir.IfStmt(ir.Gt(x, ir.ConstInt(k, ir.INT64), ir.BOOL), body, None, [])
    return _program(x, [ir.AssignStmt(y, ir.ConstInt(0, ir.INT64)), body, ir.ReturnStmt([y])], I64)


SHAPES: dict[str, tuple[Callable[[int], ir.Program], Any]] = {
    "sum": (sum_program, 3),
    "unary": (unary_program, 3),
    "calls": (calls_program, np.ones(4, np.float32)),
    "ifs": (ifs_program, 10**6),  # greater than every k: the innermost branch runs
}


class _Vars(ir.IRVisitor):
    def visit_var(self, op: ir.Var) -> None:
        """A leaf: nothing to do (the walk itself is measured)."""


COMPONENTS: dict[str, Callable[[ir.Program, Any], object]] = {
    "print": lambda p, x: p.as_python(),
    "print concise": lambda p, x: p.as_python(concise=True),
    "parse": lambda p, x: pl.parse(p.as_python()),
    "structural": lambda p, x: (ir.structural_equal(p, ir.deserialize(ir.serialize(p))), ir.structural_hash(p)),
    "serialize": lambda p, x: ir.deserialize(ir.serialize(p)),
    "surface check": lambda p, x: surface.check(p),
    "ssa check": lambda p, x: ssa.check(p),
    "interpreter": lambda p, x: run(p, x),
    "IRVisitor": lambda p, x: _Vars().visit(p),
    "IRMutator": lambda p, x: ir.IRMutator().visit(p),
}


def succeeds(component: str, shape: str, n: int, limit: int = 1000) -> bool:
    """Whether ``component`` handles the ``shape`` program of size ``n`` at recursion limit ``limit``
    (a fresh program each time: some checks cache per function object)."""
    build, x = SHAPES[shape]
    program = build(n)
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(limit)
    try:
        COMPONENTS[component](program, x)
        return True
    except (RecursionError, ParserError):
        return False
    finally:
        sys.setrecursionlimit(old)


def limit_needed(component: str, shape: str, n: int) -> int:
    """The smallest recursion limit at which ``component`` handles size ``n`` (bisection)."""
    lo, hi = 50, 4000
    if not succeeds(component, shape, n, hi):
        return -1
    while lo < hi:
        mid = (lo + hi) // 2
        if succeeds(component, shape, n, mid):
            hi = mid
        else:
            lo = mid + 1
    return lo


def largest(component: str, shape: str) -> str:
    """The largest size up to CAP that succeeds at the default limit (doubling from 10, then
    bisection between the last success and the first failure)."""
    good, bad = 0, 10
    while bad <= CAP and succeeds(component, shape, bad):
        good, bad = bad, bad * 2
    if bad > CAP:
        return f">= {good}"
    while bad - good > 1:
        mid = (good + bad) // 2
        good, bad = (mid, bad) if succeeds(component, shape, mid) else (good, mid)
    return str(good)


def main() -> None:
    print(f"{'component':15} {'shape':6} {'frames/level':>12} {'largest at limit 1000':>22}")
    for shape in SHAPES:
        for component in COMPONENTS:
            a, b = limit_needed(component, shape, 20), limit_needed(component, shape, 60)
            per_level = f"{(b - a) / 40:.1f}" if a > 0 and b > 0 else "-"
            print(f"{component:15} {shape:6} {per_level:>12} {largest(component, shape):>22}", flush=True)


if __name__ == "__main__":
    main()
