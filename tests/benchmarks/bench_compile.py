"""Benchmark: the whole ``ir.compile`` (passes, checks, code generation, files) without dumps.

Two small kernel programs from ``examples/`` (a tile add and a matmul), then, in ``run_all.py``,
the generated programs of ``bench_parse_print.py``. Each compile writes into a fresh temporary
folder with ``dump_passes=False``. Not collected by pytest. Run
``python3 tests/benchmarks/bench_compile.py`` for the small programs (target: 20 ms or less each).
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import harness
from bench_parse_print import count_statements, program_text
from harness import Row

import pypto.language as pl
from pypto import ir

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SMALL = ("tile_add", "matmul")
SIZES = (1_000, 10_000)


def compile_times(program: ir.Program, runs: int) -> tuple[float, ...]:
    """Seconds of ``runs`` compiles of ``program``, each into a fresh folder (removed afterwards)."""
    root = Path(tempfile.mkdtemp(prefix="pypto-bench-"))
    try:
        dirs = iter(root / str(i) for i in range(runs))
        return tuple(harness.timed(lambda: ir.compile(program, next(dirs), dump_passes=False), runs))
    finally:
        shutil.rmtree(root)


def small_rows(runs: int) -> list[Row]:
    """``ir.compile`` of each small example."""
    out = []
    for name in SMALL:
        program = pl.parse((EXAMPLES / f"{name}.py").read_text())
        compile_times(program, 1)  # imports and one-time tables are not the figure
        out.append(Row(f"ir.compile {name}", count_statements(program), compile_times(program, runs)))
    return out


def rows(size: int, runs: int) -> list[Row]:
    """``ir.compile`` of the generated program of ``size`` statements."""
    program = pl.parse(program_text(size))
    return [Row("ir.compile (no dumps)", count_statements(program), compile_times(program, runs))]


if __name__ == "__main__":
    for row in small_rows(15):
        print(f"{row.stage}: best {row.best * 1e3:.1f} ms, median {row.median * 1e3:.1f} ms", flush=True)
