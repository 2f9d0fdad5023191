"""A program function printed before prints from what the printer kept of it (per function object and
options), with the text a fresh print gives."""

from __future__ import annotations

import weakref
from pathlib import Path

import pytest
from test_printer_dynamic_names import IDX, S, kernel

import pypto.language as pl
from pypto import ir
from pypto.ir.printer import program as printer_program

ROOT = Path(__file__).resolve().parents[2]


def _fresh(monkeypatch: pytest.MonkeyPatch, program: ir.Program, **options: object) -> str:
    with monkeypatch.context() as m:
        m.setattr(printer_program, "_PRINTED", weakref.WeakKeyDictionary())
        return ir.python_print(program, **options)


def test_a_function_kept_from_another_program_takes_this_programs_names(monkeypatch: pytest.MonkeyPatch) -> None:
    first, second = ir.Var("N", IDX), ir.Var("N", IDX)
    f, g = kernel("f", first, "N_1"), kernel("g", second, "N")
    alone = ir.Program([g], "alone", S)
    both = ir.Program([f, g], "both", S)
    assert alone.as_python() == _fresh(monkeypatch, alone)  # g kept with its dim named N
    text = both.as_python()
    assert text == _fresh(monkeypatch, both)
    assert "    def g(self, x: pl.Tensor[[N_1], pl.FP32]) -> pl.Tensor[[N_1], pl.FP32]:" in text.splitlines()


@pytest.mark.parametrize("options", [{"prefix": "ir"}, {"concise": True}, {"explicit_layout": True}])
def test_a_function_kept_for_other_options_is_printed_again(
    monkeypatch: pytest.MonkeyPatch, options: dict[str, object]
) -> None:
    program = pl.parse(
        """
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t: pl.Tile[[16, 16], pl.FP32] = pl.load(a, [0, 0], [16, 16])
        r: pl.Tensor[[16, 16], pl.FP32] = pl.store(t, [0, 0], out)
        return r
"""
    )
    assert program.as_python() != ir.python_print(program, **options)
    assert ir.python_print(program, **options) == _fresh(monkeypatch, program, **options)
    assert ir.python_print(program) == _fresh(monkeypatch, program)


def test_a_comment_attached_in_place_after_a_print_is_printed() -> None:
    # Leading comments are the one part of a node changed in place: kept text must not hide the change.
    program = pl.loads_program(str(ROOT / "examples" / "loop_sum.py"))
    before = program.as_python()
    func = next(iter(program.functions.values()))
    ir.attach_leading_comments(func.body.stmts[0], ["added later"])
    after = program.as_python()
    assert "# added later" in after
    assert after.replace("# added later\n", "").replace(" ", "") == before.replace(" ", "")
