"""ChipWorker and DeviceTensor checks that need no running simulator (runs are in tests/sim/test_runtime_api.py)."""

from __future__ import annotations

import numpy as np
import pytest

from pypto.runtime import ChipWorker, DeviceTensor, RunConfig, SimulatorError


def test_only_a_level_2_a2a3sim_worker_is_constructible() -> None:
    with pytest.raises(ValueError, match="ChipWorker supports level=2 only"):
        ChipWorker(level=3, auto_init=False)
    with pytest.raises(SimulatorError, match="platform 'a5sim' cannot run here; only a2a3sim runs here"):
        ChipWorker(RunConfig(platform="a5sim"), auto_init=False)
    with pytest.raises(SimulatorError, match="no SDMA engine"):
        ChipWorker(enable_sdma=True, auto_init=False)


def test_a_worker_not_started_refuses_memory_operations() -> None:
    worker = ChipWorker(auto_init=False)
    assert not worker.initialized and worker.aicpu_dlopen_count == 0
    assert (worker.level, worker.platform, worker.device_id, worker.runtime) == (
        2,
        "a2a3sim",
        0,
        "tensormap_and_ringbuffer",
    )
    for call in (lambda: worker.malloc(64), lambda: worker.free(1), lambda: worker.alloc_tensor([4], np.float32)):
        with pytest.raises(RuntimeError, match=r"ChipWorker\.\w+\(\) requires an initialized ChipWorker"):
            call()
    worker.close()  # idempotent, also before init


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"data_ptr": 0}, ValueError, "data_ptr must be a positive int, got 0"),
        ({"data_ptr": True}, ValueError, "data_ptr must be a positive int, got True"),
        ({"shape": []}, ValueError, r"shape must be a non-empty list of positive ints, got \[\]"),
        ({"shape": (4, 0)}, ValueError, r"positive ints, got \[4, 0\]"),
        ({"shape": (4.0,)}, TypeError, r"shape must hold ints, got \[4.0\]"),
        ({"dtype": "float128"}, TypeError, "dtype must be a torch.dtype or a numpy dtype pypto supports"),
        ({"buffer": object()}, ValueError, "buffer must have an int base equal to data_ptr 4096"),
    ],
)
def test_device_tensor_checks(kwargs: dict, error: type, message: str) -> None:
    fields = {"data_ptr": 4096, "shape": (4, 8), "dtype": np.float32, **kwargs}
    with pytest.raises(error, match=message):
        DeviceTensor(**fields)


def test_device_tensor_size_shape_and_equality() -> None:
    t = DeviceTensor(4096, [4, 8], np.float16)
    assert t.shape == (4, 8) and t.nbytes == 64
    assert t == DeviceTensor(4096, (4, 8), np.float16)
    torch = pytest.importorskip("torch")
    assert DeviceTensor(4096, (2,), torch.bfloat16).nbytes == 4
    with pytest.raises(TypeError, match="Unsupported torch dtype torch.float64"):
        DeviceTensor(4096, (2,), torch.float64)
