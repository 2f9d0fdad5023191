"""ir.compile reuses its pass pipeline between compiles that ask for the same one: a plugin pass
installed between two compiles still runs in the second, and pass options still build their own.
The installed entry points are read again when a distribution appears, not when a compile writes
its output into a folder on ``sys.path``."""

from __future__ import annotations

import os
import shutil
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

import pypto.language as pl
from pypto import ir
from pypto.passes import PassError
from pypto.transform import plugins

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def _dumped_passes(out: Path) -> list[str]:
    return sorted(p.name.split("_after_", 1)[1][:-3] for p in (out / "passes_dump").glob("*_after_*.py"))


def test_a_plugin_installed_after_a_compile_runs_in_the_next(tmp_path: Path) -> None:
    from demo_plugin import demo_plugin_on_path

    program = pl.loads_program(str(EXAMPLES / "tile_add.py"))
    ir.compile(program, output_dir=tmp_path / "before")
    assert "MarkVisited" not in _dumped_passes(tmp_path / "before")
    with demo_plugin_on_path(tmp_path / "plugin"):
        ir.compile(program, output_dir=tmp_path / "with")
    assert "MarkVisited" in _dumped_passes(tmp_path / "with")
    ir.compile(program, output_dir=tmp_path / "after")
    assert _dumped_passes(tmp_path / "after") == _dumped_passes(tmp_path / "before")


def _passes_around(tmp_path: Path, site: Path, change: Callable[[], object]) -> tuple[list[str], list[str]]:
    """The passes of a compile with ``site`` on ``sys.path``, and of the next one after ``change()``."""
    from demo_plugin import forget

    program = pl.loads_program(str(EXAMPLES / "tile_add.py"))
    sys.path.insert(0, str(site))
    try:
        forget()
        ir.compile(program, output_dir=tmp_path / "before")
        change()
        forget()
        ir.compile(program, output_dir=tmp_path / "after")
    finally:
        sys.path.remove(str(site))
        forget()
    return _dumped_passes(tmp_path / "before"), _dumped_passes(tmp_path / "after")


def _settled(folder: Path) -> None:
    """An old folder: its listing is kept until its time changes."""
    settled = time.time() - 100
    os.utime(folder, (settled, settled))


def test_a_plugin_installed_into_a_folder_already_on_sys_path_runs_in_the_next(tmp_path: Path) -> None:
    from demo_plugin import write_distribution

    site = tmp_path / "site"
    site.mkdir()
    _settled(site)
    before, after = _passes_around(tmp_path, site, lambda: write_distribution(site))
    assert "MarkVisited" not in before and "MarkVisited" in after


def test_a_plugin_removed_from_a_folder_still_on_sys_path_no_longer_runs(tmp_path: Path) -> None:
    from demo_plugin import write_distribution

    site = tmp_path / "site"
    site.mkdir()
    info = write_distribution(site)
    _settled(site)  # its listing with the plugin is kept until the folder's time changes
    before, after = _passes_around(tmp_path, site, lambda: shutil.rmtree(info))
    assert "MarkVisited" in before and "MarkVisited" not in after


def test_a_plugin_in_a_sys_path_folder_made_after_a_compile_runs_in_the_next(tmp_path: Path) -> None:
    from demo_plugin import write_distribution

    site = tmp_path / "site"  # on sys.path before it exists, as a missing entry is

    def install() -> None:
        site.mkdir()
        write_distribution(site)

    before, after = _passes_around(tmp_path, site, install)
    assert "MarkVisited" not in before and "MarkVisited" in after


def test_the_current_folder_on_sys_path_is_the_one_of_each_compile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from demo_plugin import forget, write_distribution

    program = pl.loads_program(str(EXAMPLES / "tile_add.py"))
    plain, site = tmp_path / "plain", tmp_path / "site"
    plain.mkdir()
    site.mkdir()
    write_distribution(site)
    for folder in (plain, site):  # both listings are kept: only the folder's identity tells them apart
        _settled(folder)
    monkeypatch.syspath_prepend("")
    try:
        monkeypatch.chdir(plain)
        forget()
        ir.compile(program, output_dir=tmp_path / "out" / "in_plain")
        monkeypatch.chdir(site)
        forget()
        ir.compile(program, output_dir=tmp_path / "out" / "in_site")
        monkeypatch.chdir(plain)
        forget()
        ir.compile(program, output_dir=tmp_path / "out" / "back")
    finally:
        monkeypatch.undo()
        forget()
    assert "MarkVisited" not in _dumped_passes(tmp_path / "out" / "in_plain")
    assert "MarkVisited" in _dumped_passes(tmp_path / "out" / "in_site")
    assert "MarkVisited" not in _dumped_passes(tmp_path / "out" / "back")


def test_compiling_into_a_folder_on_sys_path_does_not_read_the_entry_points_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    program = pl.loads_program(str(EXAMPLES / "tile_add.py"))
    monkeypatch.syspath_prepend(str(tmp_path))
    ir.compile(program, output_dir=tmp_path / "first", dump_passes=False)
    reads: list[str] = []
    real = plugins.entry_points
    monkeypatch.setattr(plugins, "entry_points", lambda group: reads.append(group) or real(group=group))
    ir.compile(program, output_dir=tmp_path / "second", dump_passes=False)
    ir.compile(program, output_dir=tmp_path / "third", dump_passes=False)
    assert reads == []


def test_pass_options_are_checked_in_every_compile(tmp_path: Path) -> None:
    program = pl.loads_program(str(EXAMPLES / "tile_add.py"))
    ir.compile(program, output_dir=tmp_path / "plain", dump_passes=False)
    with pytest.raises(PassError, match="option 'strategy' must be one of"):
        ir.compile(program, output_dir=tmp_path / "bad", dump_passes=False,
                   pass_options={"MemoryReuse": {"strategy": "nearest"}})
