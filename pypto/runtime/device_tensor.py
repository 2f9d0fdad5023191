"""``DeviceTensor``: a tensor resident in a ``ChipWorker``'s device memory between calls.

As a call argument it is neither uploaded nor copied back: read it with
``worker.copy_from(host.data_ptr(), t.data_ptr, t.nbytes)``. Only the worker that allocated it may
pass it to a program.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from pypto.ir.numpy_dtypes import datatype_of
from pypto.ir.errors import OpError
from pypto.ir.datatype import DataType


@dataclass(frozen=True)
class DeviceTensor:
    """``shape`` elements of ``dtype`` at device address ``data_ptr`` (``buffer``: the backing handle).

    ``dtype`` is a ``torch.dtype`` or a numpy dtype (torch is optional). Equality ignores ``buffer``.
    """

    data_ptr: int
    shape: tuple[int, ...]
    dtype: Any
    buffer: Any = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        if isinstance(self.data_ptr, bool) or not isinstance(self.data_ptr, int) or self.data_ptr <= 0:
            raise ValueError(f"DeviceTensor.data_ptr must be a positive int, got {self.data_ptr!r}")
        object.__setattr__(self, "shape", checked_shape(self.shape, "DeviceTensor.shape"))
        datatype(self.dtype)  # TypeError for anything that is no tensor dtype
        if self.buffer is not None:
            base = getattr(self.buffer, "base", None)
            if isinstance(base, bool) or not isinstance(base, int) or base != self.data_ptr:
                raise ValueError(f"DeviceTensor.buffer must have an int base equal to data_ptr {self.data_ptr}")
            if not callable(getattr(self.buffer, "tensor", None)):
                raise ValueError("DeviceTensor.buffer must have a tensor(shapes, dtype) method")

    @property
    def datatype(self) -> DataType:
        """The element type as a pypto ``DataType``."""
        return datatype(self.dtype)

    @property
    def nbytes(self) -> int:
        """The size in bytes: the element count times the element size."""
        return math.prod(self.shape) * self.datatype.get_byte()


def checked_shape(shape: object, what: str) -> tuple[int, ...]:
    """``shape`` as a tuple of positive ints: ``TypeError`` for non-ints, ``ValueError`` if empty or not positive."""
    if not isinstance(shape, list | tuple):
        raise TypeError(f"{what} must be a list or tuple of ints, got {type(shape).__name__}")
    dims = tuple(shape)
    if any(isinstance(d, bool) or not isinstance(d, int) for d in dims):
        raise TypeError(f"{what} must hold ints, got {list(dims)}")
    if not dims or any(d <= 0 for d in dims):
        raise ValueError(f"{what} must be a non-empty list of positive ints, got {list(dims)}")
    return dims


def datatype(dtype: object) -> DataType:
    """The pypto ``DataType`` of a torch or numpy dtype; ``TypeError`` for anything else."""
    from .host_arrays import from_torch, torch_datatype

    if from_torch(dtype):
        return torch_datatype(dtype)
    try:
        return datatype_of(np.dtype(dtype))  # type: ignore[call-overload]
    except (TypeError, OpError):
        raise TypeError(f"dtype must be a torch.dtype or a numpy dtype pypto supports, got {dtype!r}") from None
