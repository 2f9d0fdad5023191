"""Diagnostics: span, message, hint, rendering with the source line and a caret; and no
misspelled construct ever escapes as an internal Python error."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pypto.language as pl
from pypto.ir import Span
from pypto.language.parser import diagnostics
from pypto.language.parser.diagnostics import (
    ParserError,
    ParserSyntaxError,
    ParserTypeError,
    UndefinedVariableError,
    exceptions,
)


def test_error_classes_are_importable_from_both_modules() -> None:
    for name in ("ParserError", "ParserSyntaxError", "ParserTypeError", "UnsupportedFeatureError",
                 "InvalidOperationError", "UndefinedVariableError", "SSAViolationError"):
        cls = getattr(diagnostics, name)
        assert getattr(exceptions, name) is cls
        assert issubclass(cls, ParserError)


def test_rendered_error_has_location_source_line_caret_and_hint() -> None:
    text = "@pl.function\ndef f(n: pl.INDEX) -> pl.INDEX:\n    y = nn + 1\n    return y\n"
    with pytest.raises(UndefinedVariableError) as err:
        pl.parse(text, filename="kernel.py")
    e = err.value
    assert (e.location.filename, e.location.begin_line, e.location.begin_column) == ("kernel.py", 3, 9)
    assert str(e) == (
        "undefined variable 'nn'\n"
        "  --> kernel.py:3:9\n"
        "  |\n"
        "3 |     y = nn + 1\n"
        "  |         ^^\n"
        "  = hint: did you mean 'n'?"
    )


def test_decorator_errors_point_into_the_python_file() -> None:
    with pytest.raises(ParserTypeError) as err:

        @pl.function
        def f(n: pl.INDEX) -> pl.INDEX:
            y = pl.tile.load(n)
            return y

    e = err.value
    assert e.location.filename == __file__
    assert "y = pl.tile.load(n)" in str(e) and "    ^^^^^^^^^^^^^^^\n" in str(e)


def test_python_syntax_errors() -> None:
    with pytest.raises(ParserSyntaxError) as err:
        pl.parse("@pl.function\ndef f(n: pl.INDEX) -> pl.INDEX:\n    return n +\n")
    assert err.value.message.startswith("invalid Python syntax")
    assert err.value.location.begin_line == 3


def test_error_without_source() -> None:
    e = ParserError("boom", Span("x.py", 2, 3), hint="try again")
    assert str(e) == "boom\n  --> x.py:2:3\n  = hint: try again"
    assert str(ParserError("plain")) == "plain"


@pytest.mark.parametrize("line_no", [10, 123])
def test_arrow_bars_and_hint_align_after_a_wide_line_number(line_no: int) -> None:
    lines = ["\n"] * (line_no - 1) + ["    y = nn + 1\n"]
    e = ParserError("boom", Span("k.py", line_no, 9, line_no, 11), hint="try again", note="n", source_lines=lines)
    pad = " " * len(str(line_no))
    assert str(e) == (
        "boom\n"
        f"{pad} --> k.py:{line_no}:9\n"
        f"{pad} |\n"
        f"{line_no} |     y = nn + 1\n"
        f"{pad} |         ^^\n"
        f"{pad} = hint: try again\n"
        f"{pad} = note: n"
    )


def test_caret_counts_characters_on_non_ascii_lines() -> None:
    text = '@pl.function\ndef f(n: pl.INDEX) -> pl.INDEX:\n    pl.static_print("输入", nn)\n    return n\n'
    with pytest.raises(UndefinedVariableError) as err:
        pl.parse(text)
    line, caret = str(err.value).splitlines()[3:5]
    assert caret.index("^") - caret.index("|") == line.index("nn") - line.index("|")


BASE = '''\
import pypto.language as pl

N = pl.dynamic("N")

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        t: pl.Tile[[64, 64], pl.FP32] = pl.load(a, [0, 0], [64, 64])
        u = pl.add(t, t)
        v = t[0:16, :]
        w = pl.mul(u, 2.0)
        r: pl.Tensor[[64, 64], pl.FP32] = pl.store(w, [0, 0], out)
        return r

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP32], n: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        acc: pl.INDEX = 0
        for i, (s,) in pl.range(0, n, 2, init_values=(acc,)):
            if i < 4:
                y = pl.yield_(s + i * 2)
            else:
                y = pl.yield_(s - 1)
            s2 = pl.yield_(y)
        for (x,) in pl.while_(init_values=(s2,)):
            pl.cond(x < n and not x == 3)
            x2 = pl.yield_(pl.max(x, 1) + abs(x) // 3 % 2)
        out = self.kernel(a, out)
        b = a[0:8, 0]
        pl.static_assert(64 > 32, "ok")
        return out
'''

_WORDS = [
    "pl", "x", "self", "range", "yield_", "while_", "cond", "load", "Tile", "Tensor", "FP32", "INDEX", "Mem",
    "add", "(", ")", "[", "]", ",", ":", "=", "0", "-1", "None", "...", "+", "**", "not", "lambda", "*", "'s'",
    "pl.range", "pl.yield_", "return", "break", "with", "if", "for", "in", "def", "class", "import", "True",
]


def _mutate(text: str, data: st.DataObject) -> str:
    tokens = text.split(" ")
    kind = data.draw(st.sampled_from(["replace", "delete", "insert", "misspell", "drop_line"]))
    i = data.draw(st.integers(0, len(tokens) - 1))
    if kind == "replace":
        tokens[i] = data.draw(st.sampled_from(_WORDS))
    elif kind == "delete":
        del tokens[i]
    elif kind == "insert":
        tokens.insert(i, data.draw(st.sampled_from(_WORDS)))
    elif kind == "misspell" and len(tokens[i]) > 1:
        j = data.draw(st.integers(0, len(tokens[i]) - 1))
        tokens[i] = tokens[i][:j] + tokens[i][j + 1 :]
    else:
        lines = text.splitlines()
        del lines[data.draw(st.integers(0, len(lines) - 1))]
        return "\n".join(lines)
    return " ".join(tokens)


def test_base_program_parses() -> None:
    pl.parse(BASE)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_no_mutation_escapes_as_an_internal_error(data: st.DataObject) -> None:
    text = BASE
    for _ in range(data.draw(st.integers(1, 3))):
        text = _mutate(text, data)
    try:
        pl.parse(text)
    except ParserError as err:
        assert err.message
        str(err)
