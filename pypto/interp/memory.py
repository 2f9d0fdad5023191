"""Address-backed tile storage: tiles as views of a per-memory-space byte buffer.

Until memory planning, tiles are plain values. Once every on-chip tile of a function has a MemRef
with a constant non-negative byte offset (the ``AllocatedMemoryAddr`` property), the interpreter
runs that function in *address mode*: each invocation gets one zeroed byte buffer per memory space
(Vec, Mat, Left, Right, Acc, ...), and a tile variable is a numpy view of ``shape`` elements stored
densely row-major at its MemRef's byte offset in its space's buffer. Then

* an assignment ``t = op(...)`` computes the result and copies it to ``t``'s address (inputs are
  read before the output is written, as on the hardware);
* loop-carried tiles (iter_args, return vars) and if-phis are bound to the bytes at their own
  address *without a copy* — codegen emits no copy for them, so a planner that gives a carry and
  its yield different addresses produces wrong results here too;
* two tiles whose byte ranges overlap see each other's writes, so a wrong memory-reuse decision or
  an overlapping allocation shows up as a wrong result.
* a view op whose result reads its source's bytes elsewhere or in another layout (``tile.slice`` at
  an offset, ``tile.transpose_view``) is bound to that view of the source, not copied to its address.

Layouts (NZ fractals, column-major blocks) are not modelled: aliasing is decided on byte ranges.
``run(..., memory="values")`` / ``"addresses"`` forces a mode instead of the automatic choice.
"""

from __future__ import annotations

import math
from typing import Iterator

import numpy as np

from pypto.ir.enums import MemorySpace
from pypto.ir.expr import ConstInt, Var
from pypto.ir.function import Function
from pypto.ir.stmt import AssignStmt, ForStmt, IfStmt, ScopeStmt, SeqStmts, Stmt, WhileStmt
from pypto.ir.types import TileType

from pypto.ir.numpy_dtypes import numpy_dtype
from .errors import OpError


def defined_vars(func: Function) -> Iterator[Var]:
    """Every variable a function defines: params, assignment targets, loop and if variables."""
    yield from func.params
    stack: list[Stmt] = [func.body]
    while stack:
        s = stack.pop()
        if isinstance(s, SeqStmts):
            stack.extend(s.stmts)
        elif isinstance(s, AssignStmt):
            yield s.var
        elif isinstance(s, ForStmt):
            yield s.loop_var
            yield from s.iter_args
            yield from s.return_vars
            stack.append(s.body)
        elif isinstance(s, WhileStmt):
            yield from s.iter_args
            yield from s.return_vars
            stack.append(s.body)
        elif isinstance(s, IfStmt):
            yield from s.return_vars
            stack.append(s.then_body)
            if s.else_body is not None:
                stack.append(s.else_body)
        elif isinstance(s, ScopeStmt):
            stack.append(s.body)


def tile_address(t: TileType) -> int | None:
    """The byte address of an on-chip tile type, or None if it has no allocated MemRef."""
    if t.memref is None or t.memory_space in (None, MemorySpace.DDR):
        return None
    off = t.memref.byte_offset
    return off.value if isinstance(off, ConstInt) and off.value >= 0 else None


def _static_nbytes(t: TileType) -> int | None:
    dims = [d.value if isinstance(d, ConstInt) else None for d in t.shape]
    if None in dims:
        return None
    return math.prod(dims) * numpy_dtype(t.dtype).itemsize


def plan_extents(func: Function) -> dict[MemorySpace, int] | None:
    """Bytes needed per memory space if ``func`` is address-backed, else None.

    A function is address-backed when it has at least one on-chip tile MemRef and every on-chip
    tile MemRef has a constant non-negative byte offset.
    """
    extents: dict[MemorySpace, int] = {}
    for var in defined_vars(func):
        t = var.type
        if not isinstance(t, TileType) or t.memref is None or t.memory_space in (None, MemorySpace.DDR):
            continue
        addr = tile_address(t)
        if addr is None:
            return None
        size = max(t.memref.size, _static_nbytes(t) or 0)
        extents[t.memory_space] = max(extents.get(t.memory_space, 0), addr + size)
    return extents or None


class AddressMemory:
    """The byte buffers of one kernel invocation, one per memory space."""

    __slots__ = ("buffers",)

    def __init__(self, extents: dict[MemorySpace, int]) -> None:
        self.buffers = {space: np.zeros(size, dtype=np.uint8) for space, size in extents.items()}

    def view(self, space: MemorySpace, address: int, shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
        """The ``shape`` elements of ``dtype`` stored at ``address`` in ``space``."""
        nbytes = math.prod(shape) * dtype.itemsize
        buf = self.buffers.get(space)
        if buf is None or address + nbytes > buf.shape[0]:
            have = 0 if buf is None else buf.shape[0]
            raise OpError(
                f"tile of {nbytes} bytes at {space.name} address {address} lies outside the {have} planned bytes"
            )
        return buf[address : address + nbytes].view(dtype).reshape(shape)
