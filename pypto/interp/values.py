"""Run-time values of the interpreter.

* Scalars are Python ``int`` / ``float`` / ``bool`` already normalised to their dtype; task ids are
  plain ints (opaque: only identity matters).
* ``TensorValue``: a tensor in GM. Tensors are *buffers*: ops that write a tensor (``tile.store``,
  ``tensor.assemble``, ``tensor.write``, a callee writing an Out param) mutate it in place and return
  the same object, as the hardware does. ``tensor.slice``/``reshape`` give numpy views sharing the
  parent's storage. ``written`` is a boolean mask of initialised elements (None = all written) so that
  reading an Out tensor or a fresh ``tensor.create`` before writing it is an error.
* ``TileValue``: an on-chip tile. In value mode each op result owns its array. In address mode
  (see :mod:`pypto.interp.memory`) ``data`` is a view into the byte buffer of its memory space, so
  tiles sharing memory see each other's writes.
* Tuples are Python tuples; arrays (``pl.Array``) are numpy 1-D arrays copied on update.

``valid`` is the valid region (a tuple of ints, one per dim) of a tile or tensor; data outside it is
undefined on the hardware and is never written back to GM.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pypto.ir.datatype import DataType
from pypto.ir.enums import MemorySpace

from .errors import OpError


class ArrayValue:
    """Common part of tensors and tiles: data, element type and valid region."""

    __slots__ = ("data", "dtype", "valid")

    def __init__(self, data: np.ndarray, dtype: DataType, valid: tuple[int, ...] | None = None) -> None:
        self.data = data
        self.dtype = dtype
        self.valid = tuple(data.shape) if valid is None else valid

    @property
    def shape(self) -> tuple[int, ...]:
        """The physical shape."""
        return tuple(self.data.shape)

    def valid_data(self) -> np.ndarray:
        """The valid region of the data (a view)."""
        return self.data[tuple(slice(0, v) for v in self.valid)]


class TensorValue(ArrayValue):
    """A GM tensor buffer (mutable; shared by reference)."""

    __slots__ = ("written",)

    def __init__(
        self,
        data: np.ndarray,
        dtype: DataType,
        valid: tuple[int, ...] | None = None,
        written: np.ndarray | None = None,
    ) -> None:
        super().__init__(data, dtype, valid)
        self.written = written

    def check_written(self, region: tuple[slice, ...] | None = None, what: str = "tensor") -> None:
        """Raise ``OpError`` if any element of ``region`` (default: all) was never written."""
        if self.written is None:
            return
        mask = self.written if region is None else self.written[region]
        if not mask.all():
            first = np.argwhere(~mask)[0]
            if region is not None:
                first = [int(i) + (s.start or 0) for i, s in zip(first, region)]
            raise OpError(
                f"reads an unwritten element {list(map(int, first))} of {what} "
                "(Out tensors must be written before they are read)"
            )

    def mark_written(self, region: tuple[slice, ...] | tuple[np.ndarray, ...] | None = None) -> None:
        """Record that ``region`` (default: all; slices, or index arrays of single elements) now holds data."""
        if self.written is None:
            return
        if region is None:
            self.written[...] = True
        else:
            self.written[region] = True


class TileValue(ArrayValue):
    """An on-chip tile: data (physical shape), valid region, memory space."""

    __slots__ = ("space",)

    def __init__(
        self,
        data: np.ndarray,
        dtype: DataType,
        valid: tuple[int, ...] | None = None,
        space: MemorySpace | None = None,
    ) -> None:
        super().__init__(data, dtype, valid)
        self.space = space


def to_python(value: Any) -> Any:
    """A run-time value as returned to the caller: arrays for tensors/tiles, tuples kept."""
    if isinstance(value, ArrayValue):
        return value.data
    if isinstance(value, tuple):
        return tuple(to_python(v) for v in value)
    return value


class PtrValue:
    """The allocation token of ``tile.alloc`` / ``tensor.alloc`` (a ``Ptr``)."""

    __slots__ = ("space", "size")

    def __init__(self, space: MemorySpace, size: int) -> None:
        self.space = space
        self.size = size
