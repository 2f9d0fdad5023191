"""Benchmark: the seven front passes (surface -> ssa) on generated programs, checks on and off.

Uses the generated programs of ``bench_parse_print.py`` (InCore kernels of ~50 tile statements and
an orchestration loop calling them). Not collected by pytest (no ``test_`` prefix). Run
``python3 tests/benchmarks/bench_front_passes.py [sizes...]``; each size is measured in a fresh
interpreter. For each size it prints the best and the median wall time of several runs of the
default pipeline with boundary verification on and off, the time per statement, and the per-pass
times of the best checked run; the growth lines give the ratio of best times (the figure the
target is about) and, beside it, the ratio of medians and the growth of the time per statement.
Every run starts with cold analysis caches, so a checked run pays for walking the program.
Target: with checks on, 10k statements in under 1.5 s, and 10k/1k under 12.
"""

from __future__ import annotations

import gc
import itertools
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import harness
from bench_parse_print import Figures, count_statements, growth, program_text
from harness import Row
from pypto.languages.invariants.base import clear_caches

import pypto.language as pl
from pypto import ir, passes

SIZES = (1_000, 10_000, 50_000)


def run_once(program: ir.Program, verify: bool) -> tuple[float, str]:
    """Seconds for one cold run of the default pipeline, and its per-pass timing report."""
    clear_caches()
    timing = passes.TimingInstrument()
    manager = passes.PassManager(passes.front_passes(), verify=verify)
    gc.collect()
    start = time.perf_counter()
    with passes.PassContext([timing]):
        manager.run(program)
    return time.perf_counter() - start, timing.report()


def runs(program: ir.Program, verify: bool, count: int) -> tuple[Figures, str]:
    """Best and median of ``count`` runs, and the per-pass report of the best one."""
    results = sorted(run_once(program, verify) for _ in range(count))
    times = [seconds for seconds, _ in results]
    return Figures(times[0], statistics.median(times)), results[0][1]


def measure(size: int) -> tuple[int, Figures, Figures, str]:
    """``(statements, checked, unchecked, per-pass report)`` for a program of ``size`` statements."""
    program = pl.parse(program_text(size))
    count = 7 if size <= 10_000 else 3
    checked, report = runs(program, True, count)
    unchecked, _ = runs(program, False, count)
    return count_statements(program), checked, unchecked, report


def rows(size: int, runs: int) -> list[Row]:
    """``run_all.py``: the front passes with checks on and off, and each pass (with its checks)."""
    program = pl.parse(program_text(size))
    n = count_statements(program)
    checked, per_pass = harness.pipeline_runs(program, passes.front_passes, True, runs)
    unchecked, per_pass_off = harness.pipeline_runs(program, passes.front_passes, False, runs)
    out = [Row("front passes, strict checks", n, tuple(checked)), Row("front passes, no checks", n, tuple(unchecked))]
    for name, times in per_pass.items():
        out.append(Row(f"  {name} (checks)", n, tuple(times)))
        out.append(Row(f"  {name} (no checks)", n, tuple(per_pass_off[name])))
    return out


def main(sizes: list[int]) -> None:
    """Measure every size in a fresh interpreter, so one size's garbage does not slow the next."""
    checked: dict[int, tuple[int, Figures]] = {}
    unchecked: dict[int, tuple[int, Figures]] = {}
    with ProcessPoolExecutor(max_workers=1, max_tasks_per_child=1, mp_context=get_context("spawn")) as pool:
        for size in sizes:
            n, on, off, report = pool.submit(measure, size).result()
            checked[size], unchecked[size] = (n, on), (n, off)
            print(
                f"{n:>6} statements: surface -> ssa {on.best:7.3f} s with checks (median {on.median:.3f}, "
                f"{on.best / n * 1e6:.1f} us/stmt), {off.best:7.3f} s without (median {off.median:.3f}, "
                f"{off.best / n * 1e6:.1f} us/stmt)",
                flush=True,
            )
            print("        " + report.replace("\n", "\n        "))
    for small, large in itertools.pairwise(sizes):
        print(
            f"growth {large}/{small}: {growth('checks on', checked[small], checked[large])}; "
            f"{growth('checks off', unchecked[small], unchecked[large])}"
        )


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or list(SIZES))
