"""``str(PassError)`` is the full diagnostic (message, place, source line with caret, hint), as for
parser and codegen errors, also for a program parsed from text with ``pl.parse``."""

from __future__ import annotations

import copy
import pickle

import pytest
from shared_programs import INLINE_UNROLL

import pypto.language as pl
from pypto import ir, passes
from pypto.ir import Span
from pypto.ir.span import SourceName, source_lines_of
from pypto.transform.errors import PassError


def _unrolled(program: ir.Program) -> ir.Program:
    """UnrollLoops after InlineFunctions: the inline parameter k is the caller's variable n."""
    return passes.unroll_loops()(passes.inline_functions()(program))


def test_a_pass_error_on_parsed_text_prints_the_line_the_caret_and_the_hint() -> None:
    with pytest.raises(PassError) as err:
        _unrolled(pl.parse(INLINE_UNROLL, filename="text.py"))
    assert str(err.value) == err.value.format_error() == (
        "PassError: UnrollLoops: pl.unroll needs a constant stop\n"
        "  --> text.py:9:9\n"
        "  |\n"
        "9 |         for i in pl.unroll(k):\n"
        "  |         ^^^^^^^^^^^^^^^^^^^^^^\n"
        "  = hint: give pl.unroll int literals or closure ints (a loop over a runtime bound is pl.range)"
    )


def test_a_pass_error_without_a_place_keeps_its_hint() -> None:
    err = PassError("Mine", "cannot do it", hint="do something else")
    assert str(err) == err.format_error() == "PassError: Mine: cannot do it\n  = hint: do something else"
    assert str(PassError("Mine", "plain")) == "PassError: Mine: plain"


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
        "PassError: UnrollLoops: pl.unroll needs a constant stop",
        "  --> text.py:9:9",
        "  = hint: give pl.unroll int literals or closure ints (a loop over a runtime bound is pl.range)",
    ]
    assert source_lines_of(Span("", 1, 1)) is None
