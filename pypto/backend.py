"""Target chips: :class:`BackendType` and the per-chip facts of docs/codegen.md#platforms (:class:`Platform`).

A compile carries its Platform in one channel: ``ir.compile`` opens a pass context for it
(``PassContext(platform=...)``), every pass and check reads it from there and every code generator
takes it as an argument. The process-wide default below serves only code outside a compile (user
code, a pass or check run on its own); reading it inside a compile (:func:`compiling`) is an
internal error. The backend type defaults to Ascend910B (``a2a3``)::

    from pypto import backend
    backend.set_backend_type(backend.BackendType.Ascend950)
    backend.current_platform().capacity[MemorySpace.Acc]     # 256 KiB on a5

The established API's helpers sit on the same state: :func:`get_mem_size` (a capacity of the current
platform), :func:`is_backend_configured` (was :func:`set_backend_type` called) and
:func:`reset_for_testing` (back to the unconfigured default).
"""

from __future__ import annotations

import contextlib
import contextvars
import enum
from collections import deque
from collections.abc import Iterator

from pydantic import BaseModel, ConfigDict

from pypto.ir.datatype import DataType
from pypto.ir.enums import MemorySpace
from pypto.ir.errors import InternalError, IRValueError

_KIB = 1024


class BackendType(enum.Enum):
    """The chip a program is compiled for."""

    Ascend910B = "Ascend910B"
    Ascend950 = "Ascend950"


class Platform(BaseModel):
    """Capacities, alignments, core counts and dtype rules of one chip (docs/codegen.md#platforms).

    ``capacity`` is the usable bytes of each on-chip space (DDR is unbounded and absent);
    ``alignment`` the declared per-space alignment a custom allocator may use, while the default
    allocator aligns every address to ``address_alignment``.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)

    name: str
    backend_type: BackendType
    capacity: dict[MemorySpace, int]
    alignment: dict[MemorySpace, int]
    address_alignment: int = 32
    dies: int
    aic_per_die: int
    aiv_per_die: int
    atomic_add_dtypes: frozenset[DataType]
    acc_store_dtypes: frozenset[DataType]
    # Direct transfers between memory spaces (the memory graph).
    transfers: frozenset[tuple[MemorySpace, MemorySpace]]
    target_arch: str
    assembler_arch: str
    launch: str
    # TCVT's direct conversions: each source dtype's destinations, preferred first (exact widenings).
    native_casts: dict[DataType, tuple[DataType, ...]]
    # A cross-core pipe's ring lives in GM and its consumer keeps local_slot_num slots on chip (a2a3);
    # else the whole ring is on chip (a5).
    pipe_ring_in_gm: bool = False
    # A mixed kernel without pl.split runs its vector part on both AIV lanes, lane 1 replaying the pipe
    # traffic (ExpandMixedKernel, SplitVectorKernel), as a2a3's cube-vector handshakes count both lanes.
    dual_aiv_dispatch: bool = False

    @property
    def aic_cores(self) -> int:
        """Cube cores of the whole chip."""
        return self.aic_per_die * self.dies

    @property
    def aiv_cores(self) -> int:
        """Vector cores of the whole chip."""
        return self.aiv_per_die * self.dies

    def pipe_buffer_slots(self, slot_num: int, local_slot_num: int) -> int:
        """The slots a pipe's consumer reserves on chip (``reserve_buffer`` size / slot size)."""
        return local_slot_num if self.pipe_ring_in_gm else slot_num

    def cast_chain(self, src: DataType, dst: DataType) -> list[DataType] | None:
        """The dtypes after each step of the shortest chain of native conversions from ``src`` to
        ``dst`` (``[dst]`` for a native pair), or None when ``dst`` cannot be reached. Ties go to
        the destinations listed first, so the chain is deterministic."""
        previous: dict[DataType, DataType | None] = {src: None}
        queue = deque([src])
        while queue:
            here = queue.popleft()
            if here == dst:
                chain = []
                while here != src:
                    chain.append(here)
                    here = previous[here]
                return chain[::-1]
            for nxt in self.native_casts.get(here, ()):
                if nxt not in previous:
                    previous[nxt] = here
                    queue.append(nxt)
        return None

    def __hash__(self) -> int:
        return hash(self.name)


