"""The parser's error API as users of the established PyPTO see it: the classes exported by
``pypto.language.parser``, ``ParserError.span`` as a dict, and the builtin classes
(ValueError / SyntaxError / OSError) that reading DSL text raises."""

from __future__ import annotations

from pathlib import Path

import pytest

import pypto.language as pl
from pypto.ir import Span
from pypto.language import parser
from pypto.language.parser import (
    ParserDefinitionError,
    ParserError,
    ParserFileError,
    ParserSyntaxError,
    ParserTypeError,
    PythonSyntaxError,
    UndefinedVariableError,
)

BAD_NAME = "@pl.function\ndef f(n: pl.INDEX) -> pl.INDEX:\n    y = nn + 1\n    return y\n"


def test_parser_package_exports_every_diagnostics_class() -> None:
    from pypto.language.parser import diagnostics

    for name in diagnostics.__all__:
        if name.endswith(("Error", "Warning")):
            assert getattr(parser, name) is getattr(diagnostics, name)
            assert name in parser.__all__


def test_span_is_a_dict_of_the_place_and_location_is_the_span() -> None:
    with pytest.raises(UndefinedVariableError) as info:
        pl.parse(BAD_NAME, filename="kernel.py")
    err = info.value
    assert err.span == {"filename": "kernel.py", "begin_line": 3, "begin_column": 9, "end_line": 3, "end_column": 11}
    assert err.location == Span("kernel.py", 3, 9, 3, 11)
    # The rendered diagnostic still has the caret under the name.
    assert "3 |     y = nn + 1\n  |         ^^" in str(err)


def test_an_error_without_a_place_has_an_unknown_span_dict() -> None:
    err = ParserError("no place")
    assert err.span["begin_line"] == Span.unknown().begin_line and err.span["filename"] == Span.unknown().filename


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("x = 1\n", "no @pl.function or @pl.program found"),
        ("@pl.program\nclass A:\n    pass\n\n@pl.program\nclass B:\n    pass\n", "more than one @pl.program class"),
        ("@pl.program\ndef f():\n    pass\n", "decorated with @pl.function or @pl.inline"),
        ("@pl.function\nclass P:\n    pass\n", "must be decorated with @pl.program"),
        ("class P:\n    pass\n", "must be decorated with @pl.program"),
        ("@pl.program\nclass P:\n    x = 1\n", "contains only @pl.function definitions"),
    ],
)
def test_no_several_or_wrong_definitions_are_a_value_error(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message) as info:
        pl.parse(text)
    err = info.value
    assert isinstance(err, ParserDefinitionError) and isinstance(err, ParserSyntaxError)
    assert err.location.is_valid() and err.hint


def test_bad_python_is_a_syntax_error_with_span_and_hint() -> None:
    with pytest.raises(SyntaxError) as info:
        pl.parse("@pl.function\ndef f(:\n    pass\n", filename="bad.py")
    err = info.value
    assert isinstance(err, PythonSyntaxError) and isinstance(err, ParserError)
    assert err.message.startswith("invalid Python syntax")
    assert err.span["filename"] == "bad.py" and err.span["begin_line"] == 2
    assert err.hint
    # Python's traceback printer shows the rendered diagnostic once, with the caret.
    assert err.msg.startswith("invalid Python syntax") and "2 | def f(:" in err.msg


def test_missing_file_is_an_os_error(tmp_path: Path) -> None:
    missing = tmp_path / "nope.py"
    with pytest.raises(OSError, match="no such file") as info:
        pl.loads(missing)
    err = info.value
    assert isinstance(err, ParserFileError) and isinstance(err, ParserError)
    assert err.span["filename"] == str(missing) and err.hint == "check the path"


def test_an_unknown_function_option_names_the_decorator() -> None:
    with pytest.raises(ParserTypeError, match=r"@pl.function got an unexpected keyword argument 'foo'"):
        pl.parse("@pl.function(foo=1)\ndef f(x: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:\n    return x\n")
