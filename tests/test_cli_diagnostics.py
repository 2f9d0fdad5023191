"""The ``pypto`` command line's output streams and diagnostics: stdout holds only what the command
prints, errors are rendered with source line, caret and hint, and --help / --version are cheap."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import pypto.language as pl
from pypto import ir
from pypto.cli import main
from shared_programs import INLINE_UNROLL

STATIC_PRINT = """
import pypto.language as pl


@pl.program
class P:
    @pl.function
    def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        pl.static_print("n is", n)
        return n
"""

def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text).lstrip("\n"))
    return path


def test_parse_writes_static_prints_to_stderr_so_stdout_parses_back(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, "sp.py", STATIC_PRINT)
    assert main(["parse", str(path)]) == 0
    captured = capsys.readouterr()
    assert captured.err == f"static_print [{path}:8]: n is n: pl.Scalar[pl.INDEX]\n"
    assert isinstance(pl.parse(captured.out), ir.Program)


def test_a_pass_error_is_rendered_with_source_line_caret_and_hint(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, "b16.py", INLINE_UNROLL)
    assert main(["compile", str(path), "-o", str(tmp_path / "out")]) == 1
    err = capsys.readouterr().err
    assert err.endswith(
        "PassError: UnrollLoops: pl.unroll needs a constant stop\n"
        f"  --> {path}:8:9\n"
        "  |\n"
        "8 |         for i in pl.unroll(k):\n"
        "  |         ^^^^^^^^^^^^^^^^^^^^^^\n"
        "  = hint: give pl.unroll int literals or closure ints (a loop over a runtime bound is pl.range)\n"
    )


def test_a_non_constant_unroll_bound_is_a_parse_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "b16.py", INLINE_UNROLL.replace("(type=pl.FunctionType.Inline)", ""))
    assert main(["parse", str(path)]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith(
        "ParserTypeError: pl.unroll needs a constant stop, but it reads the variable 'k'\n"
        f"  --> {path}:8:18\n"
    )


def test_version_is_printed(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    assert capsys.readouterr().out == "pypto 0.1.0\n"


@pytest.mark.parametrize("flag", ["--help", "--version"])
def test_help_and_version_do_not_import_the_compiler(flag: str) -> None:
    code = (
        "import sys\n"
        "from pypto.cli import main\n"
        "try:\n"
        f"    main([{flag!r}])\n"
        "except SystemExit:\n"
        "    pass\n"
        "heavy = sorted(m for m in ('numpy', 'pypto.ir', 'pypto.passes', 'pypto.language') if m in sys.modules)\n"
        "print(heavy, file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stderr == "[]\n"
