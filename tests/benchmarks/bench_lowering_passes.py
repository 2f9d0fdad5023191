"""Benchmark: each lowering pass (ssa -> runtime) on the generated programs, checks on and off.

Uses the generated programs of ``bench_parse_print.py``. Not collected by pytest (no ``test_``
prefix). Run ``python3 tests/benchmarks/bench_lowering_passes.py [sizes...]`` (default 1k and 10k
statements; ``run_all.py`` runs it too). The whole default pipeline runs (the lowering passes need
the properties the front passes establish); the figures are those of the lowering passes: their
total, and per pass its run plus the boundary checks of its output.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import harness
from bench_parse_print import count_statements, program_text
from harness import Row

import pypto.language as pl
from pypto import passes

SIZES = (1_000, 10_000)


def rows(size: int, runs: int) -> list[Row]:
    """The lowering passes, all and each, with checks on and off, on ``size`` statements."""
    program = pl.parse(program_text(size))
    n = count_statements(program)
    lowering = [p.name for p in passes.lowering_passes()]
    out: list[Row] = []
    per_pass: dict[bool, dict[str, list[float]]] = {}
    for verify in (True, False):
        _, per_pass[verify] = harness.pipeline_runs(program, passes.builtin_passes, verify, runs)
        totals = [sum(per_pass[verify][name][i] for name in lowering) for i in range(runs)]
        out.append(Row(f"lowering passes, {'strict' if verify else 'no'} checks", n, tuple(totals)))
    for name in lowering:
        out.append(Row(f"  {name} (checks)", n, tuple(per_pass[True][name])))
        out.append(Row(f"  {name} (no checks)", n, tuple(per_pass[False][name])))
    return out


if __name__ == "__main__":
    for size in [int(a) for a in sys.argv[1:]] or SIZES:
        print(harness.table(rows(size, 3)), flush=True)
