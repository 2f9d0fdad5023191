"""Every ``examples/jit`` program run on a2a3sim by its own ``check()``, which compares the kernel's
outputs with torch (simulator tier)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from pypto.runtime import simulator_missing_reason

if (_missing := simulator_missing_reason()) is not None:
    pytest.skip(f"simulator tier: {_missing} (scripts/install-simulator.sh installs it)", allow_module_level=True)

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "jit"


@pytest.fixture(autouse=True)
def dirs(tmp_path_factory: pytest.TempPathFactory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYPTO_PROG_BUILD_DIR", str(tmp_path))
    monkeypatch.setenv("PYPTO_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "jit-kernel-cache"))


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.py")), ids=lambda p: p.stem)
def test_example_matches_torch_on_the_simulator(path: Path) -> None:
    spec = importlib.util.spec_from_file_location(f"jit_example_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.check()
