"""The established runtime API on a2a3sim: ``compiled(..., config=)`` with torch tensors and names,
``pypto.runtime.run``, a DFX flag, and a ``ChipWorker`` reused by calls, register handles and
resident device tensors; every result equals the interpreter's."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import pypto.language as pl
from pypto import ir
from pypto.runtime import (
    ChipWorker,
    RunConfig,
    SimulatorArgumentError,
    SimulatorError,
    execute_compiled,
    run,
    simulator_missing_reason,
)

if (_missing := simulator_missing_reason()) is not None:
    pytest.skip(f"simulator tier: {_missing} (scripts/install-simulator.sh installs it)", allow_module_level=True)

torch = pytest.importorskip("torch")

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture(autouse=True)
def _shared_kernel_cache(kernel_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYPTO_CACHE_DIR", str(kernel_cache))  # calls without cache_dir= read it


@pytest.fixture(scope="module")
def tile_add(tmp_path_factory: pytest.TempPathFactory) -> ir.CompiledProgram:
    program = pl.loads_program(str(EXAMPLES / "tile_add.py"))
    return ir.compile(program, output_dir=tmp_path_factory.mktemp("rt") / "tile_add", dump_passes=False)


def inputs() -> tuple:
    gen = torch.Generator().manual_seed(0)
    return torch.rand(128, 128, generator=gen), torch.rand(128, 128, generator=gen)


def test_a_call_with_config_and_names_matches_the_interpreter(tile_add: ir.CompiledProgram) -> None:
    a, b = inputs()
    expected = tile_add.interpret(a, b)
    out = tile_add(a, b, config=RunConfig(aicpu_thread_num=2))
    assert torch.equal(out, expected)
    into = torch.zeros(128, 128)
    assert tile_add(b=b, out=into, a=a) is None
    assert torch.equal(into, expected)


def test_run_compiles_and_runs_with_a_dfx_flag(tmp_path: Path) -> None:
    a, b = inputs()
    out = torch.zeros(128, 128)
    config = RunConfig(save_kernels_dir=str(tmp_path / "k"), enable_dep_gen=True)
    compiled = run(pl.loads_program(str(EXAMPLES / "tile_add.py")), a, b, out, config=config)
    assert torch.equal(out, compiled.interpret(a, b))
    assert (tmp_path / "k" / "dfx_outputs" / "deps.json").is_file()


def test_a_chip_worker_serves_calls_handles_and_device_tensors(tile_add: ir.CompiledProgram) -> None:
    a, b = inputs()
    expected = tile_add.interpret(a, b)
    with ChipWorker() as worker:
        assert ChipWorker.current() is worker
        binding = r"\(a2a3sim, device 0, tensormap_and_ringbuffer\)"
        with pytest.raises(ValueError, match=f"a ChipWorker for {binding} is already active"):
            with ChipWorker(auto_init=False):
                pass
        out = torch.zeros(128, 128)
        tile_add(a, b, out)  # reuses the active worker
        assert torch.equal(out, expected) and worker.aicpu_dlopen_count == 1
        with worker.register(tile_add) as handle:
            for _ in range(3):
                out.zero_()
                handle(a, b, out, config=RunConfig(ring_task_window=16))
                assert torch.equal(out, expected)
        assert handle.closed and worker.aicpu_dlopen_count == 1
        with pytest.raises(RuntimeError, match="is closed"):
            handle(a, b, out)
        device_a = worker.alloc_tensor([128, 128], torch.float32, init=a)
        device_out = worker.alloc_tensor((128, 128), np.float32)
        worker.run(tile_add, device_a, b, device_out)
        host = torch.zeros(128, 128)
        worker.copy_from(host.data_ptr(), device_out.data_ptr, device_out.nbytes)
        assert torch.equal(host, expected)
        worker.free_tensor(device_a)
        worker.free_tensor(device_a)  # a repeat is a no-op
        with pytest.raises(SimulatorArgumentError, match="not live memory of the ChipWorker"):
            worker.run(tile_add, device_a, b, device_out)
    assert not worker.initialized and ChipWorker.current() is None
    with pytest.raises(SimulatorArgumentError, match="out is a DeviceTensor that is not live memory"):
        tile_add(a, b, device_out)


def test_a_program_loaded_from_its_folder_runs(tile_add: ir.CompiledProgram) -> None:
    a, b = inputs()
    loaded = ir.CompiledProgram.from_dir(tile_add.output_dir)
    assert torch.equal(loaded(a, b), tile_add.interpret(a, b))


def test_the_chip_callable_is_built_from_the_cache(tile_add: ir.CompiledProgram) -> None:
    from simpler.task_interface import ChipCallable

    assert isinstance(tile_add.chip_callable, ChipCallable)


def test_a_bfloat16_kernel_is_refused_rather_than_computed_as_float16(tmp_path: Path) -> None:
    program = pl.parse(
        """
import pypto.language as pl

@pl.program
class Bf16Double:
    @pl.function
    def main(
        self, a: pl.Tensor[[16, 16], pl.BF16], out: pl.Out[pl.Tensor[[16, 16], pl.BF16]]
    ) -> pl.Tensor[[16, 16], pl.BF16]:
        with pl.at(level=pl.Level.CORE_GROUP):
            out[:] = pl.add(a, a)
        return out
