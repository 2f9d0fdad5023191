"""A parse error through a decorator shows the user's frame and the diagnostic, not the parser's
frames nor a chained "During handling of the above exception" section."""

from __future__ import annotations

import traceback
from pathlib import Path

import pytest

import pypto.language as pl
from pypto.language.parser.diagnostics import ParserError, ParserTypeError, UndefinedVariableError


def shown(err: ParserError) -> tuple[list[str], str]:
    """The files of the traceback's frames, and the whole printed traceback."""
    frames = [Path(f.filename).name for f in traceback.extract_tb(err.__traceback__)]
    return frames, "".join(traceback.format_exception(err))


def test_a_typo_in_a_function_shows_the_users_frame_and_the_diagnostic() -> None:
    with pytest.raises(UndefinedVariableError) as info:

        @pl.function
        def f(x: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
            y = pl.expp(x)
            return y

    frames, text = shown(info.value)
    assert frames == ["test_dsl_decorator_traceback.py", "decorators.py"]
    assert "= hint: did you mean 'pl.exp'?" in text


def test_an_error_raised_while_handling_another_shows_no_chained_traceback() -> None:
    with pytest.raises(ParserTypeError) as info:

        @pl.function(type=pl.FunctionType.Opaque)
        def f(n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
            for i in pl.range(4, attrs={"pipeline_stages": 0}):
                n = n + i
            return n

    err = info.value
    assert err.__context__ is not None and err.__suppress_context__ and err.__cause__ is None
    frames, text = shown(err)
    assert frames == ["test_dsl_decorator_traceback.py", "decorators.py"]
    assert "During handling of the above exception" not in text


def test_an_error_in_a_program_method_shows_the_users_frame_only() -> None:
    with pytest.raises(UndefinedVariableError) as info:

        @pl.program
        class P:
            @pl.function
            def main(self, x: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
                y = pl.expp(x)
                return y

    frames, _ = shown(info.value)
    assert frames == ["test_dsl_decorator_traceback.py", "decorators.py"]
