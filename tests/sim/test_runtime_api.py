"""The established runtime API on a2a3sim: ``compiled(..., config=)`` with torch tensors and names,
``pypto.runtime.run``, a DFX flag, and a ``ChipWorker`` reused by calls, register handles and
resident device tensors; every result equals the interpreter's."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import pypto.language as pl
from pypto import ir
from pypto.runtime import ChipWorker, RunConfig, SimulatorArgumentError, run, simulator_missing_reason

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
