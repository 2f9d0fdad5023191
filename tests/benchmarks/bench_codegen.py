"""Benchmark: the code generators (PTO, CCE, orchestration, kernel config) on lowered programs.

The generated programs of ``bench_parse_print.py`` go through the default pipeline once (without
checks); then each generator of ``pypto.compile.code_generators`` is timed on the result. Not
collected by pytest. Run ``python3 tests/benchmarks/bench_codegen.py [sizes...]`` (default 1k and 10k).
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
from pypto.backend import current_platform
from pypto.compile import code_generators, generate_files

SIZES = (1_000, 10_000)
NAMES = ("pto", "cce", "orchestration", "kernel_config")


def rows(size: int, runs: int) -> list[Row]:
    """All generators together and each alone, on the lowered program of ``size`` statements."""
    source = pl.parse(program_text(size))
    n = count_statements(source)
    program = passes.PassManager.get_strategy(verify=False, plugins=False).run(source)
    chip = current_platform()
    out = [Row("codegen (all generators)", n, tuple(harness.timed(lambda: generate_files(program, chip), runs)))]
    for name, generate in zip(NAMES, code_generators()):
        out.append(Row(f"  codegen {name}", n, tuple(harness.timed(lambda: generate(program, chip), runs))))
    return out


if __name__ == "__main__":
    for size in [int(a) for a in sys.argv[1:]] or SIZES:
        print(harness.table(rows(size, 3)), flush=True)
