"""Benchmark: the compile-speed goals of issue 32 (items 2 and 3) as one table, before and after.

Not collected by pytest. ``python3 tests/benchmarks/bench_goals.py [--before PYTHON] [--runs N]``
measures the pypto that each interpreter imports (``--before``: another checkout's venv python, say
``../main/.venv/bin/python``; without it only this one) and prints, side by side:

* ``ir.compile`` of every program of ``examples/`` (parsed once, no dumps, a fresh folder each):
  per example the median over ``--procs`` processes of the median CPU milliseconds of ``--runs``
  compiles after one warm-up, and their total; and the same total for ``ir.compile``'s default,
  which also writes the printed IR after every pass (``dump_passes=True``);
* the first and the second ``ir.compile`` of ``examples/tile_add.py`` in a fresh process, and the
  CPU time of ``import pypto.language`` (medians over ``--procs`` processes). Both with Python's
  bytecode cache (the ``.pyc`` files an installed package has; kept under a temporary
  ``PYTHONPYCACHEPREFIX`` filled by one unmeasured process) and without it (``PYTHONDONTWRITEBYTECODE``,
  as in this repository's CI: every module is compiled from source);
* the front passes (surface -> ssa) and the lowering passes (ssa -> runtime) with strict checks
  on the generated programs of ``bench_parse_print.py`` at 1k and 10k statements:
  median CPU microseconds per statement over ``--scale-runs`` cold runs (caches cleared), and the
  growth 10k/1k of the median times.

``--verify LEVEL`` sets ``PYPTO_VERIFY_LEVEL`` for every worker: the example compiles check at that
level (without it, at each checkout's default: ``basic``, or ``strict`` in older checkouts), and so
do the pass pipelines of the generated programs (without it, ``strict``).

Every figure is CPU time (``time.process_time``) in a fresh subprocess of the interpreter measured,
and the two interpreters take turns, so both see the same machine state. Goals: compile of each
example <= half of the ``--before`` figure, first compile <= 0.3 s more than the second, import no
slower; lowering passes <= 60 us/stmt at 10k with growth 10k/1k < 11.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve()
EXAMPLES = HERE.parents[2] / "examples"
FIRST_EXAMPLE = EXAMPLES / "tile_add.py"
SIZES = (1_000, 10_000)


def _compile_cpu(program: object, dumps: bool = False) -> float:
    from pypto import ir

    folder = tempfile.mkdtemp(prefix="pypto-goals-")
    try:
        start = time.process_time()
        ir.compile(program, output_dir=folder, dump_passes=dumps)
        return time.process_time() - start
    finally:
        shutil.rmtree(folder)


def worker_examples(runs: int, dumps: int = 0) -> dict[str, float]:
    """Per example: the median CPU seconds of ``runs`` compiles after a warm-up (writing the pass
    dumps when ``dumps`` is 1)."""
    import pypto.language as pl

    out = {}
    for path in sorted(EXAMPLES.glob("*.py")):
        program = pl.loads_program(str(path))
        _compile_cpu(program, bool(dumps))
        out[path.stem] = statistics.median(_compile_cpu(program, bool(dumps)) for _ in range(runs))
    return out


def worker_first() -> dict[str, float]:
    """CPU seconds of ``import pypto.language``, then of the first and the second compile of one example."""
    start = time.process_time()
    import pypto.language as pl

    imported = time.process_time() - start
    program = pl.loads_program(str(FIRST_EXAMPLE))
    return {"import": imported, "first": _compile_cpu(program), "second": _compile_cpu(program)}


def worker_scale(size: int, runs: int) -> dict[str, float]:
    """Median CPU seconds of the front and of the lowering passes (strict checks unless
    ``PYPTO_VERIFY_LEVEL`` says otherwise, cold caches)."""
    sys.path.insert(0, str(HERE.parent))
    from bench_parse_print import count_statements, program_text

    import pypto.language as pl
    from pypto import passes
    from pypto.languages.invariants.base import clear_caches

    program = pl.parse(program_text(size))
    first_lowering = passes.lowering_passes()[0].name

    class Split(passes.PassInstrument):
        """Notes the CPU clock when the first lowering pass starts."""

        name = "Split"
        at = 0.0

        def before_pass(self, pass_: passes.Pass, program: object) -> None:
            if pass_.name == first_lowering:
                self.at = time.process_time()

    front, lowering = [], []
    for _ in range(runs):
        clear_caches()
        split = Split()
        manager = passes.PassManager(passes.builtin_passes(), verify=os.environ.get("PYPTO_VERIFY_LEVEL", "strict"))
        start = time.process_time()
        with passes.PassContext([split]):
            manager.run(program)
        end = time.process_time()
        front.append(split.at - start)
        lowering.append(end - split.at)
    return {
        "statements": count_statements(program),
        "front": statistics.median(front),
        "lowering": statistics.median(lowering),
    }


def _call(python: str, args: list[str], env: dict[str, str] | None = None) -> dict:
    """Run this script's worker ``args`` under ``python`` (outside any checkout) and read its JSON."""
    done = subprocess.run(
        [python, str(HERE), "--worker", *args],
        capture_output=True,
        text=True,
        cwd=tempfile.gettempdir(),
        env=env,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"{python} {' '.join(args)} failed:\n{done.stderr}")
    return json.loads(done.stdout.splitlines()[-1])


