"""Benchmark: the CPU seconds of ``pypto run examples/tile_add.py`` from an empty and from a warm kernel cache.

Not collected by pytest. ``python3 tests/benchmarks/bench_run.py [--runs N] [--pypto PATH] [--example FILE] [--primer FILE]``
runs the command N times (default 5) in fresh processes for each case and prints the median CPU
seconds (user + system of the process and every child: Python, the compilers, the simulator):

* cold: each run gets a new empty ``PYPTO_CACHE_DIR`` (every kernel, the orchestration, the
  runtime's fixed objects and the precompiled headers are built);
* edit: each run gets a copy of a cache filled by running another example (``--primer``, default
  ``row_blocks.py``): the precompiled headers and the runtime's fixed objects are there, this
  program's units are not, as after editing a kernel;
* warm: one cache filled by a first run that is not counted, then N runs from it.

CPU time, not wall time: the compilers wait for the machine-wide two compiler slots, and wall time
on a shared machine says more about the neighbours than about pypto. ``--pypto`` names the ``pypto``
executable of another checkout's virtual environment, so two checkouts are compared on the same
machine state by running the script for each in alternation. The last warm run's output is printed:
it says where that path spends its wall time (loading, compile, build and simulator run).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "tile_add.py"


def run_once(cmd: list[str], cache: Path) -> tuple[float, str]:
    """CPU seconds of one run (``RUSAGE_CHILDREN`` before and after: the process and its children) and its
    output."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    # As a user runs it: Python caches bytecode (a shell with PYTHONDONTWRITEBYTECODE=1 would have every
    # run compile pypto's sources again, about 0.5 s).
    env = {**{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}, "PYPTO_CACHE_DIR": str(cache)}
    result = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{result.stdout}{result.stderr}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), result.stderr + result.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="runs per case (the median counts)")
    parser.add_argument("--pypto", default=shutil.which("pypto") or "pypto", help="the pypto executable to time")
    parser.add_argument("--example", type=Path, default=EXAMPLE, help="the DSL file to run")
    parser.add_argument("--primer", type=Path, default=EXAMPLE.with_name("row_blocks.py"), help="fills the edit cache")
    args = parser.parse_args()
    cmd = [args.pypto, "run", str(args.example)]
    with tempfile.TemporaryDirectory(prefix="pypto-bench-") as tmp:
        root = Path(tmp)
        cold = [run_once(cmd, root / f"cold-{n}")[0] for n in range(args.runs)]
        run_once([args.pypto, "run", str(args.primer)], root / "primed")
        edit = []
        for n in range(args.runs):
            shutil.copytree(root / "primed", root / f"edit-{n}")
            edit.append(run_once(cmd, root / f"edit-{n}")[0])
        run_once(cmd, root / "warm")
        warm_runs = [run_once(cmd, root / "warm") for _ in range(args.runs)]
    warm = [t for t, _ in warm_runs]
    print(f"{args.example.name} via {args.pypto}: median CPU seconds over {args.runs} runs")
    print(f"  cold cache: {statistics.median(cold):.2f} s  (runs: {', '.join(f'{t:.2f}' for t in cold)})")
    print(f"  edit:       {statistics.median(edit):.2f} s  (runs: {', '.join(f'{t:.2f}' for t in edit)})")
    print(f"  warm cache: {statistics.median(warm):.2f} s  (runs: {', '.join(f'{t:.2f}' for t in warm)})")
    print("last warm run's output:\n  " + warm_runs[-1][1].strip().replace("\n", "\n  "))


if __name__ == "__main__":
    main()
