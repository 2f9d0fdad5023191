"""Shared pieces of the stage benchmarks: timed runs, per-pass clocks, result rows and the table.

Every stage script exposes ``rows(size, runs) -> list[Row]`` (``size`` is the requested statement
count of the generated program of ``bench_parse_print``); ``run_all.py`` calls each in a fresh
interpreter per size and prints one table. Times are wall-clock seconds; a row keeps every run so
the table can give the best (the figure targets are about: least disturbed by other load) and the
median.
"""

from __future__ import annotations

import gc
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass

from pypto import ir, passes
from pypto.languages.invariants.base import clear_caches


@dataclass(frozen=True)
class Row:
    """One measured stage at one program size: every run's seconds."""

    stage: str
    statements: int
    times: tuple[float, ...]

    @property
    def best(self) -> float:
        return min(self.times)

    @property
    def median(self) -> float:
        return statistics.median(self.times)

    @property
    def us_per_stmt(self) -> float:
        return self.best / self.statements * 1e6


def timed(fn: Callable[[], object], runs: int) -> list[float]:
    """Wall seconds of ``runs`` calls of ``fn``, a full collection before each."""
    times = []
    for _ in range(runs):
        gc.collect()
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return times


class PassClock(passes.PassInstrument):
    """Per pass: the seconds of its run plus those of the boundary checks that follow it.

    The checks of a pass's output run after ``after_pass`` and before the next ``before_pass``;
    :meth:`stop` closes the last pass's interval when the pipeline returns.
    """

    name = "PassClock"

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self._start = 0.0
        self._current: str | None = None

    def before_pass(self, pass_: passes.Pass, program: ir.Program) -> None:
        self.stop()
        self._current = pass_.name
        self._start = time.perf_counter()

    def stop(self) -> None:
        """Charge the time since the current pass started to it."""
        if self._current is not None:
            name = self._current
            self.seconds[name] = self.seconds.get(name, 0.0) + time.perf_counter() - self._start
            self._current = None


def pipeline_runs(
    program: ir.Program, pass_list: Callable[[], list[passes.Pass]], verify: bool, runs: int
) -> tuple[list[float], dict[str, list[float]]]:
    """Cold runs of a pass pipeline: total seconds per run, and per pass the seconds of every run
    (``verify`` True: strict checks, every invariant of the dialect after every pass)."""
    totals: list[float] = []
    per_pass: dict[str, list[float]] = {}
    for _ in range(runs):
        clear_caches()
        clock = PassClock()
        manager = passes.PassManager(pass_list(), verify=verify)
        gc.collect()
        start = time.perf_counter()
        with passes.PassContext([clock]):
            manager.run(program)
        clock.stop()
        totals.append(time.perf_counter() - start)
        for name, seconds in clock.seconds.items():
            per_pass.setdefault(name, []).append(seconds)
    return totals, per_pass


def growth(small: Row, big: Row) -> float:
    """Ratio of best times between two sizes of one stage."""
    return big.best / small.best


def table(rows: list[Row]) -> str:
    """A Markdown table: per stage, best seconds and us/stmt at each size, median, growth."""
    sizes = sorted({r.statements for r in rows})
    by_stage: dict[str, dict[int, Row]] = {}
    for r in rows:
        by_stage.setdefault(r.stage, {})[r.statements] = r
    head = ["stage"]
    for n in sizes:
        head += [f"{n} best s", "median s", "us/stmt"]
    head += [f"growth {b}/{a}" for a, b in zip(sizes, sizes[1:])]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for stage, at in by_stage.items():
        cells = [stage]
        for n in sizes:
            r = at.get(n)
            cells += [f"{r.best:.4f}", f"{r.median:.4f}", f"{r.us_per_stmt:.1f}"] if r else ["", "", ""]
        for a, b in zip(sizes, sizes[1:]):
            cells.append(f"{growth(at[a], at[b]):.2f}" if a in at and b in at else "")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)
