"""ir.compile reuses its pass pipeline between compiles that ask for the same one: a plugin pass
installed between two compiles still runs in the second, and pass options still build their own."""

from __future__ import annotations

from pathlib import Path

import pytest

import pypto.language as pl
from pypto import ir
from pypto.passes import PassError

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


def test_pass_options_are_checked_in_every_compile(tmp_path: Path) -> None:
    program = pl.loads_program(str(EXAMPLES / "tile_add.py"))
    ir.compile(program, output_dir=tmp_path / "plain", dump_passes=False)
    with pytest.raises(PassError, match="option 'strategy' must be one of"):
        ir.compile(program, output_dir=tmp_path / "bad", dump_passes=False,
                   pass_options={"MemoryReuse": {"strategy": "nearest"}})
