"""Bounds of task windows on a2a3sim (docs/simulator.md#bounds): a scalar argument that drives a task's
window outside its tensor is a SimulatorBoundsError naming the task, the tensor, the window and the
shape, before anything runs (CompiledProgram, pypto run: exit 1), or from the orchestration's guard
when the artifact tree runs directly; the caller's arrays stay as they were and the next call runs.
In-bounds values run as the interpreter says, and a loop of zero trips ends."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import pypto.language as pl
from pypto import ir
from pypto.cli import main
from pypto.compiled import CompiledProgram, parameters
from pypto.runtime import SimulatorBoundsError, run_on_simulator, simulator_missing_reason

if (_missing := simulator_missing_reason()) is not None:
    pytest.skip(f"simulator tier: {_missing} (scripts/install-simulator.sh installs it)", allow_module_level=True)

# A kernel loading and storing 16 rows at a row its orchestration passes: task i copies rows 16i..16i+15.
LOOP = """
import pypto.language as pl


@pl.program
class LoopScalar:
    @pl.function(type=pl.FunctionType.InCore)
    def block_copy(
        self,
        x: pl.Tensor[[64, 64], pl.FP32],
        out: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
        row: pl.Scalar[pl.INDEX],
    ) -> pl.Tensor[[64, 64], pl.FP32]:
        t: pl.Tile[[16, 64], pl.FP32] = pl.load(x, [row, 0], [16, 64])
        out = pl.store(t, [row, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self,
        x: pl.Tensor[[64, 64], pl.FP32],
        n: pl.Scalar[pl.INDEX],
        first: pl.Scalar[pl.INDEX],
        out: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
    ) -> pl.Tensor[[64, 64], pl.FP32]:
        for i in pl.range(n):
            out = self.block_copy(x, out, first + i * 16)
        return out
"""

# The tensor-level form: the pl.at body is outlined into a kernel that takes i.
AT = """
import pypto.language as pl


@pl.program
class AtScalar:
    @pl.function
    def main(
        self,
        x: pl.Tensor[[64, 64], pl.FP32],
        n: pl.Scalar[pl.INDEX],
        out: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
    ) -> pl.Tensor[[64, 64], pl.FP32]:
        for i in pl.range(n):
            with pl.at(level=pl.Level.CORE_GROUP):
                t: pl.Tensor[[16, 64], pl.FP32] = pl.slice(x, [16, 64], [i * 16, 0])
                y: pl.Tensor[[16, 64], pl.FP32] = pl.add(t, t)
                out = pl.assemble(out, y, [i * 16, 0])
        return out
"""


@pytest.fixture(scope="module")
def loop(tmp_path_factory: pytest.TempPathFactory) -> CompiledProgram:
    return ir.compile(pl.parse(LOOP, filename="loop.py"), output_dir=tmp_path_factory.mktemp("loop") / "out")


def test_a_window_past_the_end_is_an_error_before_anything_runs(loop: CompiledProgram, kernel_cache: Path) -> None:
    x = np.arange(64 * 64, dtype=np.float32).reshape(64, 64)
    out = np.full((64, 64), 7.0, dtype=np.float32)
    loop.last_run = None
    with pytest.raises(SimulatorBoundsError) as caught:
        loop.run(x, 10, 0, out, cache_dir=kernel_cache)
    assert caught.value.message == "task 'block_copy' (loop.py:27) reads x[64:80, 0:64] outside its shape [64, 64]"
    assert "nothing ran" in caught.value.hint
    assert loop.last_run is None and (out == 7.0).all()


def test_the_orchestration_guard_stops_the_run_and_the_next_one_runs(loop: CompiledProgram, kernel_cache: Path) -> None:
    x = np.arange(64 * 64, dtype=np.float32).reshape(64, 64)
    out = np.full((64, 64), 7.0, dtype=np.float32)
    params = parameters(loop.final_program.get_function("main"))
    with pytest.raises(SimulatorBoundsError) as caught:  # straight to the simulator: no check before the run
        run_on_simulator(loop.output_dir, [x, 10, 0, out], params, cache_dir=kernel_cache)
    assert caught.value.message == "task 'block_copy' (loop.py:27) reads x[64:80, 0:64] outside its shape [64, 64]"
    assert "stopped before submitting the task" in caught.value.hint
    assert (out == 7.0).all() and (x == np.arange(64 * 64, dtype=np.float32).reshape(64, 64)).all()
    run_on_simulator(loop.output_dir, [x, 4, 0, out], params, cache_dir=kernel_cache)
    np.testing.assert_array_equal(out, x)


def test_a_negative_window_start_stops_the_run(loop: CompiledProgram, kernel_cache: Path) -> None:
    x = np.ones((64, 64), dtype=np.float32)
    with pytest.raises(SimulatorBoundsError, match=r"reads x\[-16:0, 0:64\] outside its shape \[64, 64\]"):
        loop.run(x, 1, -16, np.zeros((64, 64), dtype=np.float32), cache_dir=kernel_cache)


def test_in_bounds_values_run_as_the_interpreter_says(loop: CompiledProgram, kernel_cache: Path) -> None:
    x = np.random.default_rng(0).standard_normal((64, 64), dtype=np.float32)
    got, want = np.full((64, 64), 7.0, np.float32), np.full((64, 64), 7.0, np.float32)
    loop.run(x, 2, 32, got, cache_dir=kernel_cache)
    loop.interpret(x, 2, 32, want)
    np.testing.assert_array_equal(got, want)  # rows 0..31 are not written: both keep the caller's 7.0
    assert (got[:32] == 7.0).all()


def test_a_run_of_no_task_ends(loop: CompiledProgram, kernel_cache: Path) -> None:
    loop.run(np.ones((64, 64), dtype=np.float32), 0, 0, np.zeros((64, 64), dtype=np.float32), cache_dir=kernel_cache)


def test_pypto_run_prints_the_guard_and_exits_1(tmp_path: Path, kernel_cache: Path, capsys: pytest.CaptureFixture[str],
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYPTO_CACHE_DIR", str(kernel_cache))
    source = tmp_path / "at.py"
    source.write_text(AT)
    inputs = tmp_path / "in.npz"
    np.savez(inputs, n=np.int64(10))
    assert main(["run", str(source), "--inputs", str(inputs), "-o", str(tmp_path / "out")]) == 1
    err = capsys.readouterr().err
    assert "error: task 'main_incore_0' (at.py:15) reads x[64:80, 0:64] outside its shape [64, 64]" in err
    np.savez(inputs, n=np.int64(4))
    assert main(["run", str(source), "--inputs", str(inputs), "-o", str(tmp_path / "out")]) == 0
    assert "  out: max error 0 ok" in capsys.readouterr().out


# An element read at an index the caller passes: the orchestration reads x[k, 0] itself.
READ = """
@pl.program
class ReadAt:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64, 64], pl.FP32], k: pl.Scalar[pl.INDEX],
             out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        v = x[k, 0]
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(x, [0, 0], [64, 64])
            pl.store(pl.mul(t, v), [0, 0], out)
        return out
"""


def test_an_element_read_outside_its_tensor_stops_the_run(tmp_path: Path, kernel_cache: Path) -> None:
    """get_tensor_data would read past x (a2a3sim returned whatever lay there); the guard stops the run."""
    compiled = ir.compile(pl.parse(READ, filename="read.py"), output_dir=tmp_path / "out", dump_passes=False)
    x = np.arange(64 * 64, dtype=np.float32).reshape(64, 64) / 4096
    out = np.zeros((64, 64), np.float32)
    compiled.run(x, 3, out, cache_dir=kernel_cache)
    np.testing.assert_array_equal(out, compiled.interpret(x, 3))
    with pytest.raises(SimulatorBoundsError) as info:
        compiled.run(x, 70, out, cache_dir=kernel_cache)
    assert info.value.message == "tensor.read (read.py:7) reads element 70 of axis 0 of 'x', whose extent is 64"