_M = MemorySpace
_ATOMIC = frozenset({DataType.FP32, DataType.FP16, DataType.INT32, DataType.INT16, DataType.INT8})
_ACC_STORE = frozenset({DataType.INT32, DataType.FP32, DataType.FP16, DataType.BF16})
_ALIGN = {_M.Vec: 128, _M.Mat: 128, _M.Left: 64, _M.Right: 64, _M.Acc: 128, _M.Bias: 64}
_A2A3_TRANSFERS = frozenset(
    {
        (_M.DDR, _M.Vec),
        (_M.DDR, _M.Mat),
        (_M.Vec, _M.DDR),
        (_M.Mat, _M.Left),
        (_M.Mat, _M.Right),
        (_M.Mat, _M.Bias),
        (_M.Acc, _M.Mat),
        (_M.Acc, _M.DDR),
    }
)

D = DataType
# TCVT destinations per source dtype: pto-isa's docs/isa/TCVT.md ("Supported Conversions", pinned
# commit cd4a3d3f), "A2A3 Destinations". S4 is left out: no PyPTO tile holds int4 elements.
_A2A3_CASTS: dict[DataType, tuple[DataType, ...]] = {
    D.FP32: (D.FP16, D.BF16, D.INT32, D.INT16, D.INT64),
    D.FP16: (D.FP32, D.INT32, D.INT16, D.INT8, D.UINT8),
    D.BF16: (D.FP32, D.INT32),
    D.INT16: (D.FP32, D.FP16),
    D.INT32: (D.FP32, D.INT64, D.INT16, D.FP16),
    D.INT64: (D.FP32, D.INT32),
    D.UINT8: (D.FP16,),
    D.INT8: (D.FP16,),
}
# "A5 Destinations": A5 adds the FP8/HiF8/FP4 conversions and more integer ones, drops INT32 -> FP16.
_A5_CASTS: dict[DataType, tuple[DataType, ...]] = {
    D.FP32: (D.FP16, D.BF16, D.INT32, D.INT16, D.INT64, D.FP8E4M3FN, D.FP8E5M2, D.HF8),
    D.FP16: (D.FP32, D.INT32, D.INT16, D.INT8, D.UINT8, D.HF8),
    D.BF16: (D.FP32, D.INT32, D.FP16),
    D.INT16: (D.FP32, D.INT32, D.UINT32, D.FP16, D.UINT8),
    D.INT32: (D.FP32, D.INT64, D.INT16, D.UINT16, D.UINT8),
    D.INT64: (D.FP32, D.INT32),
    D.UINT8: (D.FP16, D.UINT16),
    D.INT8: (D.INT16, D.INT32, D.FP16),
    D.UINT32: (D.UINT16, D.INT16, D.UINT8),
    D.FP8E4M3FN: (D.FP32,),
    D.FP8E5M2: (D.FP32,),
    D.HF8: (D.FP32,),
}

A2A3 = Platform(
    name="a2a3",
    backend_type=BackendType.Ascend910B,
    capacity={
        _M.Vec: 184 * _KIB,
        _M.Mat: 512 * _KIB,
        _M.Left: 64 * _KIB,
        _M.Right: 64 * _KIB,
        _M.Acc: 128 * _KIB,
        _M.Bias: 1 * _KIB,
    },
    alignment=_ALIGN,
    dies=1,
    aic_per_die=24,
    aiv_per_die=48,
    atomic_add_dtypes=_ATOMIC | {DataType.BF16},
    acc_store_dtypes=_ACC_STORE,
    transfers=_A2A3_TRANSFERS,
    target_arch="a2a3",
    assembler_arch="a3",
    launch="set_block_num",
    pipe_ring_in_gm=True,
    dual_aiv_dispatch=True,
    native_casts=_A2A3_CASTS,
)

