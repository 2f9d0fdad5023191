"""``str(PassError)`` is the full diagnostic (message, place, source line with caret, hint), as for
parser and codegen errors, also for a program parsed from text with ``pl.parse``."""

from __future__ import annotations

import copy
import pickle
import traceback

import pytest
from shared_programs import INLINE_UNROLL

import pypto.language as pl
from pypto import ir, passes
from pypto.ir import Span
from pypto.ir.span import SourceName, source_lines_of
from pypto.language.parser.diagnostics import ParserError
from pypto.transform.errors import PassError


def _unrolled(program: ir.Program) -> ir.Program:
    """UnrollLoops after InlineFunctions: the inline parameter k is the caller's variable n."""
    return passes.unroll_loops()(passes.inline_functions()(program))


def test_a_pass_error_on_parsed_text_prints_the_line_the_caret_and_the_hint() -> None:
    with pytest.raises(PassError) as err:
        _unrolled(pl.parse(INLINE_UNROLL, filename="text.py"))
    assert err.value.format_error() == "PassError: " + str(err.value) == (
        "PassError: UnrollLoops: pl.unroll needs a constant stop\n"
        "  --> text.py:9:9\n"
        "  |\n"
        "9 |         for i in pl.unroll(k):\n"
        "  |         ^^^^^^^^^^^^^^^^^^^^^^\n"
        "  = hint: give pl.unroll int literals or closure ints (a loop over a runtime bound is pl.range)"
    )


def test_a_pass_error_without_a_place_keeps_its_hint() -> None:
    err = PassError("Mine", "cannot do it", hint="do something else")
    assert err.format_error() == "PassError: " + str(err)
    assert str(err) == "Mine: cannot do it\n  = hint: do something else"
    assert str(PassError("Mine", "plain")) == "Mine: plain"


def test_parsed_text_travels_with_the_span_name_only() -> None:
    program = pl.parse(INLINE_UNROLL, filename="text.py")
    name = program.span.filename
    assert isinstance(name, SourceName) and name == "text.py" and hash(name) == hash("text.py")
    assert source_lines_of(program.span) == INLINE_UNROLL.splitlines(keepends=True)
    # A pickled or copied span keeps only the name (no text in kernel caches or dumps).
    for kept in (pickle.loads(pickle.dumps(program.span)), copy.deepcopy(program.span)):
        assert type(kept.filename) is str and kept == program.span
        assert source_lines_of(kept) is None  # no file text.py on disk


def test_a_pass_error_on_a_pickled_program_shows_no_caret() -> None:
    program = pickle.loads(pickle.dumps(pl.parse(INLINE_UNROLL, filename="text.py")))
    with pytest.raises(PassError) as err:
        _unrolled(program)
    assert str(err.value).splitlines() == [
        "UnrollLoops: pl.unroll needs a constant stop",
        "  --> text.py:9:9",
        "  = hint: give pl.unroll int literals or closure ints (a loop over a runtime bound is pl.range)",
    ]
    assert source_lines_of(Span("", 1, 1)) is None


def test_a_traceback_names_the_class_once() -> None:
    """Python prints ``module.Class: str(err)`` as a traceback's last line: str leaves the class out."""
    assert traceback.format_exception_only(PassError("Mine", "plain")) == [
        "pypto.transform.errors.PassError: Mine: plain\n"
    ]
    with pytest.raises(ParserError) as err:
        pl.parse("import pypto.language as pl\n\n@pl.program\nclass P:\n    x = pl.nothing\n", filename="p.py")
    first = traceback.format_exception_only(err.value)[0]
    assert first.startswith(f"{type(err.value).__module__}.{type(err.value).__name__}: ")
    assert f"{type(err.value).__name__}:" not in first.split(": ", 1)[1]
