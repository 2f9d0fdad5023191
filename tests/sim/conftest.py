"""The simulator tier: tests that build and run artifact trees on simpler's a2a3sim platform.

Each module that needs the simulator skips as a whole, with one reason line, where simpler is not
installed (``pytest.skip(..., allow_module_level=True)`` on ``simulator_missing_reason()``).
Compiled objects go to one cache per test session, so each kernel compiles once; the build and run
times are printed in the terminal summary.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

# No pypto import here: a conftest import would come before typeguard instruments pypto.
_timings: list[tuple[str, Any]] = []


@pytest.fixture(scope="session")
def kernel_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("kernel-cache")


@pytest.fixture
def record_timing():
    def record(label: str, run: Any) -> None:
        _timings.append((label, run))

    return record


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if not _timings:
        return
    terminalreporter.section("simulator wall times")
    for label, run in _timings:
        builds = ", ".join(f"{b.unit} {b.seconds:.2f}s{' (cached)' if b.cached else ''}" for b in run.builds)
        terminalreporter.write_line(f"{label}: build {builds}; run {run.run_seconds:.3f}s")
