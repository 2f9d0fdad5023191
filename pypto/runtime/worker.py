"""``ChipWorker``: one simulator worker reused across calls, with resident device tensors.

    with ChipWorker() as worker:            # compiled(...) inside reuses this worker
        x = worker.alloc_tensor([128, 128], torch.float32, init=host_x)
        handle = worker.register(compiled)  # build and register now; call it in a hot loop
        for _ in range(100):
            handle(x, out)

Only ``a2a3sim`` is constructible here; a level-2 worker is the only kind (docs/simulator.md#runtime-api).
"""

from __future__ import annotations

import ctypes
import logging
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np

from .build import PLATFORM, BuiltProgram
from .config import RunConfig, require_runnable
from .device_tensor import DeviceTensor, checked_shape, datatype
from .errors import SimulatorArgumentError, SimulatorError

DEFAULT_RUNTIME = "tensormap_and_ringbuffer"


class ChipWorker:
    """One simulator worker bound to (level 2, platform, device id, runtime); see the module docstring.

    ``auto_init`` None or True starts the worker now, False leaves it to :meth:`init`.
    """

    _active: ClassVar[list[ChipWorker]] = []

    def __init__(
        self,
        config: RunConfig | None = None,
        *,
        level: int = 2,
        runtime: str = DEFAULT_RUNTIME,
        enable_sdma: bool = False,
        auto_init: bool | None = None,
    ) -> None:
        if level != 2:
            raise ValueError(f"ChipWorker supports level=2 only (one chip), got level={level!r}")
        self._config = config if config is not None else RunConfig()
        if not isinstance(self._config, RunConfig):
            raise TypeError(f"config must be a pypto.runtime.RunConfig, got {type(self._config).__name__}")
        require_runnable(self._config.platform)
        if enable_sdma:
            raise SimulatorError("ChipWorker(enable_sdma=True): the a2a3sim simulator has no SDMA engine")
        self._runtime = runtime
        self._worker: Any = None
        self._buffers: dict[int, Any] = {}
        self._tensors: dict[int, DeviceTensor] = {}
        self._freed: set[int] = set()  # ids of the buffers free_tensor released (a repeat is a no-op)
        self._lost: set[int] = set()  # addresses whose memory a restart after a failed run discarded
        self._handles: OrderedDict[tuple[str, str], tuple[Any, Any]] = OrderedDict()  # see simulator._handle
        self._registrations: list[RegistrationHandle] = []
        if auto_init is None or auto_init:
            self.init()

    # ----- binding and life cycle -----------------------------------------------------------------

    @property
    def level(self) -> int:
        """Always 2: one chip."""
        return 2

    @property
    def platform(self) -> str:
        """The platform the worker runs (``a2a3sim``)."""
        return self._config.platform

    @property
    def device_id(self) -> int:
        """The device index of the config (no effect on the simulator)."""
        return self._config.device_id

    @property
    def runtime(self) -> str:
        """The PTO2 runtime the worker loads."""
        return self._runtime

    @property
    def initialized(self) -> bool:
        """Whether the simulator worker is running."""
        return self._worker is not None

    @property
    def aicpu_dlopen_count(self) -> int:
        """How many orchestration binaries the worker has loaded (0 before ``init()``)."""
        return int(self._worker.aicpu_dlopen_count) if self._worker is not None else 0

    @property
    def host_dlopen_count(self) -> int:
        """How many host binaries the worker has loaded (0 before ``init()``)."""
        return int(self._worker.host_dlopen_count) if self._worker is not None else 0

    def init(self) -> None:
        """Start the simulator worker (a no-op when it runs)."""
        if self._worker is not None:
            return
        from .install import find_simulator

        find_simulator()
        simpler_logger = logging.getLogger("simpler")
        if simpler_logger.level == logging.NOTSET:
            simpler_logger.setLevel(logging.WARNING)
        from simpler.worker import Worker

        worker = Worker(level=2, platform=PLATFORM, runtime=self._runtime)
        worker.init()
        self._worker = worker

    def close(self) -> None:
        """Free the tensors still allocated, close the registrations and stop the worker (idempotent)."""
        if self._worker is None:
            return
        for handle in self._registrations:
            handle.unregister()
        for buffer in self._buffers.values():
            self._worker.free(buffer)
        self._buffers.clear()
        self._tensors.clear()
        self._handles.clear()
        self._registrations.clear()
        worker, self._worker = self._worker, None
        worker.close()

    def restart_after_failure(self) -> None:
        """Replace the simulator worker after a failed run: the runtime refuses further runs on it.

        Its device memory goes with it, so the tensors allocated so far are lost (using one is a
        ``SimulatorError``); registrations stay valid and bind to the new worker on their next call.
        """
        if self._worker is None:
            return
        self._lost.update(self._buffers)
        self._buffers.clear()
        self._tensors.clear()
        self._handles.clear()
        worker, self._worker = self._worker, None
        worker.close()
        self.init()

    def lost(self, tensor: DeviceTensor) -> bool:
        """Whether ``tensor``'s memory was discarded by a restart after a failed run."""
        return tensor.data_ptr in self._lost and not self.owns(tensor)

    def __enter__(self) -> ChipWorker:
        clash = self.current(platform=self.platform, device_id=self.device_id, runtime=self.runtime)
        if clash is not None and clash is not self:
            raise ValueError(
                f"a ChipWorker for ({self.platform}, device {self.device_id}, {self.runtime}) is already active"
            )
        self.init()
        self._active.append(self)
        return self

    def __exit__(self, *exc: object) -> None:
        self._active.remove(self)
        self.close()

    @classmethod
    def current(
        cls,
        *,
        level: int = 2,
        platform: str = PLATFORM,
        device_id: int = 0,
        runtime: str = DEFAULT_RUNTIME,
        require_sdma: bool = False,
    ) -> ChipWorker | None:
        """The worker of an enclosing ``with`` block with this binding, or None."""
        if level != 2 or require_sdma:
            return None
        for worker in reversed(cls._active):
            if (worker.platform, worker.device_id, worker.runtime) == (platform, device_id, runtime):
                return worker
        return None

    # ----- device memory ------------------------------------------------------------------------

    def malloc(self, nbytes: int, *, worker_id: int = 0) -> int:
        """Allocate ``nbytes`` of device memory; returns its address."""
        worker = self._ready("malloc", worker_id)
        if not _is_int(nbytes) or nbytes <= 0:
            raise ValueError(f"ChipWorker.malloc(): nbytes must be a positive int, got {nbytes!r}")
        buffer = worker.malloc(nbytes)
        self._buffers[int(buffer.base)] = buffer
        self._lost.discard(int(buffer.base))
        return int(buffer.base)

    def free(self, ptr: int, *, worker_id: int = 0) -> None:
        """Free memory from :meth:`malloc`."""
        worker = self._ready("free", worker_id)
        buffer = self._buffer("free", ptr)
        del self._buffers[ptr]
        self._tensors.pop(ptr, None)
        worker.free(buffer)

    def copy_to(self, dst_dev_ptr: int, src_host_ptr: int, nbytes: int, *, worker_id: int = 0) -> None:
        """Copy ``nbytes`` from host address ``src_host_ptr`` to device memory at ``dst_dev_ptr``."""
        worker = self._ready("copy_to", worker_id)
        buffer = self._buffer("copy_to", dst_dev_ptr, nbytes)
        worker.copy_to(buffer, _host_bytes(src_host_ptr, nbytes))

    def copy_from(self, dst_host_ptr: int, src_dev_ptr: int, nbytes: int, *, worker_id: int = 0) -> None:
        """Copy ``nbytes`` from device memory at ``src_dev_ptr`` to host address ``dst_host_ptr``."""
        worker = self._ready("copy_from", worker_id)
        buffer = self._buffer("copy_from", src_dev_ptr, nbytes)
        worker.copy_from(_host_bytes(dst_host_ptr, nbytes), buffer)

    def alloc_tensor(self, shape: Sequence[int], dtype: Any, *, init: Any = None, worker_id: int = 0) -> DeviceTensor:
        """A device tensor of ``shape`` and ``dtype`` (torch or numpy), filled from ``init`` when given.

        ``init`` (a CPU torch tensor or numpy array) must have exactly this shape and dtype.
        """
        self._ready("alloc_tensor", worker_id)
        dims = checked_shape(list(shape) if isinstance(shape, list | tuple) else shape, "alloc_tensor shape")
        element = datatype(dtype)
        host = None if init is None else _init_array(init, dims, element)
        ptr = self.malloc(int(np.prod(dims)) * element.get_byte())
        try:
            tensor = DeviceTensor(ptr, dims, dtype, buffer=self._buffers[ptr])
            if host is not None:
                self.copy_to(ptr, host.ctypes.data, host.nbytes)
        except BaseException:
            self.free(ptr)
            raise
        self._tensors[ptr] = tensor
        return tensor

    def free_tensor(self, tensor: DeviceTensor, *, worker_id: int = 0) -> None:
        """Free a tensor from :meth:`alloc_tensor` (again: a no-op)."""
        self._ready("free_tensor", worker_id)
        if self.owns(tensor):
            self.free(tensor.data_ptr)
            self._freed.add(id(tensor.buffer))
        elif id(tensor.buffer) not in self._freed and tensor.data_ptr not in self._lost:
            raise ValueError(f"ChipWorker.free_tensor(): {tensor} is not a live tensor of this worker")

    def owns(self, tensor: DeviceTensor) -> bool:
        """Whether ``tensor`` is live memory of this worker (only then may a call take it)."""
        live = self._tensors.get(tensor.data_ptr)
        return live is not None and live == tensor and live.buffer is tensor.buffer

    # ----- running --------------------------------------------------------------------------------

    def run(self, compiled: Any, *args: Any, config: RunConfig | None = None) -> Any:
        """Run ``compiled`` on this worker: arguments and result as ``compiled(...)``.

        The ring fields of ``config`` apply here (not to one-shot calls).
        """
        self._check_program(compiled)
        return compiled.run(*args, config=config, worker=self)

    def register(self, compiled: Any) -> RegistrationHandle:
        """Build and register ``compiled`` now; the handle runs it without looking anything up."""
        self._check_program(compiled)
        compiled.load(worker=self)
        handle = RegistrationHandle(self, compiled, len(self._registrations))
        self._registrations.append(handle)
        return handle

    def bind(self, built: BuiltProgram) -> tuple[Any, Any]:
        """The simpler worker and the registered callable of ``built`` (registered on first use)."""
        from .simulator import _handle

        worker = self._ready("run", 0)
        if built.tree.runtime != self.runtime:
            raise ValueError(f"the program needs runtime {built.tree.runtime!r}; this ChipWorker runs {self.runtime!r}")
        return worker, _handle(worker, built, self._handles)

    def _check_program(self, compiled: Any) -> None:
        self._ready("run", 0)
        if compiled.platform != self.platform:
            raise ValueError(
                f"the program is compiled for {compiled.platform!r}; this ChipWorker runs {self.platform!r}"
            )

    def _ready(self, op: str, worker_id: int) -> Any:
        if self._worker is None:
            raise RuntimeError(f"ChipWorker.{op}() requires an initialized ChipWorker (call init() or use `with`)")
        if worker_id != 0:
            raise ValueError(f"ChipWorker.{op}(): worker_id must be 0 on a level-2 worker, got {worker_id!r}")
        return self._worker

    def _buffer(self, op: str, ptr: int, nbytes: int | None = None) -> Any:
        buffer = self._buffers.get(ptr) if _is_int(ptr) else None
        if buffer is None and ptr in self._lost:
            raise SimulatorError(
                f"ChipWorker.{op}(): the memory at {ptr} was lost when a failed run restarted this ChipWorker",
                "device memory does not survive a failed run: allocate it again",
            )
        if buffer is None:
            raise ValueError(f"ChipWorker.{op}(): {ptr!r} is not an address from this worker's malloc")
        if nbytes is not None and not (_is_int(nbytes) and 0 < nbytes <= buffer.nbytes):
            raise ValueError(f"ChipWorker.{op}(): nbytes must be a positive int up to {buffer.nbytes}, got {nbytes!r}")
        return buffer


