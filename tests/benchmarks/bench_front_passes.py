"""Benchmark: the seven front passes (surface -> ssa) on generated programs, checks on and off.

Uses the generated programs of ``bench_parse_print.py`` (InCore kernels of ~50 tile statements and
an orchestration loop calling them). Not collected by pytest (no ``test_`` prefix). Run
``python3 tests/benchmarks/bench_front_passes.py [sizes...]``; it prints, for each size, the best
wall time over a few runs of the default pipeline with boundary verification on and off, the
per-pass times of the last checked run, and the growth ratios. Every run starts with cold
analysis caches, so a checked run pays for walking the program. Target: with checks on, 10k
statements in under 1.5 s, and 10k/1k under 12.
"""

from __future__ import annotations

import gc
import itertools
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_parse_print import count_statements, program_text
from pypto.languages.invariants.base import clear_caches

import pypto.language as pl
from pypto import ir, passes

SIZES = (1_000, 10_000, 50_000)
RUNS = 3


def run_once(program: ir.Program, verify: bool) -> tuple[float, passes.TimingInstrument]:
    """Seconds for one cold run of the default pipeline, and its per-pass timings."""
    clear_caches()
    timing = passes.TimingInstrument()
    manager = passes.PassManager.get_strategy(verify=verify, plugins=False)
    gc.collect()
    start = time.perf_counter()
    with passes.PassContext([timing]):
        manager.run(program)
    return time.perf_counter() - start, timing


def best(program: ir.Program, verify: bool) -> tuple[float, passes.TimingInstrument]:
    results = [run_once(program, verify) for _ in range(RUNS)]
    return min(results, key=lambda r: r[0])


def main(sizes: list[int]) -> None:
    checked: dict[int, float] = {}
    for size in sizes:
        program = pl.parse(program_text(size))
        n = count_statements(program)
        on, timing = best(program, True)
        off, _ = best(program, False)
        checked[size] = on
        print(f"{n:>6} statements: surface -> ssa {on:7.3f} s with checks, {off:7.3f} s without")
        print("        " + timing.report().replace("\n", "\n        "))
    for small, large in itertools.pairwise(sizes):
        print(f"growth {large}/{small}: {checked[large] / checked[small]:.2f}")


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or list(SIZES))
