"""The ``pypto`` command line: the README's main job and its error behaviour."""

from __future__ import annotations

from pathlib import Path

import pytest

import pypto.language as pl
from pypto import ir
from pypto.cli import main

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


@pytest.mark.parametrize("example", sorted(p.name for p in EXAMPLES.glob("*.py")))
def test_compile_example_dumps_every_stage(example: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    assert main(["compile", str(EXAMPLES / example), "-o", str(out)]) == 0
    names = sorted(p.name for p in out.iterdir())
    assert names[0] == "00_frontend.py" and "final.pyir" in names
    assert any(n.endswith("_after_ConvertToSSA.py") for n in names)
    final = pl.parse((out / "final.pyir").read_text())
    assert isinstance(final, ir.Program)
    assert f"wrote {len(names)} file(s)" in capsys.readouterr().out


def test_parse_prints_the_program(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["parse", str(EXAMPLES / "tile_add.py"), "--concise"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("# pypto.program: TileAdd\n")
    assert "tile_c = pl.tile.add(tile_a, tile_b)" in text


def test_missing_file_is_a_diagnostic_not_a_traceback(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["parse", str(tmp_path / "missing.py")]) == 1
    assert capsys.readouterr().err.strip() == f"error: input file '{tmp_path / 'missing.py'}' does not exist"


def test_dsl_error_is_rendered_with_source_and_hint(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text(
        "import pypto.language as pl\n\n"
        "@pl.program\n"
        "class P:\n"
        "    @pl.function\n"
        "    def f(self, x: pl.Tensor[[4], pl.FP32]) -> pl.Tensor[[4], pl.FP32]:\n"
        "        y = pl.tensor.ad(x, x)\n"
        "        return y\n"
    )
    assert main(["compile", str(bad), "-o", str(tmp_path / "out")]) == 1
    err = capsys.readouterr().err
    assert "UndefinedVariableError: 'pl.tensor' has no attribute 'ad'" in err
    assert f"--> {bad}:7:13" in err
    assert "hint: did you mean 'pl.tensor.add'?" in err


def test_bad_arguments_exit_with_usage(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["compile", str(EXAMPLES / "tile_add.py"), "--verify", "loud", "-o", "x"])
    assert exc.value.code == 2
    assert "invalid choice: 'loud'" in capsys.readouterr().err
