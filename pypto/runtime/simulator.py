"""Run an artifact tree on simpler's a2a3sim platform with numpy arrays.

One level-2 ``simpler.worker.Worker`` per runtime serves the whole process (it is cheap to keep and
closed at exit); each distinct program is registered with it once. A worker holds at most
``MAX_HANDLES`` programs (simpler's ``MAX_REGISTERED_CALLABLE_IDS``): registering one more first
unregisters the least recently run, so a long-lived process may run any number of programs.
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import os
import sys
import tempfile
import time
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .arguments import BoundArguments, Param, ResidentTensor, bind_arguments
from .artifacts import Direction, load_artifacts
from .build import PLATFORM, BuildRecord, BuiltProgram, build_artifacts
from .call_options import DFX_DIR, CallOptions, call_config
from .cache import KernelCache
from .errors import BoundsGuard, CaptureError, SimulatorBoundsError, SimulatorRunError
from .install import find_simulator
from .sim_limits import check_simulable
from .thread_keys import reclaimed_keys

if TYPE_CHECKING:
    from .worker import ChipWorker

_SIMPLER_TIMING = 25  # simpler's default log level: a marker line per run stage
_workers: dict[str, Any] = {}
MAX_HANDLES = 64  # simpler.worker.MAX_REGISTERED_CALLABLE_IDS (a test checks they agree)
# (runtime, program digest) -> (handle, its ChipCallable, which must outlive the handle); least recently run first
Handles = OrderedDict[tuple[str, str], tuple[Any, Any]]
_handles: Handles = OrderedDict()


@dataclass(frozen=True)
class SimulatorRun:
    """What one run cost: a record per compiled unit and the wall time of the simulated run itself."""

    builds: tuple[BuildRecord, ...]
    run_seconds: float


def run_on_simulator(
    artifact_dir: str | Path,
    args: Sequence[object],
    params: Sequence[Param] | None = None,
    cache_dir: str | os.PathLike[str] | None = None,
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

    A task window outside its tensor stops the run with ``SimulatorBoundsError`` (the orchestration's
    guard, docs/simulator.md#bounds), any other failure is ``SimulatorRunError``; after either, the
    arrays are as they were. The runtime's log (file descriptor 2) is passed through after the run.
    """
    install = find_simulator()
    tree = load_artifacts(artifact_dir)
    check_simulable(tree)
    bound = bind_arguments(tree, args, params)
    built = build_artifacts(tree, install, KernelCache(cache_dir))
    start = time.perf_counter()
    _run(built, bound, options, worker)
    seconds = time.perf_counter() - start
    for tensor in bound.tensors:
        tensor.write_back()
    return SimulatorRun(builds=built.records, run_seconds=seconds)


# simpler's AICPU side keeps the swimlane level of a capture (g_chip_swimlane_level is set only when one is on),
# so after a level-4 capture the next plain run's orchestrator waits forever for a phase-record buffer. The
# process-wide worker is replaced after such a run; a ChipWorker refuses it.
_WORKER_SPOILING_LEVEL = 4


def _run(built: BuiltProgram, bound: BoundArguments, options: CallOptions | None, chip: ChipWorker | None) -> None:
    spoils = options is not None and options.dfx.get("enable_chip_swimlane", 0) >= _WORKER_SPOILING_LEVEL
    if spoils and chip is not None:
        raise CaptureError(
            f"a level-{_WORKER_SPOILING_LEVEL} chip swimlane capture cannot run on a ChipWorker: simpler's worker "
            "hangs in its next run without a capture afterwards",
            "capture at level 1-3 on a ChipWorker, or run this call outside `with ChipWorker():`",
        )
    if chip is None:
        worker = _worker(built.tree.runtime)
        handle = _handle(worker, built, _handles)
    else:
        worker, handle = chip.bind(built)
    task_args = build_task_args(worker, bound, chip)
    config = call_config(options, built.tree.root / DFX_DIR, built.tree.aicpu_thread_num)
    failure: Exception | None = None
    with reclaimed_keys(), _stderr_captured() as log:
        try:
            worker.run(handle, task_args, config=config)
        except Exception as err:  # the runtime reports every failure as some exception of its own
            failure = err
    text = "".join(log)
    if failure is None:
        sys.stderr.write(text)
        if spoils:
            _discard_worker(built.tree.runtime)
        return
    if chip is None:
        _discard_worker(built.tree.runtime)
    else:
        chip.restart_after_failure()
    stopped = _bounds_failure(text)
    if stopped is not None:
        guard, message = stopped
        raise SimulatorBoundsError(message, guard.hint) from failure
    sys.stderr.write(text)
    raise SimulatorRunError(
        f"running {built.tree.root} on {PLATFORM} failed: {type(failure).__name__}: {failure}",
        f"the generated files are kept in {built.tree.root}",
    ) from failure


