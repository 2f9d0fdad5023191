"""find_simulator on a half-finished install names the build log the install script wrote."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import SimpleNamespace

import pytest

from pypto.runtime import install
from pypto.runtime.errors import SimulatorNotInstalledError


def test_an_unfinished_install_points_at_its_build_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    package = tmp_path / "home" / "simpler" / "simpler_setup"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (tmp_path / "home" / "build.log").write_text("cmake ...\n")
    spec = SimpleNamespace(origin=str(package / "__init__.py"))
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: spec)
    with pytest.raises(SimulatorNotInstalledError) as info:
        install.find_simulator()
    assert info.value.message.endswith(f"; the last build's log is {tmp_path / 'home' / 'build.log'}")
    assert "was not installed by scripts/install-simulator.sh" in info.value.message
