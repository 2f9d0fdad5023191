"""``ReportInstrument``: a per-pass report of time, IR size and verification results.

The established API names the instrument without fixing its contents; ours reports, for every pass
run inside the context (or only the passes named in ``passes``), what docs/passes.md#instruments
lists: the pass's wall time, the size of the program it returned (functions and statements, per
function) and the result of checking the properties it produces plus the structural ones. Failed
checks are reported, not raised: the instrument observes, verification stays the context's job.

::

    report = passes.ReportInstrument("reports/")
    with passes.PassContext([report]):
        ir.compile(program, "build/")
    # reports/01_ConvertToSSA.txt, ..., reports/summary.txt; report.reports holds the same data
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from pypto.languages.invariants import STRUCTURAL, Violation

from pypto.ir.function import Function, Program
from pypto.ir.stmt import Stmt
from pypto.ir.traversal import iter_children

from .base import Pass
from .context import PassInstrument
from .properties import IRPropertySet
from .verifier import PropertyVerifierRegistry


@dataclass(frozen=True)
class PassReport:
    """What one pass did: its time, the program size it left, and the checks of its result."""

    index: int
    pass_name: str
    seconds: float
    statements: dict[str, int]
    checked: tuple[str, ...]
    diagnostics: tuple[Violation, ...]

    @property
    def total_statements(self) -> int:
        return sum(self.statements.values())

    def text(self) -> str:
        """The report file's contents."""
        lines = [
            f"pass: {self.pass_name}",
            f"time: {self.seconds * 1e3:.3f} ms",
            f"functions: {len(self.statements)}",
            f"statements: {self.total_statements}",
            *(f"  {name}: {count}" for name, count in self.statements.items()),
            f"checked: {', '.join(self.checked) or 'none'}",
            f"diagnostics: {len(self.diagnostics) or 'none'}",
            *(f"  {d.severity.name.lower()} {d.rule_name} {d.error_code}: {d.message} at {d.span}"
              for d in self.diagnostics),
        ]
        return "\n".join(lines) + "\n"


def statement_count(func: Function) -> int:
    """Statements in a function body, nested ones included."""
    count, todo = 0, [func.body]
    while todo:
        node = todo.pop()
        count += isinstance(node, Stmt)
        todo.extend(c for c in iter_children(node) if isinstance(c, Stmt))
    return count


class ReportInstrument(PassInstrument):
    """Writes ``NN_<pass>.txt`` per reported pass and a ``summary.txt`` table into ``output_dir``
    (nothing written when it is None); the reports are also kept in ``reports``."""

    name = "ReportInstrument"

    def __init__(self, output_dir: str | Path | None = None, passes: Iterable[str] | None = None) -> None:
        self.output_dir = Path(output_dir) if output_dir is not None else None
        self.passes = None if passes is None else frozenset(passes)
        self.reports: list[PassReport] = []
        self._start = 0.0

    def run_start(self, program: Program) -> None:
        self.reports = []

    def before_pass(self, pass_: Pass, program: Program) -> None:
        self._start = time.perf_counter()

    def after_pass(self, pass_: Pass, program: Program) -> None:
        seconds = time.perf_counter() - self._start
        if self.passes is not None and pass_.name not in self.passes:
            return
        props = pass_.get_produced_properties().union_with(IRPropertySet(STRUCTURAL))
        report = PassReport(
            index=len(self.reports) + 1,
            pass_name=pass_.name,
            seconds=seconds,
            statements={f.name: statement_count(f) for f in program.functions.values()},
            checked=tuple(sorted(p.name for p in props)),
            diagnostics=tuple(PropertyVerifierRegistry.verify(props, program)),
        )
        self.reports.append(report)
        if self.output_dir is not None:
            self.output_dir.mkdir(parents=True, exist_ok=True)
            (self.output_dir / f"{report.index:02d}_{report.pass_name}.txt").write_text(report.text())
            (self.output_dir / "summary.txt").write_text(self.summary())

    def summary(self) -> str:
        """One line per reported pass: index, name, time, statements, diagnostics."""
        width = max((len(r.pass_name) for r in self.reports), default=4)
        lines = [f"{'#':>2}  {'pass':<{width}}  {'ms':>9}  {'stmts':>6}  diagnostics"]
        lines += [f"{r.index:>2}  {r.pass_name:<{width}}  {r.seconds * 1e3:9.3f}  {r.total_statements:>6}  "
                  f"{len(r.diagnostics)}" for r in self.reports]
        return "\n".join(lines) + "\n"
