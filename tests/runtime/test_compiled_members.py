"""CompiledProgram members and runner functions checked without running the simulator:
``compiled[name]``, ``build_orch_args`` refusals, ``benchmark`` refusals and the ``debug/run.py``
runner a compile writes (runs are in tests/sim/test_runtime_api.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from entry_result_programs import CreatedResult

import pypto.language as pl
from pypto import ir
from pypto.runtime import RunConfig, SimulatorArgumentError, SimulatorError, benchmark
from pypto.runtime.debug_runner import DESCRIPTION, ENV_SWITCH, RUNNER_FILE, main

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture(scope="module")
def tile_add(tmp_path_factory: pytest.TempPathFactory) -> ir.CompiledProgram:
    program = pl.loads_program(str(EXAMPLES / "tile_add.py"))
    return ir.compile(program, output_dir=tmp_path_factory.mktemp("m") / "tile_add", dump_passes=False)


def test_an_orchestration_is_reached_by_name(tile_add: ir.CompiledProgram) -> None:
    assert tile_add["main"] is tile_add and tile_add.main is tile_add
    with pytest.raises(KeyError, match=r"'other' is not an orchestration of CompiledProgram\(.*\); it has main"):
        tile_add["other"]
    with pytest.raises(AttributeError, match="'CompiledProgram' object has no attribute 'other'"):
        tile_add.other  # noqa: B018


def test_build_orch_args_needs_every_argument_in_contiguous_memory(tile_add: ir.CompiledProgram) -> None:
    a = np.zeros((128, 128), np.float32)
    with pytest.raises(SimulatorArgumentError) as info:
        tile_add.build_orch_args(a, a)
    assert info.value.message == "build_orch_args takes every argument of 'main' (a, b, out), got 2"
    with pytest.raises(SimulatorArgumentError, match=r"a must have shape \[128, 128\], got \[128, 64\]"):
        tile_add.build_orch_args(a[:, :64], a, a)
    strided = np.zeros((128, 256), np.float32)[:, ::2]
    with pytest.raises(ValueError, match="build_orch_args: b must be a contiguous tensor"):
        tile_add.build_orch_args(a, strided, a)


def test_build_orch_args_names_the_tensor_the_entry_creates_and_returns(tmp_path: Path) -> None:
    compiled = ir.compile(CreatedResult, output_dir=tmp_path / "out")
    with pytest.raises(SimulatorArgumentError) as info:
        compiled.build_orch_args(np.zeros((16, 16), np.float32))
    assert info.value.message == "build_orch_args takes every argument of 'main' (a, out), got 1"
    assert info.value.hint == (
        "pass the output tensors too (and out, which 'main' creates and returns): "
        "the arguments refer to the memory the run writes"
    )


def test_benchmark_refuses_bad_rounds_and_platforms(tile_add: ir.CompiledProgram) -> None:
    args = [np.zeros((128, 128), np.float32)] * 3
    with pytest.raises(ValueError, match="benchmark: rounds must be an int >= 1, got 0"):
        benchmark(tile_add, args, rounds=0)
    with pytest.raises(ValueError, match="benchmark: warmup must be an int >= 0, got True"):
        benchmark(tile_add, args, warmup=True)
    with pytest.raises(SimulatorError, match="platform 'a2a3' cannot run here; only a2a3sim runs here"):
        benchmark(tile_add, args, config=RunConfig(), platform="a2a3")


def test_a_compile_writes_the_debug_runner_unless_switched_off(
    tile_add: ir.CompiledProgram, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert RUNNER_FILE in tile_add.files
    script = tile_add.output_dir / RUNNER_FILE
    usage = subprocess.run([sys.executable, str(script), "--help"], capture_output=True, text=True, check=True)
    words = " ".join(usage.stdout.split())
    usage_line = f"usage: {tile_add.output_dir}/{RUNNER_FILE} [-h] [--seed SEED] [NAME=VALUE ...]"
    assert words.startswith(f"{usage_line} {DESCRIPTION}")
    for off in ("0", "false", "No"):
        monkeypatch.setenv(ENV_SWITCH, off)
        compiled = ir.compile(pl.loads_program(str(EXAMPLES / "tile_add.py")), output_dir=tmp_path / off)
        assert RUNNER_FILE not in compiled.files and not (tmp_path / off / "debug").exists()


def test_the_debug_runner_refuses_what_it_cannot_make(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    compiled = ir.compile(pl.loads_program(str(EXAMPLES / "tensor_dyn_rows.py")), output_dir=tmp_path / "dyn")
    for argv, message in [
        ([], "tensor 'x' has a dynamic dimension: give its shape, e.g. x=64x64"),
        (["y=3"], "'y=3': expected NAME=VALUE with NAME one of out, x"),
        (["x=4by64"], "x=4by64: a shape is written like 4x128"),
    ]:
        with pytest.raises(SystemExit):
            main(compiled.output_dir, argv)
        assert capsys.readouterr().err.rstrip().endswith(f"error: {message}")