"""
    )
    compiled = ir.compile(program, output_dir=tmp_path / "bf16", dump_passes=False)
    a = torch.linspace(-2, 2, 256, dtype=torch.bfloat16).reshape(16, 16)
    out = torch.zeros(16, 16, dtype=torch.bfloat16)
    with pytest.raises(SimulatorError, match="kernel main_incore_0 computes on bfloat16, which a2a3sim cannot"):
        compiled(a, out)
    assert not out.any()
    assert torch.equal(compiled.interpret(a), a + a)


def test_execute_compiled_runs_an_artifact_tree(tile_add: ir.CompiledProgram) -> None:
    a, b = inputs()
    out = torch.zeros(128, 128)
    run_record = execute_compiled(tile_add.output_dir, [a, b, out], aicpu_thread_num=2)
    assert torch.equal(out, tile_add.interpret(a, b)) and run_record.run_seconds > 0


# A kernel copying 16 rows at a row its orchestration passes: the window guard stops a row past the end.
ROW_COPY = """
import pypto.language as pl


@pl.program
class RowCopy:
    @pl.function(type=pl.FunctionType.InCore)
    def rows(
        self, x: pl.Tensor[[32, 16], pl.FP32], out: pl.Out[pl.Tensor[[32, 16], pl.FP32]], row: pl.Scalar[pl.INDEX]
    ) -> pl.Tensor[[32, 16], pl.FP32]:
        t: pl.Tile[[16, 16], pl.FP32] = pl.load(x, [row, 0], [16, 16])
        out = pl.store(t, [row, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self, x: pl.Tensor[[32, 16], pl.FP32], row: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[32, 16], pl.FP32]]
    ) -> pl.Tensor[[32, 16], pl.FP32]:
        out = self.rows(x, out, row)
        return out
"""


def test_a_chip_worker_runs_again_after_a_failed_run(tmp_path: Path, kernel_cache: Path) -> None:
    from pypto.compiled import parameters
    from pypto.runtime import SimulatorBoundsError, run_on_simulator

    compiled = ir.compile(pl.parse(ROW_COPY, filename="rows.py"), output_dir=tmp_path / "rows", dump_passes=False)
    params = parameters(compiled.final_program.get_function("main"))
    x = np.arange(32 * 16, dtype=np.float32).reshape(32, 16)
    with ChipWorker() as worker:
        resident = worker.alloc_tensor([32, 16], np.float32, init=x)
        with pytest.raises(SimulatorBoundsError, match=r"reads x\[24:40, 0:16\] outside its shape \[32, 16\]"):
            run_on_simulator(compiled.output_dir, [x, 24, np.zeros_like(x)], params, kernel_cache, worker=worker)
        out = np.full_like(x, 7.0)
        run_on_simulator(compiled.output_dir, [x, 16, out], params, kernel_cache, worker=worker)
        want = np.full_like(x, 7.0)
        compiled.interpret(x, 16, want)
        np.testing.assert_array_equal(out, want)
        with pytest.raises(SimulatorArgumentError, match="x is a DeviceTensor lost when a failed run restarted"):
            worker.run(compiled, resident, 0, out)
        with pytest.raises(SimulatorError, match="was lost when a failed run restarted this ChipWorker"):
            worker.copy_from(out.ctypes.data, resident.data_ptr, resident.nbytes)
        worker.free_tensor(resident)  # its memory is gone already: a no-op
        fresh = worker.alloc_tensor([32, 16], np.float32, init=x)
        worker.run(compiled, fresh, 0, out)
        np.testing.assert_array_equal(out[:16], x[:16])


def test_benchmark_times_rounds_of_correct_runs(tile_add: ir.CompiledProgram) -> None:
    from pypto.runtime import benchmark

    a, b = inputs()
    out = torch.zeros(128, 128)
    result = benchmark(tile_add, [a, b, out], rounds=3, warmup=1, config=RunConfig(aicpu_thread_num=2))
    assert len(result.host_seconds) == 3 and result.device_seconds == (0.0, 0.0, 0.0)
    assert 0 < result.min_host_seconds <= result.mean_host_seconds
    assert torch.equal(out, tile_add.interpret(a, b))


def test_orchestration_arguments_run_the_chip_callable_in_place(tile_add: ir.CompiledProgram) -> None:
    from pypto.runtime.simulator import default_worker

    a, b = inputs()
    out = torch.zeros(128, 128)
    worker = default_worker(tile_add.runtime_name)
    handle = worker.register(tile_add.chip_callable)
    try:
        worker.run(handle, tile_add.build_orch_args(a, b, out=out), config=tile_add.build_call_config())
    finally:
        worker.unregister(handle)
    assert torch.equal(out, tile_add.interpret(a, b))


def test_the_debug_runner_reruns_the_tree_with_seeded_inputs(
    tile_add: ir.CompiledProgram, capsys: pytest.CaptureFixture[str]
) -> None:
    from pypto.runtime.debug_runner import main

    assert main(tile_add.output_dir, ["--seed", "3"]) == 0
    rng = np.random.default_rng(3)
    a, b = (rng.uniform(-1.0, 1.0, (128, 128)).astype(np.float32) for _ in range(2))
    total = (a + b).astype(np.float64)
    assert capsys.readouterr().out.splitlines()[-1] == (
        f"out: shape [128, 128] float32 min {total.min():.6g} max {total.max():.6g} mean {total.mean():.6g}"
    )
