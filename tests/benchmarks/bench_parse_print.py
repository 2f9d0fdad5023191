"""Benchmark: parse and print generated programs of 1k, 10k and 50k statements.

Each program has many InCore kernels of ~50 tile statements (loads, elementwise tile ops, a
store) plus an Orchestration function whose loop calls every kernel. Not collected by pytest
(no ``test_`` prefix). Run ``python3 tests/benchmarks/bench_parse_print.py [sizes...]``; each size
is measured in a fresh interpreter, and for ``pl.parse`` of the text and for printing the IR it
prints the best and the median wall time of several runs and the best time per statement. The
growth lines give the ratio of best times (the figure the targets are about) and, beside it, the
ratio of medians and the growth of the time per statement (the sizes are not exact multiples).
Targets on the reference machine: 10k statements parse in <= 6.9 s and print in <= 0.35 s, with
10k/1k < 12 and 50k/10k < 6.

The work per statement is the same at every size (cProfile call counts and cachegrind instruction
counts grow with the statement count); the time per statement still grows where the program
stops fitting in the CPU caches, on this machine between 1k and 10k statements.
"""

from __future__ import annotations

import gc
import itertools
import statistics
import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from multiprocessing import get_context
from pathlib import Path

import pypto.language as pl
from pypto import ir

sys.path.insert(0, str(Path(__file__).resolve().parent))

import harness  # noqa: E402
from harness import Row  # noqa: E402

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


def timed(fn: Callable[[], object], runs: int) -> tuple[list[float], object]:
    """Sorted wall times of ``runs`` calls (a full collection before each, no result kept alive)."""
    times, result = [], None
    for _ in range(runs):
        result = None
        gc.collect()
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return sorted(times), result


@dataclass(frozen=True)
class Figures:
    """Best and median seconds of one measurement."""

    best: float
    median: float

    @classmethod
    def of(cls, times: list[float]) -> Figures:
        return cls(times[0], statistics.median(times))


def measure(size: int) -> tuple[int, Figures, Figures]:
    """``(statements, parse, print)`` for a program of ``size`` statements."""
    text = program_text(size)
    runs = 7 if size <= 10_000 else 3
    parse_times, program = timed(lambda: pl.parse(text), runs)
    print_times, _ = timed(lambda: program.as_python(), runs)
    return count_statements(program), Figures.of(parse_times), Figures.of(print_times)


def rows(size: int, runs: int) -> list[Row]:
    """``run_all.py``: parse, print and concise print of a program of ``size`` statements."""
    text = program_text(size)
    program = pl.parse(text)
    n = count_statements(program)
    return [
        Row("parse (pl.parse)", n, tuple(harness.timed(lambda: pl.parse(text), runs))),
        Row("print (as_python)", n, tuple(harness.timed(program.as_python, runs))),
        Row("print concise", n, tuple(harness.timed(lambda: program.as_python(concise=True), runs))),
    ]


def growth(name: str, small: tuple[int, Figures], big: tuple[int, Figures]) -> str:
    """``name best-ratio (median m, per statement p)`` for two sizes."""
    (n_small, f_small), (n_big, f_big) = small, big
    per_statement = (f_big.best / n_big) / (f_small.best / n_small)
    return (
        f"{name} {f_big.best / f_small.best:.2f} (median {f_big.median / f_small.median:.2f}, "
        f"per statement x{per_statement:.2f})"
    )


def main(sizes: tuple[int, ...]) -> None:
    """Measure every size in a fresh interpreter, so one size's garbage does not slow the next."""
    parse: dict[int, tuple[int, Figures]] = {}
    printing: dict[int, tuple[int, Figures]] = {}
    print(f"{'statements':>10} {'parse s':>9} {'median':>9} {'us/stmt':>8} {'print s':>9} {'median':>9} {'us/stmt':>8}")
    with ProcessPoolExecutor(max_workers=1, max_tasks_per_child=1, mp_context=get_context("spawn")) as pool:
        for size in sizes:
            n, parse_f, print_f = pool.submit(measure, size).result()
            parse[size], printing[size] = (n, parse_f), (n, print_f)
            print(
                f"{n:>10} {parse_f.best:>9.3f} {parse_f.median:>9.3f} {parse_f.best / n * 1e6:>8.1f} "
                f"{print_f.best:>9.3f} {print_f.median:>9.3f} {print_f.best / n * 1e6:>8.2f}",
                flush=True,
            )
    for small, big in itertools.pairwise(sizes):
        print(
            f"growth {big}/{small}: {growth('parse', parse[small], parse[big])}; "
            f"{growth('print', printing[small], printing[big])}"
        )


if __name__ == "__main__":
    main(tuple(int(a) for a in sys.argv[1:]) or SIZES)