def build_task_args(worker: Any, bound: BoundArguments, chip: ChipWorker | None) -> Any:
    """simpler's ``TaskArgs`` of ``bound`` for ``worker`` (the simpler worker of ``chip``, if given):
    each tensor refers to its staged array's memory, or to its device memory for a ``DeviceTensor``."""
    from simpler.task_interface import DataType, TaskArgs, TensorArgType

    from .worker import check_live

    tags = {"IN": TensorArgType.INPUT, "OUT": TensorArgType.OUTPUT_EXISTING, "INOUT": TensorArgType.INOUT}
    task_args = TaskArgs()
    for tensor in bound.tensors:
        dtype = int(getattr(DataType, tensor.simpler_dtype).value)
        if isinstance(tensor, ResidentTensor):
            check_live(chip, tensor.device, tensor.name)
            ref = tensor.device.buffer.tensor(tensor.device.shape, dtype)
        else:
            # The bytes as unsigned ints: the buffer protocol refuses ml_dtypes types such as bfloat16.
            raw = tensor.staged.view(f"u{tensor.staged.itemsize}")
            ref = worker.make_tensor_arg(raw, shapes=tuple(tensor.staged.shape), dtype=dtype)
        task_args.add_tensor(ref, tags[tensor.direction.value])
    for word in bound.scalars:
        task_args.add_scalar(word)
    return task_args


def default_worker(runtime: str) -> Any:
    """The process-wide simpler worker of ``runtime`` (started on first use)."""
    return _worker(runtime)


@contextlib.contextmanager
def _stderr_captured() -> Iterator[list[str]]:
    """Send file descriptor 2 (where the runtime's threads log) to a temporary file while the block
    runs; the yielded list holds what was written once the block is done."""
    captured: list[str] = []
    sys.stderr.flush()
    try:
        saved = os.dup(2)
    except OSError:  # no file descriptor 2: nothing to capture
        yield captured
        return
    with tempfile.TemporaryFile() as sink:
        os.dup2(sink.fileno(), 2)
        try:
            yield captured
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
            sink.seek(0)
            captured.append(sink.read().decode(errors="replace"))


def _bounds_failure(log: str) -> tuple[BoundsGuard, str] | None:
    """The kind and message of the bounds guard that stopped a run (docs/simulator.md#bounds), if one did."""
    for line in log.splitlines():
        for guard in BoundsGuard:
            _, marker, rest = line.partition(guard.marker)
            if marker:
                return guard, rest.strip()
    return None


def _discard_worker(runtime: str) -> None:
    """Close the worker of ``runtime`` after a failed run (the runtime refuses further runs on it)."""
    worker = _workers.pop(runtime, None)
    for key in [k for k in _handles if k[0] == runtime]:
        del _handles[key]
    if worker is not None:
        worker.close()


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
        signature=_signature([_staged(d) for d in orch.signature]),
        func_name=orch.function_name,
        binary=built.orchestration,
        children=[
            (kernel.func_id, CoreCallable.build(signature=_signature(kernel.signature), binary=binary))
            for kernel, binary in built.kernels
        ],
        config_name="",
    )


def _handle(worker: Any, built: BuiltProgram, handles: Handles) -> Any:
    """``built`` registered with ``worker`` (once: ``handles`` remembers it by runtime and binary digest,
    least recently run first; at ``MAX_HANDLES`` of one runtime the oldest is unregistered)."""
    key = (built.tree.runtime, built.digest)
    found = handles.get(key)
    if found is not None:
        handles.move_to_end(key)
        return found[0]
    chip = chip_callable(built)
    same_worker = [k for k in handles if k[0] == key[0]]
    for oldest in same_worker[: max(0, len(same_worker) - MAX_HANDLES + 1)]:
        worker.unregister(handles.pop(oldest)[0])
    handle = worker.register(chip)
    handles[key] = (handle, chip)
    return handle


def _staged(direction: Direction) -> Direction:
    """How the run stages a tensor of the orchestration: an Out tensor goes in like an InOut one.

    simpler leaves a pure OUT buffer uninitialised on the device, so elements the program does not
    write would come back as garbage; staged in, they keep the caller's values, as in the interpreter.
    """
    return Direction.INOUT if direction is Direction.OUT else direction


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
