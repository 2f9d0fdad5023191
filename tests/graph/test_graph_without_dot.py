"""Without Graphviz's ``dot`` the task graph is refused with a clear error saying how to install it, before any
compile work."""

from __future__ import annotations

from pathlib import Path

import pytest

import pypto.language as pl
from pypto import ir
from pypto.cli import main
from pypto.graph import GraphvizMissingError, build_task_graph, render_svg

EXAMPLES = Path(__file__).resolve().parent.parent.parent / "examples"


@pytest.fixture(autouse=True)
def _no_dot(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("shutil.which", lambda name: None)


def test_drawing_needs_dot() -> None:
    graph = build_task_graph(ir.compile(pl.loads_program(str(EXAMPLES / "tile_add.py")), dump_passes=False)
                             .final_program)
    with pytest.raises(GraphvizMissingError, match="needs Graphviz's 'dot' program.*apt-get install graphviz"):
        render_svg(graph)


def test_the_command_fails_before_compiling(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["graph", str(EXAMPLES / "tile_add.py"), "-o", str(tmp_path / "g.svg")]) == 1
    err = capsys.readouterr().err
    assert "drawing a task graph needs Graphviz's 'dot' program" in err and "apt-get install graphviz" in err
    assert "compiling" not in err
    assert not (tmp_path / "g.svg").exists()


def test_the_compile_option_fails_before_the_passes(tmp_path: Path) -> None:
    with pytest.raises(GraphvizMissingError):
        ir.compile(pl.loads_program(str(EXAMPLES / "tile_add.py")), output_dir=tmp_path / "out", graph=True)
    assert not (tmp_path / "out").exists()
