"""Text parsing: ``pl.parse`` / ``parse_program`` / ``loads`` / ``loads_program`` read DSL text
(printed or hand-written) from its syntax tree only; nothing in the text is executed."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest
from dsl_helpers import assert_roundtrip

import pypto.language as pl
from pypto import ir
from pypto.language.parser import text_parser
from pypto.language.parser.diagnostics import (
    InvalidOperationError,
    ParserError,
    ParserFileError,
    ParserSyntaxError,
    ParserTypeError,
    UndefinedVariableError,
    UnsupportedFeatureError,
)

FUNCTION = "@pl.function\ndef f(n: pl.INDEX) -> pl.INDEX:\n    return n + 1\n"


def test_public_entry_points() -> None:
    assert text_parser.parse is pl.parse and text_parser.parse_program is pl.parse_program
    from pypto.language.parser import parse, parse_program

    assert parse is pl.parse and parse_program is pl.parse_program


def test_parse_returns_a_function_or_a_program() -> None:
    assert isinstance(pl.parse(FUNCTION), ir.Function)
    prog = pl.parse_program(FUNCTION)
    assert isinstance(prog, ir.Program) and prog.get_function("f") is not None
    two = pl.parse(FUNCTION + "\n@pl.function\ndef g(n: pl.INDEX) -> pl.INDEX:\n    return f(n)\n")
    assert isinstance(two, ir.Program)
    call = two.get_function("g").body.value[0]
    assert isinstance(call.op, ir.GlobalVar) and call.op.name == "f"
    assert_roundtrip(two)


def test_loads(tmp_path: Path) -> None:
    path = tmp_path / "dump.pyir"
    path.write_text(FUNCTION)
    func = pl.loads(path)
    assert isinstance(func, ir.Function) and func.span.filename == str(path)
    assert isinstance(pl.loads_program(str(path)), ir.Program)


def test_loads_accepts_a_utf8_byte_order_mark(tmp_path: Path) -> None:
    path = tmp_path / "bom.pyir"
    path.write_bytes(b"\xef\xbb\xbf" + FUNCTION.encode())
    assert isinstance(pl.loads(path), ir.Function)


@pytest.mark.parametrize("load", [pl.loads, pl.loads_program])
def test_loads_of_a_file_that_is_not_utf8(load: Any, tmp_path: Path) -> None:
    path = tmp_path / "latin1.pyir"
    path.write_bytes(b"import pypto.language as pl\n# caf\xe9\n")
    with pytest.raises(ParserFileError) as info:
        load(path)
    err = info.value
    assert err.message == f"cannot read DSL file '{path}': it is not UTF-8 text (byte 0xe9 at offset 33)"
    assert (err.location.filename, err.location.begin_line, err.location.begin_column) == (str(path), 2, 6)
    assert err.hint == "DSL text is UTF-8: save the file as UTF-8, or check that it is a printed pypto program"
    assert str(err).splitlines()[2:5] == ["  |", "2 | # caf\ufffd", "  |      ^"]


@pytest.mark.parametrize("load", [pl.loads, pl.loads_program])
def test_loads_of_a_missing_path_a_directory_or_a_bad_name(load: Any, tmp_path: Path) -> None:
    missing = tmp_path / "missing.pyir"
    cases = [
        (missing, f"cannot read DSL file '{missing}': no such file", "check the path"),
        (tmp_path, f"cannot read DSL file '{tmp_path}': it is a directory", "pass the path of a .py / .pyir file"),
        ("x" * 300, f"cannot read DSL file '{'x' * 300}': File name too long", "check that the path names"),
        ("a\0b", "cannot read DSL file 'a\0b': embedded null byte", "check that the path names"),
    ]
    for path, message, hint in cases:
        with pytest.raises(ParserFileError) as info:
            load(path)
        assert info.value.message == message
        assert info.value.location.filename == str(path)
        assert info.value.hint is not None and info.value.hint.startswith(hint)
    relative = "no/such/dump.pyir"
    with pytest.raises(ParserFileError) as info:
        load(relative)
    assert info.value.hint == f"check the path (relative paths start at {Path.cwd()})"
    with pytest.raises(ParserTypeError) as wrong:
        text_parser.read_source(b"dump.pyir", "pl.loads")
    assert wrong.value.message == "pl.loads expects a file path (str or pathlib.Path), got bytes"


def test_module_level_constants() -> None:
    text = textwrap.dedent(
        """
        import pypto.language as pl

        M = 16
        SHAPE = [M * 4, 64]
        OFFSETS = (0, 0)
        HALF = M // 2 + 0.5
        N = pl.dynamic("N")
        DT = pl.FP16

        @pl.function
        def f(x: pl.Tensor[SHAPE, DT], y: pl.Tensor[[N, M], pl.FP32]) -> pl.Tensor[[64, 64], DT]:
            t = pl.tensor.slice(x, [M, M], OFFSETS)
            h: pl.FP32 = HALF
            return x
        """
    )
    func = pl.parse(text)
    assert func.params[0].type == ir.TensorType([64, 64], pl.FP16)
    assert func.params[1].type.shape[0].name_hint == "N"
    assert func.body.stmts[1].value.value == 8.5


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("import os", "only pypto.language can be imported in DSL text, not 'os'"),
        ("from os import system", "only pypto.language can be imported in DSL text, not 'os.system'"),
        ("X = __import__('os').system('echo hacked')", "undefined name '__import__' in a module-level constant"),
        ("X = pl.ir.serialize_to_file(1, 'x')", "calling 'pl.ir.serialize_to_file' is not allowed at module level"),
        ("X = pl.__builtins__", "private attribute '__builtins__' is not allowed"),
        ("X = open('/etc/passwd').read()", "undefined name 'open'"),
        ("X = [0] * 10 ** 12", "module-level constant is too large"),
        ("X = 2 ** 10 ** 10", "exponent too large"),
        ("X = (10 ** 4000) ** 4000", "integer too large in a module-level constant"),
        ("X = 1 << 4000\nY = X * X * X * X * X * X * X * X * X * X * X * X * X * X * X * X * X", "integer too large"),
        ("X = 1" + " << 4000" * 17, "integer too large"),
        ("X = (lambda: 1)()", "Lambda is not allowed in a module-level constant"),
        ("print('hi')", "unsupported module-level statement (Expr)"),
        ("if True:\n    X = 1", "unsupported module-level statement (If)"),
        ("X = pl.tensor.create([4], dtype=pl.FP32)", "calling 'pl.tensor.create' is not allowed at module level"),
    ],
)
def test_module_level_code_is_not_executed(line: str, message: str) -> None:
    with pytest.raises(ParserError) as err:
        pl.parse(f"import pypto.language as pl\n{line}\n\n{FUNCTION}")
    assert message in err.value.message


@pytest.mark.parametrize(
    "body",
    [
        "__import__('os').system('echo hacked')",
        "pl.__class__",
        "pl.parse.__globals__",
        "pl.ir.serialize_to_file(n, '/tmp/x')",
        "pl.loads('/etc/passwd')",
        "n.__class__",
        "open('/etc/passwd')",
        "pl.tensor.__dict__",
    ],
)
def test_function_bodies_are_not_executed(body: str, tmp_path: Path) -> None:
    text = f"import pypto.language as pl\n\n@pl.function\ndef f(n: pl.INDEX):\n    y = {body}\n"
    with pytest.raises((UndefinedVariableError, UnsupportedFeatureError, ParserTypeError)):
        pl.parse(text)


def test_prefixes_and_no_import() -> None:
    legacy = "from pypto import language as ir\n\n@ir.function\ndef f(n: ir.INDEX) -> ir.INDEX:\n    return n + 1\n"
    aliased = "import pypto.language as dsl\n\n@dsl.function\ndef f(n: dsl.INDEX) -> dsl.INDEX:\n    return n + 1\n"
    for text in (legacy, aliased, FUNCTION):
        ir.assert_structural_equal(pl.parse(text), pl.parse(FUNCTION))
    func = pl.parse(FUNCTION)
    assert pl.parse(func.as_python("ir")).as_python("ir") == func.as_python("ir")


def test_program_plus_top_level_functions_are_externals() -> None:
    text = textwrap.dedent(
        """
        import pypto.language as pl

        @pl.function
        def helper(n: pl.INDEX) -> pl.INDEX:
            return n * 2

        @pl.program
        class Model:
            @pl.function
            def main(self, n: pl.INDEX) -> pl.INDEX:
                return helper(n)
        """
    )
    prog = pl.parse(text)
    assert sorted(gv.name for gv in prog.functions) == ["helper", "main"]
    assert_roundtrip(prog)


def test_inline_functions_in_text() -> None:
    text = textwrap.dedent(
        """
        import pypto.language as pl

        @pl.inline
        def twice(v):
            return v + v

        @pl.function
        def f(n: pl.INDEX) -> pl.INDEX:
            return twice(n)
        """
    )
    func = pl.parse(text)
    assert isinstance(func.body, ir.ReturnStmt) and isinstance(func.body.value[0], ir.Add)


@pytest.mark.parametrize(
    ("text", "cls", "message"),
    [
        ("x = 1\n", ParserSyntaxError, "no @pl.function or @pl.program found"),
        ("@pl.program\nclass A:\n    pass\n\n@pl.program\nclass B:\n    pass\n", ParserSyntaxError,
         "more than one @pl.program class"),
        ("@pl.jit\ndef f():\n    pass\n", ParserSyntaxError, "functions in DSL text are decorated with @pl.function or @pl.inline"),
        ("@pl.function(1)\ndef f():\n    pass\n", ParserSyntaxError, "decorator options are keyword arguments"),
        ("@pl.function(typ=pl.FunctionType.InCore)\ndef f():\n    pass\n", ParserTypeError, "unexpected keyword argument 'typ'"),
        ("@pl.program\nclass A:\n    x = 1\n", ParserSyntaxError, "contains only @pl.function definitions"),
        ("import pypto.language\n", ParserSyntaxError, "import pypto.language with an alias"),
    ],
)
def test_text_structure_errors(text: str, cls: type[ParserError], message: str) -> None:
    with pytest.raises(cls) as err:
        pl.parse(text)
    assert message in err.value.message


def test_program_with_dynamic_dims_round_trips() -> None:
    text = textwrap.dedent(
        """\
        # pypto.program: Dyn
        import pypto.language as pl

        N = pl.dynamic("N")

        @pl.program
        class Dyn:
            @pl.function
            def main(self, x: pl.Tensor[[N, 64], pl.FP32]) -> pl.Tensor[[N, 64], pl.FP32]:
                y: pl.Tensor[[N, 64], pl.FP32] = pl.tensor.exp(x)
                return y"""
    )
    prog = pl.parse(text)
    assert prog.as_python() == text
    assert_roundtrip(prog, auto_mapping=True)


def test_op_value_errors_in_text() -> None:
    with pytest.raises(InvalidOperationError):
        pl.parse(
            "@pl.function\ndef f(x: pl.Tensor[[64, 64], pl.FP32]):\n"
            "    t = pl.tile.load(x, [0, 0], [64, 64], target_memory=pl.Mem.Left)\n"
        )


@pytest.mark.parametrize(
    ("text", "line"),
    [
        (f"{FUNCTION}\n{FUNCTION}", 6),
        ("@pl.program\nclass P:\n" + textwrap.indent(f"{FUNCTION}\n{FUNCTION}", "    ").replace("(n:", "(self, n:"), 8),
    ],
)
def test_a_function_defined_twice_is_an_error(text: str, line: int) -> None:
    with pytest.raises(ParserSyntaxError) as err:
        pl.parse(text)
    assert err.value.message == "function 'f' is defined twice"
    assert err.value.location.begin_line == line
