"""Benchmark: the CPU time of ``ir.compile`` of every program of ``examples/``.

Not collected by pytest. ``python3 tests/benchmarks/bench_examples.py [--runs N]`` prints each
example's best CPU milliseconds over N compiles (default 7; no dumps, a fresh folder each) and their
total. CPU time, not wall time, so that other work on the machine disturbs the figure less; set
``PYPTO_VERIFY_LEVEL=none`` to leave the boundary checks out. Compare two checkouts by running the
script of each in alternation.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

import pypto.language as pl
from pypto import ir

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def best_compile(program: ir.Program, runs: int) -> float:
    """The least CPU seconds of ``runs`` compiles of ``program``."""
    best = float("inf")
    for _ in range(runs):
        folder = tempfile.mkdtemp()
        start = time.process_time()
        ir.compile(program, output_dir=folder, dump_passes=False)
        best = min(best, time.process_time() - start)
        shutil.rmtree(folder)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="compiles per example (the best counts)")
    args = parser.parse_args()
    total = 0.0
    for path in sorted(EXAMPLES.glob("*.py")):
        seconds = best_compile(pl.loads_program(str(path)), args.runs)
        total += seconds
        print(f"{path.stem:28s} {seconds * 1e3:8.1f} ms")
    print(f"{'total':28s} {total * 1e3:8.1f} ms")


if __name__ == "__main__":
    main()
