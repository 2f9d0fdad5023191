"""Run an artifact tree on simpler's a2a3sim platform with numpy arrays.

One level-2 ``simpler.worker.Worker`` per runtime serves the whole process (it is cheap to keep and
closed at exit); each distinct program is registered with it once. A worker holds at most
``MAX_HANDLES`` programs (simpler's ``MAX_REGISTERED_CALLABLE_IDS``): registering one more first
unregisters the least recently run, so a long-lived process may run any number of programs.
"""

from __future__ import annotations

import atexit
import logging
import time
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .arguments import BoundArguments, Param, bind_arguments
from .artifacts import load_artifacts
from .build import PLATFORM, BuildRecord, BuiltProgram, build_artifacts
from .cache import KernelCache
from .errors import SimulatorRunError
from .install import find_simulator

_SIMPLER_TIMING = 25  # simpler's default log level: a marker line per run stage
_workers: dict[str, Any] = {}
MAX_HANDLES = 64  # simpler.worker.MAX_REGISTERED_CALLABLE_IDS (a test checks they agree)
# (runtime, program digest) -> (handle, its ChipCallable, which must outlive the handle); least recently run first
_handles: OrderedDict[tuple[str, str], tuple[Any, Any]] = OrderedDict()


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
) -> SimulatorRun:
    """Build the artifact tree in ``artifact_dir`` and run it on a2a3sim with ``args``.

    ``args`` are the orchestration's arguments in parameter order: arrays for tensors (numpy, or CPU
    torch tensors), Python or numpy scalars for scalars. Outputs are written into their arrays in
    place. ``params`` (the orchestration's parameters) makes the dtypes and shapes checked too;
    without it, the arrays' own dtypes are used and a plain float is passed as FP32. Compiled objects
    are cached in ``cache_dir`` (default ``$PYPTO_CACHE_DIR`` or ``~/.cache/pypto/kernels``).
    """
    install = find_simulator()
    tree = load_artifacts(artifact_dir)
    bound = bind_arguments(tree, args, params)
    built = build_artifacts(tree, install, KernelCache(cache_dir))
    start = time.perf_counter()
    _run(built, bound)
    seconds = time.perf_counter() - start
    for tensor in bound.tensors:
        tensor.write_back()
    return SimulatorRun(builds=built.records, run_seconds=seconds)


def _run(built: BuiltProgram, bound: BoundArguments) -> None:
    from simpler.task_interface import CallConfig, DataType, TaskArgs, TensorArgType

    worker = _worker(built.tree.runtime)
    handle = _handle(worker, built)
    tags = {"IN": TensorArgType.INPUT, "OUT": TensorArgType.OUTPUT_EXISTING, "INOUT": TensorArgType.INOUT}
    task_args = TaskArgs()
    for tensor in bound.tensors:
        dtype = int(getattr(DataType, tensor.simpler_dtype).value)
        # simpler reads the buffer through the buffer protocol, which has no format for ml_dtypes'
        # narrow floats (bfloat16 is 'E'); the same bytes as unsigned integers carry the element type in ``dtype``.
        raw = tensor.staged.view(f"u{tensor.staged.itemsize}")
        ref = worker.make_tensor_arg(raw, shapes=tuple(tensor.staged.shape), dtype=dtype)
        task_args.add_tensor(ref, tags[tensor.direction.value])
    for word in bound.scalars:
        task_args.add_scalar(word)
    config = CallConfig()
    config.aicpu_thread_num = built.tree.aicpu_thread_num
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


def _handle(worker: Any, built: BuiltProgram) -> Any:
    key = (built.tree.runtime, built.digest)
    found = _handles.get(key)
    if found is not None:
        _handles.move_to_end(key)
        return found[0]
    from simpler.task_interface import ChipCallable, CoreCallable

    orch = built.tree.orchestration
    chip = ChipCallable.build(
        signature=[_direction(d.value) for d in orch.signature],
        func_name=orch.function_name,
        binary=built.orchestration,
        children=[
            (
                kernel.func_id,
                CoreCallable.build(signature=[_direction(d.value) for d in kernel.signature], binary=binary),
            )
            for kernel, binary in built.kernels
        ],
        config_name="",
    )
    same_worker = [k for k in _handles if k[0] == key[0]]
    if len(same_worker) >= MAX_HANDLES:
        worker.unregister(_handles.pop(same_worker[0])[0])
    handle = worker.register(chip)
    _handles[key] = (handle, chip)
    return handle


def _direction(name: str) -> Any:
    from simpler.task_interface import ArgDirection

    return getattr(ArgDirection, name)


def _close_workers() -> None:
    for worker in _workers.values():
        worker.close()
    _workers.clear()
    _handles.clear()