def _first_env(pycache: Path | None) -> dict[str, str]:
    env = dict(os.environ)  # PYPTO_VERIFY_LEVEL included
    env.pop("PYTHONPYCACHEPREFIX", None)
    if pycache is None:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    else:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(pycache)
    return env


def measure(pythons: dict[str, str], runs: int, procs: int, scale_runs: int, sizes: tuple[int, ...]) -> dict:
    """Every figure for each labelled interpreter, the interpreters taking turns."""
    results: dict[str, dict] = {label: {"first": {}, "scale": {}} for label in pythons}
    for key, dumps in (("examples", "0"), ("dumps", "1")):
        rounds: dict[str, list[dict]] = {label: [] for label in pythons}
        for _ in range(procs):
            for label, python in pythons.items():
                rounds[label].append(_call(python, ["examples", str(runs), dumps]))
        for label, found in rounds.items():
            results[label][key] = {name: statistics.median(r[name] for r in found) for name in found[0]}
    with tempfile.TemporaryDirectory(prefix="pypto-goals-pyc-") as root:
        caches = {label: Path(root) / label for label in pythons}
        for label, python in pythons.items():
            _call(python, ["first"], _first_env(caches[label]))  # fills the bytecode cache
        for mode in ("pyc", "no pyc"):
            samples: dict[str, list[dict]] = {label: [] for label in pythons}
            for _ in range(procs):
                for label, python in pythons.items():
                    env = _first_env(caches[label] if mode == "pyc" else None)
                    samples[label].append(_call(python, ["first"], env))
            for label in pythons:
                results[label]["first"][mode] = {
                    k: statistics.median(s[k] for s in samples[label]) for k in ("import", "first", "second")
                }
    for size in sizes:
        for label, python in pythons.items():
            results[label]["scale"][size] = _call(python, ["scale", str(size), str(scale_runs)])
    return results


def table(results: dict) -> str:
    """The goal table (Markdown): a column per interpreter, then the ratio after/before."""
    labels = list(results)
    head = "| figure | " + " | ".join(labels) + (" | after/before |" if len(labels) == 2 else " |")
    lines = [head, "|---" * (len(labels) + 1 + (len(labels) == 2)) + "|"]

    def row(name: str, values: list[float], fmt: str) -> None:
        cells = [format(v, fmt) for v in values]
        if len(values) == 2:
            cells.append(f"{values[1] / values[0]:.2f}" if values[0] else "")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")

    examples = list(results[labels[0]]["examples"])
    for name in examples:
        row(f"compile {name} (ms)", [results[k]["examples"][name] * 1e3 for k in labels], ".2f")
    row("compile, all examples (ms)", [sum(results[k]["examples"].values()) * 1e3 for k in labels], ".1f")
    dumped = [sum(results[k]["dumps"].values()) * 1e3 for k in labels]
    row("compile, all examples, pass dumps written (ms)", dumped, ".1f")
    for mode in ("pyc", "no pyc"):
        first = {k: results[k]["first"][mode] for k in labels}
        row(f"import pypto.language, {mode} (s)", [first[k]["import"] for k in labels], ".3f")
        row(f"first compile, {mode} (s)", [first[k]["first"] for k in labels], ".3f")
        row(f"second compile, {mode} (s)", [first[k]["second"] for k in labels], ".4f")
        row(f"first - second, {mode} (s)", [first[k]["first"] - first[k]["second"] for k in labels], ".3f")
    sizes = sorted(results[labels[0]]["scale"], key=int)
    for stage in ("front", "lowering"):
        for size in sizes:
            per = [results[k]["scale"][size][stage] / results[k]["scale"][size]["statements"] * 1e6 for k in labels]
            row(f"{stage} passes, checks, {size} stmts (us/stmt)", per, ".1f")
        if len(sizes) >= 2:
            lo, hi = sizes[0], sizes[-1]
            growth = [results[k]["scale"][hi][stage] / results[k]["scale"][lo][stage] for k in labels]
            row(f"{stage} passes growth {hi}/{lo}", growth, ".2f")
    return "\n".join(lines)


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        kind, rest = sys.argv[2], [int(a) for a in sys.argv[3:]]
        figures = {"examples": worker_examples, "first": worker_first, "scale": worker_scale}[kind](*rest)
        print(json.dumps(figures))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", help="the interpreter of the checkout to compare with (its venv python)")
    parser.add_argument("--runs", type=int, default=5, help="compiles per example (the median counts)")
    parser.add_argument(
        "--procs", type=int, default=5, help="fresh processes (taking turns) for the example and first-compile figures"
    )
    parser.add_argument("--scale-runs", type=int, default=3, help="pipeline runs per size")
    parser.add_argument("--sizes", type=int, nargs="*", default=list(SIZES), help="generated program sizes")
    parser.add_argument(
        "--verify", choices=["none", "basic", "strict"], help="the checks of every figure (PYPTO_VERIFY_LEVEL)"
    )
    args = parser.parse_args()
    if args.verify:
        os.environ["PYPTO_VERIFY_LEVEL"] = args.verify  # the workers inherit it
    pythons = {"before": args.before, "after": sys.executable} if args.before else {"this": sys.executable}
    results = measure(pythons, args.runs, args.procs, args.scale_runs, tuple(args.sizes))
    print(table(results))


if __name__ == "__main__":
    main()
