"""``pypto run`` on the simulator: a progress line per unit being compiled, none from the kernel cache,
and nothing left behind in the temporary directory or the cache's ``runs/`` when the run passes."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

import pytest

from pypto.runtime import simulator_missing_reason

if (_missing := simulator_missing_reason()) is not None:
    pytest.skip(f"simulator tier: {_missing} (scripts/install-simulator.sh installs it)", allow_module_level=True)

from pypto.cli import main
from pypto.runtime import build

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "tile_add.py"


def test_run_reports_each_compiled_unit_and_leaves_no_litter(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    temp = tmp_path / "tmp"
    temp.mkdir()
    cache = tmp_path / "cache"
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    monkeypatch.setenv("PYPTO_CACHE_DIR", str(cache))
    monkeypatch.setattr(build, "PROGRESS_AFTER", 0.0)

    assert main(["run", str(EXAMPLE)]) == 0
    err = capsys.readouterr().err
    assert "pypto: building orchestration (1 of 2) ...\n" in err
    assert "pypto: building tile_add (2 of 2) ...\n" in err
    assert list(temp.iterdir()) == []
    assert list((cache / "runs").iterdir()) == []

    assert main(["run", str(EXAMPLE)]) == 0
    captured = capsys.readouterr()
    assert "building" not in captured.err.replace("building and running", "")
    assert re.search(r"build orchestration \d+\.\d\ds \(cached\), tile_add \d+\.\d\ds \(cached\);", captured.out)
    assert list(temp.iterdir()) == []
    assert list((cache / "runs").iterdir()) == []
