"""Checking several invariants in one loop over the functions (``check_all``) and its caches."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from inv_helpers import prog
from pypto.languages import Dialect
from pypto.languages.invariants import Invariant, Reporter, structure
from pypto.languages.invariants.base import check_all, clear_caches

from pypto import ir, passes

SOURCE = """
@pl.program
class P:
    @pl.function
    def f(self, a: pl.Scalar[pl.INT64]) -> pl.Scalar[pl.INT64]:
        return a

    @pl.function
    def g(self, a: pl.Scalar[pl.INT64]) -> pl.Scalar[pl.INT64]:
        return a
"""

CALLS = """
@pl.program
class P:
    @pl.function
    def f(self, a: pl.Scalar[pl.INT64]) -> pl.Scalar[pl.INT64]:
        return a

    @pl.function
    def g(self, a: pl.Scalar[pl.INT64]) -> pl.Scalar[pl.INT64]:
        b: pl.Scalar[pl.INT64] = self.f(a)
        return b
"""


@pytest.fixture(autouse=True)
def _cold() -> Iterator[None]:
    clear_caches()
    yield
    clear_caches()


def _recording(name: str, calls: list[tuple[str, str]], reads_program: bool = False) -> Invariant:
    def check(func: ir.Function, program: ir.Program, report: Reporter) -> None:
        calls.append((name, func.name))
        report.error("X", f"{name} dislikes {func.name}", func)

    return Invariant.per_function(name, "test", check, reads_program=reads_program)


def _whole(name: str, calls: list[tuple[str, str]]) -> Invariant:
    def check(program: ir.Program, report: Reporter) -> None:
        calls.append((name, "*"))
        report.error("Y", f"{name} dislikes the program", program)

    return Invariant.per_program(name, "test", check)


def test_checkers_run_function_by_function_and_report_invariant_by_invariant() -> None:
    calls: list[tuple[str, str]] = []
    a, b, c = _recording("A", calls), _whole("B", calls), _recording("C", calls)
    found = check_all(prog(SOURCE), [a, b, c])
    assert calls == [("A", "f"), ("C", "f"), ("A", "g"), ("C", "g"), ("B", "*")]
    assert [v.message for v in found] == [
        "A dislikes f",
        "A dislikes g",
        "B dislikes the program",
        "C dislikes f",
        "C dislikes g",
    ]


def test_dialect_check_lists_grammar_first_then_each_invariant() -> None:
    calls: list[tuple[str, str]] = []
    a, c = _recording("A", calls), _recording("C", calls)
    program = prog(SOURCE)
    dialect = Dialect("tiny", "no returns allowed", {ir.Program, ir.Function, ir.Var}, invariants=[c, a])
    found = [(v.dialect, v.rule, v.function, v.message) for v in dialect.check(program)]
    assert found == [
        ("tiny", "Grammar", "f", "ReturnStmt is not a node of this dialect"),
        ("tiny", "Grammar", "g", "ReturnStmt is not a node of this dialect"),
        ("tiny", "A", "f", "A dislikes f"),
        ("tiny", "A", "g", "A dislikes g"),
        ("tiny", "C", "f", "C dislikes f"),
        ("tiny", "C", "g", "C dislikes g"),
    ]
    assert calls == [("A", "f"), ("C", "f"), ("A", "g"), ("C", "g")]


def test_results_are_reused_for_an_equal_program_signature() -> None:
    calls: list[tuple[str, str]] = []
    inv = _recording("A", calls, reads_program=True)
    program = prog(SOURCE)
    again = ir.Program(list(program.functions.values()), program.name, program.span)
    assert inv.context(program) is inv.context(again)
    first, second = inv.check(program), inv.check(again)
    assert [v.message for v in second] == [v.message for v in first] == ["A dislikes f", "A dislikes g"]
    assert calls == [("A", "f"), ("A", "g")]


def test_flatten_call_expr_shares_its_no_nested_calls_check_with_the_boundary(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # NoNestedCalls is declared as grammar rules now: count its per-function walks.
    scanned: list[str] = []
    walk = structure.NoNestedCalls._function_check

    def counting(func: ir.Function, program: ir.Program, report: Reporter) -> None:
        scanned.append(func.name)
        walk(func, program, report)

    monkeypatch.setattr(structure.NoNestedCalls, "_function_check", counting)
    program = prog(CALLS)
    manager = passes.PassManager(passes.front_passes(), verify=True)
    assert manager.run(program).functions == program.functions
    assert scanned == ["f", "g"]