def check_live(chip: ChipWorker | None, tensor: DeviceTensor, name: str) -> None:
    """``SimulatorArgumentError`` unless ``tensor`` (the argument ``name``) is live memory of ``chip``."""
    if chip is not None and chip.owns(tensor):
        return
    if chip is not None and chip.lost(tensor):
        raise SimulatorArgumentError(
            f"{name} is a DeviceTensor lost when a failed run restarted its ChipWorker",
            "device memory does not survive a failed run: allocate the tensor again with worker.alloc_tensor",
        )
    raise SimulatorArgumentError(
        f"{name} is a DeviceTensor that is not live memory of the ChipWorker running this call",
        "pass device tensors only to the worker that allocated them (worker.run or inside `with worker:`)",
    )


class RegistrationHandle:
    """A program registered with a ``ChipWorker``: call it like the program (``worker.run``)."""

    def __init__(self, worker: ChipWorker, compiled: Any, cid: int) -> None:
        self.worker = worker
        self.compiled = compiled
        self.cid = cid
        self.closed = False

    def __call__(self, *args: Any, config: RunConfig | None = None) -> Any:
        if self.closed:
            raise RuntimeError(f"the registration {self.cid} of {self.compiled!r} is closed")
        return self.worker.run(self.compiled, *args, config=config)

    def unregister(self) -> None:
        """Close the handle (the worker keeps the binaries until it closes)."""
        self.closed = True

    def __enter__(self) -> RegistrationHandle:
        return self

    def __exit__(self, *exc: object) -> None:
        self.unregister()


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _host_bytes(ptr: int, nbytes: int) -> Any:
    if not _is_int(ptr) or ptr <= 0:
        raise ValueError(f"a host address must be a positive int, got {ptr!r}")
    return (ctypes.c_char * nbytes).from_address(ptr)


def _init_array(init: Any, shape: tuple[int, ...], element: Any) -> np.ndarray:
    from .host_arrays import is_torch_tensor, torch_datatype, torch_numpy

    if is_torch_tensor(init):
        if init.device.type != "cpu":
            raise ValueError(f"alloc_tensor init must be a CPU tensor, got a {init.device} tensor")
        dtype, array = torch_datatype(init.dtype), torch_numpy(init)
    elif isinstance(init, np.ndarray):
        dtype, array = datatype(init.dtype), init
    else:
        raise ValueError(f"alloc_tensor init must be a torch tensor or numpy array, got {type(init).__name__}")
    if tuple(array.shape) != shape or dtype != element:
        raise ValueError(
            f"alloc_tensor init has shape {list(array.shape)} and dtype {dtype}; expected {list(shape)} and {element}"
        )
    return np.ascontiguousarray(array)
