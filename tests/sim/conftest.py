"""The simulator tier: tests that build and run artifact trees on simpler's a2a3sim platform.

They skip, with one reason line, where simpler is not installed (run scripts/install-simulator.sh).
Compiled objects go to one cache per test session, so each kernel compiles once; the build and run
times are printed in the terminal summary.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

# pypto is imported inside the fixtures: a conftest import would come before typeguard instruments it.
_timings: list[tuple[str, Any]] = []


@pytest.fixture
def simulator() -> None:
    from pypto.runtime import simulator_missing_reason

    reason = simulator_missing_reason()
    if reason is not None:
        pytest.skip(f"simulator tier: {reason} (scripts/install-simulator.sh installs it)")


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
        builds = ", ".join(
            f"{b.unit} {b.seconds:.2f}s{' (cached)' if b.cached else ''}" for b in run.builds
        )
        terminalreporter.write_line(f"{label}: build {builds}; run {run.run_seconds:.3f}s")
