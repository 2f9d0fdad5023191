"""Issue 13: ``passes.ReportInstrument``, a per-pass report of time, IR size and verification results."""

from __future__ import annotations

import re
from pathlib import Path

from pypto.languages import invariants

import pypto.language as pl
from pypto import ir, passes

NOT_SSA = """
@pl.program
class P:
    @pl.function
    def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        x: pl.Scalar[pl.INDEX] = n + 1
        for i in pl.range(2):
            x = x + 2  # re-defines the outer x: not SSA until ConvertToSSA carries it
        return x
"""


class _ForgetsSSA(passes.ProgramPass):
    """Claims SSAForm but returns its (non-SSA) input."""

    produces = frozenset({invariants.SSAForm})

    def run(self, program: ir.Program) -> ir.Program:
        return program


def test_report_instrument_writes_one_report_per_pass_and_a_summary(tmp_path: Path) -> None:
    report = passes.ReportInstrument(tmp_path)
    with passes.PassContext([report]):
        passes.PassManager(passes.front_passes()).run(pl.parse(NOT_SSA))
    names = [p.name for p in passes.front_passes()]
    assert [r.pass_name for r in report.reports] == names
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [f"{i:02d}_{n}.txt" for i, n in enumerate(names, 1)] + ["summary.txt"])
    ssa = next(r for r in report.reports if r.pass_name == "ConvertToSSA")
    text = (tmp_path / f"{ssa.index:02d}_ConvertToSSA.txt").read_text()
    assert re.fullmatch(
        r"pass: ConvertToSSA\ntime: \d+\.\d{3} ms\nfunctions: 1\nstatements: 7\n  main: 7\n"
        r"checked: .*\bSSAForm\b.*\bTypeChecked\b.*\ndiagnostics: none\n", text)
    assert ssa.statements == {"main": 7} and ssa.diagnostics == ()
    summary = (tmp_path / "summary.txt").read_text().splitlines()
    assert summary[0].split() == ["#", "pass", "ms", "stmts", "diagnostics"]
    assert [line.split()[1] for line in summary[1:]] == names
    # the loop gains its iter_arg and yield in ConvertToSSA
    assert [line.split()[3:] for line in summary[1:]] == [["5", "0"]] * 3 + [["7", "0"]] * (len(names) - 3)


def test_report_instrument_reports_failed_checks_without_raising(tmp_path: Path) -> None:
    report = passes.ReportInstrument(tmp_path, passes=["_ForgetsSSA"])
    with passes.PassContext([report], passes.VerificationLevel.NONE):
        passes.convert_to_ssa()(pl.parse(NOT_SSA))  # not named: not reported
        _ForgetsSSA()(pl.parse(NOT_SSA))
    (only,) = report.reports
    assert only.pass_name == "_ForgetsSSA" and only.index == 1
    assert [(d.rule_name, d.error_code) for d in only.diagnostics] == [("SSAForm", "MULTIPLE_ASSIGNMENT")]
    lines = (tmp_path / "01__ForgetsSSA.txt").read_text().splitlines()
    assert lines[-2] == "diagnostics: 1"
    assert lines[-1].startswith("  error SSAForm MULTIPLE_ASSIGNMENT: ") and "<string>:" in lines[-1]


def test_report_instrument_without_a_directory_keeps_reports_in_memory() -> None:
    report = passes.ReportInstrument()
    with passes.PassContext([report]):
        passes.convert_to_ssa()(pl.parse(NOT_SSA))
    (only,) = report.reports
    assert only.pass_name == "ConvertToSSA" and only.seconds >= 0 and only.total_statements == 7
    assert "ConvertToSSA" in report.summary()
