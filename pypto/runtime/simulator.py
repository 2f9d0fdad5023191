"""Run an artifact tree on simpler's a2a3sim platform with numpy arrays.

One level-2 ``simpler.worker.Worker`` per runtime serves the whole process (it is cheap to keep and
closed at exit); each distinct program is registered with it once.
"""

from __future__ import annotations

import atexit
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .arguments import BoundArguments, Param, ResidentTensor, bind_arguments
from .artifacts import Direction, load_artifacts
from .build import PLATFORM, BuildRecord, BuiltProgram, build_artifacts
from .call_options import DFX_DIR, CallOptions, call_config
from .cache import KernelCache
from .errors import SimulatorArgumentError, SimulatorRunError
from .install import find_simulator

if TYPE_CHECKING:
    from .worker import ChipWorker

_SIMPLER_TIMING = 25  # simpler's default log level: a marker line per run stage
_workers: dict[str, Any] = {}
_handles: dict[tuple[str, str], Any] = {}
_callables: list[Any] = []  # the registered ChipCallables outlive their handles


@dataclass(frozen=True)
class SimulatorRun:
    """What one run cost: a record per compiled unit and the wall time of the simulated run itself."""

    builds: tuple[BuildRecord, ...]
    run_seconds: float


def run_on_simulator(
    artifact_dir: str | Path,
    args: Sequence[object],
    params: Sequence[Param] | None = None,
    cache_dir: Path | None = None,
    *,
    options: CallOptions | None = None,
    worker: ChipWorker | None = None,
) -> SimulatorRun:
    """Build the artifact tree in ``artifact_dir`` and run it on a2a3sim with ``args``.

    ``args`` are the orchestration's arguments in parameter order: arrays for tensors (numpy, or CPU
    torch tensors), Python or numpy scalars for scalars. Outputs are written into their arrays in
    place. ``params`` (the orchestration's parameters) makes the dtypes and shapes checked too;
    without it, the arrays' own dtypes are used and a plain float is passed as FP32. Compiled objects
    are cached in ``cache_dir`` (default ``$PYPTO_CACHE_DIR`` or ``~/.cache/pypto/kernels``).
    ``options`` are the run-time fields of a ``RunConfig``; ``worker`` a ``ChipWorker`` to run on
    (default: the process-wide worker of the tree's runtime).
    """
    install = find_simulator()
    tree = load_artifacts(artifact_dir)
    bound = bind_arguments(tree, args, params)
    built = build_artifacts(tree, install, KernelCache(cache_dir))
    start = time.perf_counter()
    _run(built, bound, options, worker)
    seconds = time.perf_counter() - start
    for tensor in bound.tensors:
        tensor.write_back()
    return SimulatorRun(builds=built.records, run_seconds=seconds)


def _run(built: BuiltProgram, bound: BoundArguments, options: CallOptions | None, chip: ChipWorker | None) -> None:
    from simpler.task_interface import DataType, TaskArgs, TensorArgType

    if chip is None:
        worker = _worker(built.tree.runtime)
        handle = _handle(worker, built, _handles)
    else:
        worker, handle = chip.bind(built)
    tags = {"IN": TensorArgType.INPUT, "OUT": TensorArgType.OUTPUT_EXISTING, "INOUT": TensorArgType.INOUT}
    task_args = TaskArgs()
    for tensor in bound.tensors:
        dtype = int(getattr(DataType, tensor.simpler_dtype).value)
        if isinstance(tensor, ResidentTensor):
            if chip is None or not chip.owns(tensor.device):
                raise SimulatorArgumentError(
                    f"{tensor.name} is a DeviceTensor that is not live memory of the ChipWorker running this call",
                    "pass device tensors only to the worker that allocated them (worker.run or inside `with worker:`)",
                )
            ref = tensor.device.buffer.tensor(tensor.device.shape, dtype)
        else:
            # The bytes as unsigned ints: the buffer protocol refuses ml_dtypes types such as bfloat16.
            raw = tensor.staged.view(f"u{tensor.staged.itemsize}")
            ref = worker.make_tensor_arg(raw, shapes=tuple(tensor.staged.shape), dtype=dtype)
        task_args.add_tensor(ref, tags[tensor.direction.value])
    for word in bound.scalars:
        task_args.add_scalar(word)
    config = call_config(options, built.tree.root / DFX_DIR, built.tree.aicpu_thread_num)
    try:
        worker.run(handle, task_args, config=config)
    except Exception as err:  # the runtime reports every failure as some exception of its own
        raise SimulatorRunError(
            f"running {built.tree.root} on {PLATFORM} failed: {type(err).__name__}: {err}",
            f"the generated files are kept in {built.tree.root}",
        ) from err


def _worker(runtime: str) -> Any:
    worker = _workers.get(runtime)
    if worker is None:
        # Quieter than simpler's default (TIMING markers on every run) unless the caller chose a level.
        simpler_logger = logging.getLogger("simpler")
        if simpler_logger.level in (logging.NOTSET, _SIMPLER_TIMING):
            simpler_logger.setLevel(logging.WARNING)
        from simpler.worker import Worker

        worker = Worker(level=2, platform=PLATFORM, runtime=runtime)
        worker.init()
        if not _workers:
            atexit.register(_close_workers)
        _workers[runtime] = worker
    return worker


def chip_callable(built: BuiltProgram) -> Any:
    """simpler's ``ChipCallable`` of ``built``: the orchestration binary with its kernels by ``func_id``."""
    from simpler.task_interface import ChipCallable, CoreCallable

    orch = built.tree.orchestration
    return ChipCallable.build(
        signature=_signature(orch.signature),
        func_name=orch.function_name,
        binary=built.orchestration,
        children=[
            (kernel.func_id, CoreCallable.build(signature=_signature(kernel.signature), binary=binary))
            for kernel, binary in built.kernels
        ],
        config_name="",
    )


def _handle(worker: Any, built: BuiltProgram, handles: dict[tuple[str, str], Any]) -> Any:
    """``built`` registered with ``worker`` (once: ``handles`` remembers it by runtime and binary digest)."""
    key = (built.tree.runtime, built.digest)
    handle = handles.get(key)
    if handle is None:
        chip = chip_callable(built)
        handle = worker.register(chip)
        _callables.append(chip)
        handles[key] = handle
    return handle


def _signature(directions: Sequence[Direction]) -> list[Any]:
    return [_direction(d.value) for d in directions]


def _direction(name: str) -> Any:
    from simpler.task_interface import ArgDirection

    return getattr(ArgDirection, name)


def _close_workers() -> None:
    for worker in _workers.values():
        worker.close()
    _workers.clear()
    _handles.clear()
    _callables.clear()
