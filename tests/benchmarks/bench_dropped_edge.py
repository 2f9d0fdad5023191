"""Benchmark: how often a run of tests/sim/data/dropped_edge.py goes wrong on a2a3sim with and without
its consumers' explicit edges (issue 31 item 6; tests/sim/test_dropped_edge.py runs a covering sample).

Not collected by pytest. ``python3 tests/benchmarks/bench_dropped_edge.py [--runs N] [--cache-dir DIR]``
compiles the program, copies the artifact tree without the edge, runs each N times (default 50) with the
swimlane capture and prints, per variant, the wrong runs, the runs where a consumer started before its
producer ended, and the median wall seconds of a run. With the edge both counts must be 0.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "sim"))

from test_dropped_edge import CAPTURE, compile_pair, early_consumers, inputs, run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--cache-dir", type=Path, default=None, help="kernel cache (default $PYPTO_CACHE_DIR)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        pair = compile_pair(Path(folder))
        a, b, zeros = inputs()
        want = zeros.copy()
        pair[0].interpret(a, b, zeros.copy(), want)
        for name, compiled in zip(("with the edge", "without it"), pair):
            run(compiled, args.cache_dir)  # builds, not counted
            wrong = early = 0
            seconds = []
            for _ in range(args.runs):
                start = time.perf_counter()
                out = run(compiled, args.cache_dir, CAPTURE)
                seconds.append(time.perf_counter() - start)
                wrong += not np.array_equal(out, want)
                early += bool(early_consumers(compiled))
            print(f"{name}: {wrong} of {args.runs} runs wrong, {early} with a consumer starting before its "
                  f"producer ended; median run {statistics.median(seconds):.3f}s")


if __name__ == "__main__":
    main()
