"""scripts/install-simulator.sh stops with a clear message on bad input, before it installs anything."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "install-simulator.sh"


def _run(*args: str, home: Path) -> subprocess.CompletedProcess:
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "PYPTO_SIMULATOR_HOME": str(home)}
    return subprocess.run(["bash", str(SCRIPT), *args], capture_output=True, text=True, env=env, check=False)


def _simpler_tree(root: Path) -> Path:
    for rel in ("pyproject.toml", "simpler_setup/kernel_compiler.py", "python/simpler/worker.py", "src/a2a3/x"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("")
    (root / "pto_isa.pin").write_text("cd4a3d3f7a1a27fcfe536f617e9bca3008929664\n")
    return root


@pytest.mark.parametrize(
    ("make_args", "message", "hint"),
    [
        (lambda t: [], "expected two arguments, got 0", "usage: "),
        (lambda t: [str(t / "nowhere"), "b"], "SIMPLER_DIR '{t}/nowhere' is not a directory", "simpler source tree"),
        (lambda t: [str(t), "b"], "'{t}' is not a simpler source tree (no pyproject.toml)", "project simpler"),
        (
            lambda t: [str(_simpler_tree(t / "simpler")), str(t / "none.bundle")],
            "PTO_ISA_BUNDLE '{t}/none.bundle' does not exist",
            "Ascend PTO project pto-isa",
        ),
    ],
    ids=["usage", "not-a-dir", "not-simpler", "no-bundle"],
)
def test_bad_input_stops_with_a_message_and_a_hint(tmp_path: Path, make_args, message: str, hint: str) -> None:
    home = tmp_path / "home"
    result = _run(*make_args(tmp_path), home=home)
    assert result.returncode == 1
    first, second = result.stderr.splitlines()[:2]
    assert first == "install-simulator: error: " + message.format(t=tmp_path)
    assert second.startswith("  hint: ") and hint in second
    assert not home.exists()
