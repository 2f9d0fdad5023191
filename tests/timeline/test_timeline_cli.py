"""``pypto timeline`` and ``pypto run --swimlane``'s argument checks; a capture asked where nothing runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from timeline_captures import write_run

import pypto.language as pl
from pypto.cli import main
from pypto.runtime import CaptureError, RunConfig, run

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_timeline_writes_the_svg_and_the_trace_beside_the_records(tmp_path: Path, capsys) -> None:
    root = write_run(tmp_path / "run")
    assert main(["timeline", str(root)]) == 0
    dfx = root / "dfx_outputs"
    assert capsys.readouterr().out == (
        "2 task runs on 2 cores over 160.0 µs, 1 dependency edges (swimlane level 4)\n"
        f"  wrote {dfx / 'timeline.svg'} and {dfx / 'timeline.trace.json'} "
        "(open the .json in https://ui.perfetto.dev)\n"
    )
    assert (dfx / "timeline.svg").read_text().startswith("<?xml")
    assert json.loads((dfx / "timeline.trace.json").read_text())["traceEvents"]


def test_timeline_writes_where_it_is_told(tmp_path: Path, capsys) -> None:
    root = write_run(tmp_path / "run", deps=False)
    svg, trace = tmp_path / "pic.svg", tmp_path / "t.json"
    assert main(["timeline", str(root), "-o", str(svg), "--trace", str(trace), "--width", "600"]) == 0
    assert 'width="600"' in svg.read_text() and trace.is_file()
    assert "no deps.json beside the records" in capsys.readouterr().out


def test_timeline_without_records_is_an_error(tmp_path: Path, capsys) -> None:
    root = write_run(tmp_path / "run")
    (root / "dfx_outputs" / "chip_swimlane_records.json").unlink()
    assert main(["timeline", str(root)]) == 1
    err = capsys.readouterr().err
    records = root / "dfx_outputs" / "chip_swimlane_records.json"
    assert err.startswith(f"error: {records} does not exist\n  hint: run with")


@pytest.mark.parametrize("level", ["5", "-1", "x"])
def test_a_swimlane_level_outside_0_to_4_is_refused(level: str, capsys) -> None:
    with pytest.raises(SystemExit):
        main(["run", str(EXAMPLES / "tile_add.py"), "--swimlane", level])
    assert f"invalid swimlane level '{level}': expected 0 (off) to 4" in capsys.readouterr().err


def test_a_capture_on_a_run_that_only_compiles_is_refused(tmp_path: Path) -> None:
    program = pl.loads_program(str(EXAMPLES / "tile_add.py"))
    config = RunConfig(codegen_only=True, enable_chip_swimlane=2, enable_dep_gen=True)
    with pytest.raises(CaptureError) as caught:
        run(program, config=config)
    assert caught.value.message == (
        "enable_chip_swimlane, enable_dep_gen ask for a capture of the run, but nothing runs: codegen_only=True"
    )
    with pytest.raises(ValueError, match="nothing runs: no tensors are given"):
        run(program, config=RunConfig(enable_dump_args=1, save_kernels_dir=str(tmp_path / "k")))
