"""Run every stage benchmark and write one table: ``python3 tests/benchmarks/run_all.py``.

Stages: parse, print (and concise print), the front passes (all and each, checks on and off), the
lowering passes (likewise), the code generators, the whole ``ir.compile`` of the small kernel
examples and of the generated programs, and the memory repeated runs leave behind
(``bench_memory.py``, 100 compiles each, about 20 s). Each (stage script, size) runs in a fresh
interpreter so one measurement's garbage does not slow the next. Options: ``--sizes 1000 10000
50000`` (default 1k and 10k; the lowering, codegen and compile stages stop at
``--max-lowering``, default 10k, as they take minutes beyond), ``--runs N`` (default 5; 3 above
10k statements), ``--out FILE`` (default ``benchmarks.md`` in the current folder). The table gives per stage and size the best and
median wall seconds, the best time per statement, and the growth of the best time between sizes.
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import harness
from harness import Row

GENERATED = ("bench_parse_print", "bench_front_passes", "bench_lowering_passes", "bench_codegen", "bench_compile")
FRONT_ONLY = {"bench_parse_print", "bench_front_passes"}


def _rows(module: str, size: int, runs: int) -> list[Row]:
    return __import__(module).rows(size, runs)


def _small(runs: int) -> list[Row]:
    return __import__("bench_compile").small_rows(runs)


def _memory(compiles: int, runs: int) -> list[str]:
    return __import__("bench_memory").lines(compiles, runs, 1_000)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000, 10_000])
    parser.add_argument("--max-lowering", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--out", type=Path, default=Path("benchmarks.md"))
    args = parser.parse_args()
    rows: list[Row] = []
    started = time.perf_counter()
    with ProcessPoolExecutor(max_workers=1, max_tasks_per_child=1, mp_context=get_context("spawn")) as pool:
        small = pool.submit(_small, max(args.runs, 9)).result()
        for row in small:
            print(f"{row.stage}: best {row.best * 1e3:.1f} ms, median {row.median * 1e3:.1f} ms", flush=True)
        for module in GENERATED:
            for size in args.sizes:
                if module not in FRONT_ONLY and size > args.max_lowering:
                    continue
                runs = args.runs if size <= 10_000 else min(args.runs, 3)
                got = pool.submit(_rows, module, size, runs).result()
                rows.extend(got)
                print(f"{module} at {size}: {', '.join(f'{r.stage.strip()} {r.best:.3f} s' for r in got[:3])}", flush=True)
        memory = pool.submit(_memory, 100, 10).result()
    small_lines = [f"| {r.stage} | {r.statements} | {r.best * 1e3:.1f} | {r.median * 1e3:.1f} |" for r in small]
    text = "\n".join(
        [
            "# pypto compile-time benchmarks",
            "",
            "Small kernel programs, whole `ir.compile` without dumps (ms):",
            "",
            "| program | statements | best ms | median ms |",
            "|---|---|---|---|",
            *small_lines,
            "",
            "Generated programs (InCore kernels of tile statements plus an orchestration loop):",
            "",
            harness.table(rows),
            "",
            "Memory across repeated runs (bench_memory.py; flat RSS and few objects per run: nothing kept):",
            "",
            *memory,
            "",
            f"({time.perf_counter() - started:.0f} s in all)",
        ]
    )
    args.out.write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
