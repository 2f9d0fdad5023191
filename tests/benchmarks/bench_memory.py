"""Benchmark: memory across repeated compiles (does the IR of earlier runs stay alive?).

Two workloads, each after one warm-up run: ``ir.compile`` of each small example of
``bench_compile`` (parsed once, no dumps, each tree removed after its compile), and parse plus the
checked front passes of the generated program of ``bench_parse_print``. For each it prints the
resident set size before and after ``N`` runs, the growth of traced memory (``tracemalloc``, over
a second, shorter loop: tracing slows every allocation) and the gc objects and IR nodes still
alive after a collection, per run. Memory that does not grow across runs shows as a flat RSS and
close to zero objects per run. Not collected by pytest. Run ``python3
tests/benchmarks/bench_memory.py [--compiles 300] [--runs 30] [--size 1000]``; for an A/B run it
with another checkout's interpreter (``/path/to/other/.venv/bin/python
tests/benchmarks/bench_memory.py``): it measures the pypto that interpreter imports.
"""

from __future__ import annotations

import argparse
import gc
import shutil
import sys
import tempfile
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_compile import EXAMPLES, SMALL
from bench_parse_print import program_text

import pypto.language as pl
from pypto import ir, passes


@dataclass(frozen=True)
class Growth:
    """What ``runs`` repetitions of one workload left behind."""

    workload: str
    runs: int
    rss_before: float  # MB
    rss_after: float
    traced_runs: int
    traced_kb_per_run: float
    objects_per_run: float
    ir_nodes_alive: int

    def line(self) -> str:
        return (
            f"| {self.workload} | {self.runs} | {self.rss_before:.1f} -> {self.rss_after:.1f} | "
            f"{self.traced_kb_per_run:.1f} | {self.objects_per_run:.0f} | {self.ir_nodes_alive} |"
        )


HEADER = (
    "| workload | runs | RSS MB before -> after | traced KB per run | gc objects per run | IR nodes alive |",
    "|---|---|---|---|---|---|",
)


def rss_mb() -> float:
    """The current resident set size in MB (Linux ``/proc``)."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS in /proc/self/status")


def ir_nodes_alive() -> int:
    """IR nodes reachable after a full collection."""
    gc.collect()
    return sum(1 for o in gc.get_objects() if isinstance(o, ir.IRNode))


def measure(workload: str, step: Callable[[int], object], runs: int, traced_runs: int) -> Growth:
    """Run ``step(i)`` once to warm up, ``runs`` times for RSS and objects, ``traced_runs`` traced."""
    step(-1)
    gc.collect()
    before, objects = rss_mb(), len(gc.get_objects())
    for i in range(runs):
        step(i)
    gc.collect()
    after, objects = rss_mb(), len(gc.get_objects()) - objects
    alive = ir_nodes_alive()
    tracemalloc.start()
    start = tracemalloc.get_traced_memory()[0]
    for i in range(traced_runs):
        step(runs + i)
    gc.collect()
    traced = tracemalloc.get_traced_memory()[0] - start
    tracemalloc.stop()
    return Growth(workload, runs, before, after, traced_runs, traced / 1024 / max(traced_runs, 1), objects / runs, alive)


def compile_growth(name: str, runs: int, traced_runs: int) -> Growth:
    """``ir.compile`` of ``examples/<name>.py`` again and again, each tree removed after."""
    program = pl.parse((EXAMPLES / f"{name}.py").read_text())
    root = Path(tempfile.mkdtemp(prefix="pypto-bench-memory-"))

    def step(i: int) -> None:
        ir.compile(program, root / str(i), dump_passes=False)
        shutil.rmtree(root / str(i))

    try:
        return measure(f"ir.compile {name}", step, runs, traced_runs)
    finally:
        shutil.rmtree(root)


def front_growth(size: int, runs: int, traced_runs: int) -> Growth:
    """Parse and the checked front passes of the generated program of ``size`` statements."""
    text = program_text(size)

    def step(i: int) -> None:
        passes.PassManager(passes.front_passes(), verify=True).run(pl.parse(text))

    return measure(f"parse + front passes, {size} statements", step, runs, traced_runs)


def lines(compiles: int, runs: int, size: int) -> list[str]:
    """The Markdown table of every workload (``run_all.py`` prints it too)."""
    found = [compile_growth(name, compiles, max(compiles // 3, 1)) for name in SMALL]
    found.append(front_growth(size, runs, max(runs // 3, 1)))
    return [*HEADER, *(g.line() for g in found)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--compiles", type=int, default=300, help="compiles of each small example")
    parser.add_argument("--runs", type=int, default=30, help="parse + front-pass runs of the generated program")
    parser.add_argument("--size", type=int, default=1_000, help="statements of the generated program")
    args = parser.parse_args()
    print(f"pypto from {Path(ir.__file__).resolve().parents[2]}", flush=True)
    print("\n".join(lines(args.compiles, args.runs, args.size)))


if __name__ == "__main__":
    main()
