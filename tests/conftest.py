"""Shared test fixtures: snapshots live in the top-level ``snapshots/`` folder as plain text; the
demo plugin is discoverable in the tests that ask for ``demo_plugin`` (never installed); temporary
folders (``ir.compile`` without an output folder, compilers run by the tests) go under pytest's own
temporary folder, which pytest prunes, never straight into the system's."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from demo_plugin import demo_plugin_on_path
from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode
from syrupy.location import PyTestLocation

SNAPSHOT_ROOT = Path(__file__).resolve().parent.parent / "snapshots"


class TextSnapshot(SingleFileSnapshotExtension):
    """One readable ``.txt`` file per snapshot, under ``snapshots/<test module>/``."""

    _write_mode = WriteMode.TEXT
    file_extension = "txt"

    @classmethod
    def dirname(cls, *, test_location: PyTestLocation) -> str:
        return str(SNAPSHOT_ROOT / test_location.basename)


@pytest.fixture
def snapshot(snapshot):  # noqa: F811 - deliberately overrides syrupy's fixture
    return snapshot.use_extension(TextSnapshot)


@pytest.fixture
def demo_plugin(tmp_path_factory: pytest.TempPathFactory):
    """The demo plugin of tests/plugin_pkg, on a temporary path for this test only."""
    with demo_plugin_on_path(tmp_path_factory.mktemp("demo_plugin")):
        yield


@pytest.fixture(scope="session", autouse=True)
def _temporary_folders_under_pytest(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Temporary folders, and the ``build_output/<Program>_<time>`` folder of each compile without an output
    folder, go under pytest's temporary folder: not into /tmp or the repository."""
    folder = str(tmp_path_factory.mktemp("tmp"))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(tempfile, "tempdir", folder)
        patch.setenv("TMPDIR", folder)
        patch.setenv("PYPTO_PROG_BUILD_DIR", str(tmp_path_factory.mktemp("build_output")))
        yield


@pytest.fixture(scope="session", autouse=True)
def _strict_checks() -> Iterator[None]:
    """Every pass boundary is checked in full (``strict``; users' default is ``basic``) unless
    ``PYPTO_VERIFY_LEVEL`` says otherwise: a pass that breaks an invariant fails at its own pass."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PYPTO_VERIFY_LEVEL", os.environ.get("PYPTO_VERIFY_LEVEL", "strict"))
        yield
