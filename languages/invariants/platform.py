"""Per-chip facts some invariants depend on (spec/codegen.md §4), and the platform being targeted.

``current_platform()`` is Ascend910B (``a2a3``) unless a ``with target_platform(A5):`` block
selects another chip.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator
from dataclasses import dataclass, field

from pypto.ir.datatype import DataType
from pypto.ir.enums import MemorySpace

_KIB = 1024


@dataclass(frozen=True)
class Platform:
    """Capacities (usable bytes per memory space), core counts and dtype rules of one chip."""

    name: str
    capacity: dict[MemorySpace, int] = field(hash=False)
    aic_cores: int
    aiv_cores: int
    atomic_add_dtypes: frozenset[DataType]


_ATOMIC = frozenset({DataType.FP32, DataType.FP16, DataType.INT32, DataType.INT16, DataType.INT8})

A2A3 = Platform(
    "a2a3",
    {
        MemorySpace.Vec: 184 * _KIB,
        MemorySpace.Mat: 512 * _KIB,
        MemorySpace.Left: 64 * _KIB,
        MemorySpace.Right: 64 * _KIB,
        MemorySpace.Acc: 128 * _KIB,
        MemorySpace.Bias: 1 * _KIB,
    },
    aic_cores=24,
    aiv_cores=48,
    atomic_add_dtypes=_ATOMIC | {DataType.BF16},
)

A5 = Platform(
    "a5",
    {
        MemorySpace.Vec: 240 * _KIB,
        MemorySpace.Mat: 512 * _KIB,
        MemorySpace.Left: 64 * _KIB,
        MemorySpace.Right: 64 * _KIB,
        MemorySpace.Acc: 256 * _KIB,
        MemorySpace.Bias: 4 * _KIB,
        MemorySpace.LeftScale: 4 * _KIB,
        MemorySpace.RightScale: 4 * _KIB,
    },
    aic_cores=36,
    aiv_cores=72,
    atomic_add_dtypes=_ATOMIC,
)

_current: contextvars.ContextVar[Platform] = contextvars.ContextVar("pypto_platform", default=A2A3)


def current_platform() -> Platform:
    """The platform the checks assume."""
    return _current.get()


@contextlib.contextmanager
def target_platform(platform: Platform) -> Iterator[Platform]:
    """Check against ``platform`` inside the block."""
    token = _current.set(platform)
    try:
        yield platform
    finally:
        _current.reset(token)
