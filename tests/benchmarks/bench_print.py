"""Benchmark: print and concise print of the generated programs, in CPU time.

The programs are those of ``bench_parse_print.py`` (InCore kernels of ~50 tile statements and an
orchestration loop calling them). CPU time (``time.process_time``), not wall time: on a shared
machine it is less disturbed by other processes, though still by their use of the caches, so the
load average is printed beside the table. Not collected by pytest (no ``test_`` prefix). Run
``python3 tests/benchmarks/bench_print.py [--sizes 1000 10000 50000] [--runs 9]``; each size is
measured in a fresh interpreter. Target (issue 15): at 10k statements 7 us per statement or less,
concise too, and 10k/1k growth under 11.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path

import pypto.language as pl

sys.path.insert(0, str(Path(__file__).resolve().parent))

import harness  # noqa: E402
from bench_parse_print import count_statements, program_text  # noqa: E402
from harness import Row  # noqa: E402


def cpu_timed(fn: Callable[[], object], runs: int) -> list[float]:
    """CPU seconds of ``runs`` calls of ``fn``, a full collection before each."""
    times = []
    for _ in range(runs):
        gc.collect()
        start = time.process_time()
        fn()
        times.append(time.process_time() - start)
    return times


def rows(size: int, runs: int) -> list[Row]:
    """Print and concise print of a program of ``size`` statements."""
    program = pl.parse(program_text(size))
    n = count_statements(program)
    return [
        Row("print (as_python), CPU", n, tuple(cpu_timed(program.as_python, runs))),
        Row("print concise, CPU", n, tuple(cpu_timed(lambda: program.as_python(concise=True), runs))),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000, 10_000, 50_000])
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()
    got: list[Row] = []
    loads = [os.getloadavg()[0]]
    with ProcessPoolExecutor(max_workers=1, max_tasks_per_child=1, mp_context=get_context("spawn")) as pool:
        for size in args.sizes:
            got.extend(pool.submit(rows, size, args.runs).result())
            loads.append(os.getloadavg()[0])
    print(harness.table(got))
    print(f"(best and median CPU seconds of {args.runs} runs; 1-minute load average {min(loads):.1f} to {max(loads):.1f})")


if __name__ == "__main__":
    main()
