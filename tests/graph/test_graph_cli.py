"""``pypto graph`` and ``pypto compile --graph``: the picture written where asked, and the errors of bad input."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from graph_pictures import read, requires_dot

import pypto.language as pl
from pypto import ir
from pypto.cli import main

pytestmark = requires_dot

EXAMPLES = Path(__file__).resolve().parent.parent.parent / "examples"


@pytest.fixture(autouse=True)
def _temporary_folders_in_tmp_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))


def test_graph_writes_the_picture_and_says_what_it_shows(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    svg = tmp_path / "graph.svg"
    assert main(["graph", str(EXAMPLES / "deps_phase_fence.py"), "-o", str(svg)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("compiled DepsPhaseFence in ") and out[0].endswith(f" -> {svg}")
    assert out[1] == "  3 task sites, 3 edges (1 explicit, 2 fence)"
    assert [t["kernel"] for t in read(svg.read_text()).tasks] == ["phase fence barrier", "kernel_stripe", "finish"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["graph.svg"]  # the compile's tree is not left behind


def test_graph_without_output_writes_beside_the_current_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["graph", str(EXAMPLES / "tile_add.py")]) == 0
    assert (tmp_path / "tile_add.graph.svg").is_file()


def test_graph_folds_at_the_limit_given(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    svg = tmp_path / "g.svg"
    assert main(["graph", str(EXAMPLES / "deps_fan_in.py"), "-o", str(svg), "--fold", "3"]) == 0
    # all four are in the manual scope, the innermost frame: it becomes one box
    assert capsys.readouterr().out.splitlines()[1] == "  1 task site (folded from 4), 0 edges"
    assert [(t["kernel"], t["folded"]) for t in read(svg.read_text()).tasks] == [
        ("in manual scope: consume, half, task_dummy", "4")]


@pytest.mark.parametrize(("output", "message"), [
    (".", "is a folder (hint: give a file name, e.g. -o graph.svg)"),
    ("missing/graph.svg", "is in a folder that does not exist"),
])
def test_an_output_that_cannot_take_the_picture_is_refused_before_compiling(
    output: str, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / output
    assert main(["graph", str(EXAMPLES / "tile_add.py"), "-o", str(target)]) == 2
    err = capsys.readouterr().err
    assert f"pypto graph: error: the output {target} {message}" in err
    assert "compiling" not in err


def test_an_output_the_system_refuses_is_an_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["graph", str(EXAMPLES / "tile_add.py"), "-o", "/proc/pypto-graph.svg"]) == 2
    assert "pypto graph: error: cannot write /proc/pypto-graph.svg: " in capsys.readouterr().err


def test_a_program_that_does_not_compile_draws_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text((EXAMPLES / "tile_add.py").read_text().replace("pl.add(", "pl.addd("))
    svg = tmp_path / "bad.svg"
    assert main(["graph", str(bad), "-o", str(svg)]) == 1
    err = capsys.readouterr().err
    assert "addd" in err and "Traceback" not in err
    assert not svg.exists()


def test_a_program_without_orchestration_has_no_graph(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    svg = tmp_path / "g.svg"
    assert main(["graph", str(EXAMPLES / "loop_sum.py"), "-o", str(svg)]) == 1
    assert "error: program 'LoopSum' has no Orchestration function" in capsys.readouterr().err
    assert not svg.exists()


def test_compile_graph_writes_it_into_the_tree(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    assert main(["compile", str(EXAMPLES / "row_blocks.py"), "-o", str(out), "--graph"]) == 0
    assert "graph.svg" in capsys.readouterr().out
    picture = read((out / "graph.svg").read_text())
    assert [t["kernel"] for t in picture.tasks] == ["block_add"]


def test_the_compile_option(tmp_path: Path) -> None:
    compiled = ir.compile(pl.loads_program(str(EXAMPLES / "manual_deps.py")), output_dir=tmp_path / "a", graph=True)
    assert "graph.svg" in compiled.files
    assert {e["kind"] for e in read((tmp_path / "a" / "graph.svg").read_text()).edges} == {"explicit"}
    assert "graph.svg" not in ir.compile(pl.loads_program(str(EXAMPLES / "manual_deps.py")),
                                         output_dir=tmp_path / "b").files
    # a program without orchestration compiles as before, with no graph
    kernels_only = ir.compile(pl.loads_program(str(EXAMPLES / "loop_sum.py")), output_dir=tmp_path / "c", graph=True)
    assert "graph.svg" not in kernels_only.files


@pytest.mark.parametrize("value", ["1", "many"])
def test_a_bad_fold_limit_is_a_usage_error(value: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["graph", "x.py", "--fold", value])
    assert exc.value.code == 2
    assert f"argument --fold: invalid fold limit '{value}': expected a number of boxes >= 2" in capsys.readouterr().err
