"""Find the simulator that ``scripts/install-simulator.sh`` installed for this Python.

The script pip-installs an editable copy of simpler at ``<home>/simpler`` and puts the compiler
shims (``g++-15`` running clang++-19, and ``gcc``/``g++`` admitting two compilers at a time) in
``<home>/bin`` beside it, with a ``<home>/stamp`` naming what was installed. Finding simpler's
package on ``sys.path`` (without importing it) is enough to find the rest.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from .errors import SimulatorNotInstalledError

_HINT = (
    "run scripts/install-simulator.sh SIMPLER_DIR PTO_ISA_BUNDLE with this Python first on PATH "
    "(see the README section 'Running on the simulator')"
)


@dataclass(frozen=True)
class SimulatorInstall:
    """Where the installed simulator lives: simpler's source copy, the compiler shims and the stamp."""

    simpler_root: Path
    bin_dir: Path
    stamp: str

    @property
    def pto_isa_root(self) -> Path:
        """The pto-isa checkout simpler uses (at the commit simpler pins)."""
        return self.simpler_root / "build" / "pto-isa"

    @property
    def prebuilt(self) -> Path:
        """The toolchain artifacts built at install (:mod:`pypto.runtime.prebuild`): precompiled headers and
        the runtime's fixed orchestration objects, looked up after the kernel cache."""
        return self.bin_dir.parent / "prebuilt"

    @contextlib.contextmanager
    def toolchain_path(self) -> Iterator[None]:
        """Put the compiler shims first on PATH for the child processes started inside the block."""
        old = os.environ.get("PATH", "")
        os.environ["PATH"] = os.pathsep.join([str(self.bin_dir), old]) if old else str(self.bin_dir)
        try:
            yield
        finally:
            os.environ["PATH"] = old


def find_simulator() -> SimulatorInstall:
    """The simulator installed for this Python; ``SimulatorNotInstalledError`` with a hint if none."""
    spec = importlib.util.find_spec("simpler_setup")
    if spec is None or spec.origin is None or importlib.util.find_spec("simpler") is None:
        raise SimulatorNotInstalledError("simpler (the PTO2 runtime with the a2a3sim platform) is not installed", _HINT)
    root = Path(spec.origin).resolve().parent.parent
    home = root.parent
    stamp = home / "stamp"
    shim = home / "bin" / "g++-15"
    if not stamp.is_file() or not shim.is_file():
        log = home / "build.log"
        seen = f"; the last build's log is {log}" if log.is_file() else ""
        raise SimulatorNotInstalledError(
            f"simpler at {root} was not installed by scripts/install-simulator.sh (no {stamp} or {shim}){seen}", _HINT
        )
    pto_isa = root / "build" / "pto-isa" / "include" / "pto" / "pto-inst.hpp"
    if not pto_isa.is_file():
        raise SimulatorNotInstalledError(f"pto-isa is missing from the simpler install ({pto_isa})", _HINT)
    return SimulatorInstall(simpler_root=root, bin_dir=home / "bin", stamp=stamp.read_text())


def simulator_missing_reason() -> str | None:
    """One line saying why the simulator cannot run here, or ``None`` when it is installed."""
    try:
        find_simulator()
    except SimulatorNotInstalledError as err:
        return err.message
    return None
