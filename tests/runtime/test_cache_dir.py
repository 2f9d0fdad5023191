"""Where the kernel cache lives: ``$PYPTO_CACHE_DIR`` or ``~/.cache/pypto/kernels``, and a clear error when
the variable names a file."""

from __future__ import annotations

from pathlib import Path

import pytest

from pypto.cli import main
from pypto.runtime.cache import KernelCache, default_cache_dir
from pypto.runtime.errors import SimulatorError

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "tile_add.py"


def test_the_variable_names_the_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYPTO_CACHE_DIR", str(tmp_path / "kc"))
    assert default_cache_dir() == tmp_path / "kc"
    monkeypatch.delenv("PYPTO_CACHE_DIR")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert default_cache_dir() == tmp_path / ".cache" / "pypto" / "kernels"


def test_a_file_as_the_cache_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    file = tmp_path / "notes.txt"
    file.write_text("")
    monkeypatch.setenv("PYPTO_CACHE_DIR", str(file))
    with pytest.raises(SimulatorError) as err:
        KernelCache()
    assert str(err.value) == (
        f"the kernel cache {file} is a file, not a folder\n"
        "  hint: set PYPTO_CACHE_DIR to a folder (made when missing), or unset it to use ~/.cache/pypto/kernels"
    )


def test_a_file_given_as_the_cache_is_refused(tmp_path: Path) -> None:
    file = tmp_path / "notes.txt"
    file.write_text("")
    with pytest.raises(SimulatorError) as err:
        KernelCache(file)
    assert str(err.value) == (
        f"the kernel cache {file} is a file, not a folder\n"
        "  hint: give a folder (made when missing) as the kernel cache"
    )


def test_pypto_run_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    file = tmp_path / "notes.txt"
    file.write_text("")
    monkeypatch.setenv("PYPTO_CACHE_DIR", str(file))
    assert main(["run", str(EXAMPLE)]) == 1
    assert f"error: the kernel cache {file} is a file, not a folder\n" in capsys.readouterr().err
