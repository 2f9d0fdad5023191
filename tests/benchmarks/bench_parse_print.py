"""Benchmark: parse and print generated programs of 1k, 10k and 50k statements.

Each program has many InCore kernels of ~50 tile statements (loads, elementwise tile ops, a
store) plus an Orchestration function whose loop calls every kernel. Not collected by pytest
(no ``test_`` prefix). Run ``python3 tests/benchmarks/bench_parse_print.py [sizes...]``; it
prints the best wall time over a few runs for ``pl.parse`` of the text and for printing the IR
(each size measured in a fresh interpreter), and the growth ratios. Targets on the reference machine: 10k statements parse in <= 6.9 s and
print in <= 0.35 s, with 10k/1k < 12 and 50k/10k < 6.
"""

from __future__ import annotations

import gc
import itertools
import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context

import pypto.language as pl
from pypto import ir

KERNEL_STATEMENTS = 50
SIZES = (1_000, 10_000, 50_000)

_TENSOR = "pl.Tensor[[64, 64], pl.FP32]"
_TILE = "pl.Tile[[64, 64], pl.FP32]"
_OPS = (
    "pl.add({a}, {b})",
    "pl.mul({a}, 2.0)",
    "pl.sub({a}, {b})",
    "pl.maximum({a}, {b})",
    "pl.exp({a})",
    "pl.tile.adds({a}, 1.0)",
    "pl.mul({a}, {b})",
)


def kernel_text(k: int) -> list[str]:
    """One InCore kernel: 2 loads, ~46 tile ops, a store and a return (50 statements)."""
    lines = [
        "    @pl.function(type=pl.FunctionType.InCore)",
        f"    def kernel_{k}(self, a: {_TENSOR}, b: {_TENSOR}, out: pl.Out[{_TENSOR}]) -> {_TENSOR}:",
        f"        t0: {_TILE} = pl.load(a, [0, 0], [64, 64])",
        f"        t1: {_TILE} = pl.load(b, [0, 0], [64, 64])",
    ]
    for i in range(2, KERNEL_STATEMENTS - 2):
        op = _OPS[(i + k) % len(_OPS)].format(a=f"t{i - 1}", b=f"t{i - 2}")
        lines.append(f"        t{i}: {_TILE} = {op}")
    last = KERNEL_STATEMENTS - 3
    lines.append(f"        r: {_TENSOR} = pl.store(t{last}, [0, 0], out)")
    lines.append("        return r")
    return lines


def program_text(statements: int) -> str:
    """A program of about ``statements`` statements (kernels plus the orchestration loop)."""
    kernels = max(1, round(statements / (KERNEL_STATEMENTS + 1)))
    lines = ["import pypto.language as pl", "", "@pl.program", "class Bench:"]
    for k in range(kernels):
        lines.extend(kernel_text(k))
        lines.append("")
    lines.append("    @pl.function(type=pl.FunctionType.Orchestration)")
    lines.append(f"    def main(self, a: {_TENSOR}, b: {_TENSOR}, out: pl.Out[{_TENSOR}]) -> {_TENSOR}:")
    lines.append("        for i in pl.range(4):")
    for k in range(kernels):
        lines.append(f"            out = self.kernel_{k}(a, b, out)")
    lines.append("        return out")
    return "\n".join(lines) + "\n"


def count_statements(program: ir.Program) -> int:
    """Statements of the program (blocks not counted)."""
    count = 0

    def walk(stmt: ir.Stmt) -> None:
        nonlocal count
        if isinstance(stmt, ir.SeqStmts):
            for s in stmt.stmts:
                walk(s)
            return
        count += 1
        for name in ("body", "then_body", "else_body"):
            child = getattr(stmt, name, None)
            if isinstance(child, ir.Stmt):
                walk(child)

    for func in program.functions.values():
        walk(func.body)
    return count


def best_time(fn: Callable[[], object], runs: int) -> tuple[float, object]:
    """Best wall time of ``runs`` calls (a full collection before each, no result kept alive)."""
    best, result = float("inf"), None
    for _ in range(runs):
        result = None
        gc.collect()
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return best, result


def measure(size: int) -> tuple[int, float, float]:
    """``(statements, parse seconds, print seconds)`` for a program of ``size`` statements."""
    text = program_text(size)
    runs = 5 if size <= 10_000 else 3
    parse_s, program = best_time(lambda: pl.parse(text), runs)
    print_s, _ = best_time(lambda: program.as_python(), runs)
    return count_statements(program), parse_s, print_s


def main(sizes: tuple[int, ...]) -> None:
    """Measure every size in a fresh interpreter, so one size's garbage does not slow the next."""
    parse_times: dict[int, float] = {}
    print_times: dict[int, float] = {}
    print(f"{'statements':>10} {'parse s':>9} {'print s':>9}")
    with ProcessPoolExecutor(max_workers=1, max_tasks_per_child=1, mp_context=get_context("spawn")) as pool:
        for size in sizes:
            statements, parse_s, print_s = pool.submit(measure, size).result()
            parse_times[size], print_times[size] = parse_s, print_s
            print(f"{statements:>10} {parse_s:>9.3f} {print_s:>9.3f}", flush=True)
    for small, big in itertools.pairwise(sizes):
        print(
            f"growth {big}/{small}: parse {parse_times[big] / parse_times[small]:.2f}, "
            f"print {print_times[big] / print_times[small]:.2f}"
        )


if __name__ == "__main__":
    main(tuple(int(a) for a in sys.argv[1:]) or SIZES)