A5 = Platform(
    name="a5",
    backend_type=BackendType.Ascend950,
    capacity={
        _M.Vec: 240 * _KIB,
        _M.Mat: 512 * _KIB,
        _M.Left: 64 * _KIB,
        _M.Right: 64 * _KIB,
        _M.Acc: 256 * _KIB,
        _M.Bias: 4 * _KIB,
        _M.LeftScale: 4 * _KIB,
        _M.RightScale: 4 * _KIB,
    },
    alignment={**_ALIGN, _M.LeftScale: 32, _M.RightScale: 32},
    dies=2,
    aic_per_die=18,
    aiv_per_die=36,
    atomic_add_dtypes=_ATOMIC,
    acc_store_dtypes=_ACC_STORE,
    transfers=_A2A3_TRANSFERS | {(_M.Vec, _M.Mat), (_M.Acc, _M.Vec), (_M.Mat, _M.LeftScale), (_M.Mat, _M.RightScale)},
    target_arch="a5",
    assembler_arch="a5",
    launch="set_core_num",
    native_casts=_A5_CASTS,
)

_PLATFORMS = {p.backend_type: p for p in (A2A3, A5)}


def platform_for(backend_type: BackendType | str) -> Platform:
    """The platform of ``backend_type`` (a BackendType or its name, e.g. ``"Ascend950"``)."""
    return _PLATFORMS[BackendType(backend_type)]


# The process-wide default platform, for code outside a compile (set_backend_type changes it).
_current: contextvars.ContextVar[Platform] = contextvars.ContextVar("pypto_platform", default=A2A3)
_configured: contextvars.ContextVar[bool] = contextvars.ContextVar("pypto_backend_configured", default=False)
# The platform of the compile running in this context (None outside ir.compile).
_compiling: contextvars.ContextVar[Platform | None] = contextvars.ContextVar("pypto_compiling", default=None)


def get_backend_type() -> BackendType:
    """The backend type compiled for by default."""
    return current_platform().backend_type


def set_backend_type(backend_type: BackendType | str) -> None:
    """Compile for ``backend_type`` from now on (where no pass context names a platform)."""
    _current.set(platform_for(backend_type))
    _configured.set(True)


def is_backend_configured() -> bool:
    """Whether :func:`set_backend_type` was called (since the last :func:`reset_for_testing`)."""
    return _configured.get()


def reset_for_testing() -> None:
    """Forget the configured backend type: back to the default Ascend910B, unconfigured."""
    _current.set(A2A3)
    _configured.set(False)


def get_mem_size(space: MemorySpace) -> int:
    """The usable bytes of on-chip memory ``space`` on the current platform (``get_mem_size(Mem.Vec)``)."""
    capacity = current_platform().capacity
    if space not in capacity:
        spaces = ", ".join(m.name for m in capacity)
        raise IRValueError(
            f"get_mem_size: {current_platform().name} has no on-chip memory {getattr(space, 'name', space)} "
            f"(DDR is unbounded; on-chip spaces: {spaces})"
        )
    return capacity[space]


def current_platform() -> Platform:
    """The platform of the current backend type (or of an enclosing :func:`target_platform` block).

    For code outside a compile only: inside :func:`compiling` it raises :class:`InternalError`, since
    a compile's platform is its pass context's (``PassContext.current().platform``).
    """
    compile_platform = _compiling.get()
    if compile_platform is not None:
        raise InternalError(
            f"the process-wide default platform was read during a compile for {compile_platform.name}; "
            "code that runs inside a compile reads PassContext.current().platform or takes the platform as an argument"
        )
    return _current.get()


@contextlib.contextmanager
def compiling(platform: Platform) -> Iterator[Platform]:
    """Mark the block as a compile for ``platform``: :func:`current_platform` is an error inside it."""
    token = _compiling.set(platform)
    try:
        yield platform
    finally:
        _compiling.reset(token)


@contextlib.contextmanager
def target_platform(platform: Platform) -> Iterator[Platform]:
    """Use ``platform`` as the default inside the block (checks run outside any pass context)."""
    token = _current.set(platform)
    try:
        yield platform
    finally:
        _current.reset(token)
