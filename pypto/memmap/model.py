"""What a memory map shows, read off a planned kernel: each buffer lifetime's space, address, size and
statement range.

Addresses and sizes are the MemRefs AllocateMemoryAddr wrote; lifetimes are the ``def``/``last``
statement numbers of :func:`pypto.passes.memory_lifetimes.lifetimes`, the analysis MemoryReuse packs
with, so the picture shows the facts the planner used. The tiles of one buffer whose lifetimes
overlap or touch (views, in-place updates, loop carries: the same data going on) make one lifetime;
a later tile in that buffer after a gap is a new one (reuse). A pipe ring (``system.reserve_buffer``)
is live from the first statement to the last. The loops' statement ranges come from the same walk.
"""

from __future__ import annotations

from dataclasses import dataclass

from pypto.analysis import function_index, op_name
from pypto.backend import Platform
from pypto.ir.enums import FunctionType, MemorySpace
from pypto.ir.errors import PyptoError
from pypto.ir.expr import Call, ConstInt, Var
from pypto.ir.function import Function
from pypto.ir.ops.cross_core_ops import reserved_space
from pypto.ir.stmt import ForStmt, Stmt
from pypto.passes.memory_lifetimes import lifetimes


class MemmapError(PyptoError):
    """A memory map cannot be drawn (the kernel has no planned addresses)."""


@dataclass(frozen=True)
class Buffer:
    """One buffer lifetime: the tiles (or the pipe ring) in ``[address, address + size)`` of ``space``
    from statement ``first`` to ``last`` (inclusive)."""

    names: tuple[str, ...]
    space: MemorySpace
    address: int
    size: int
    first: int
    last: int
    ring: bool = False

    @property
    def end(self) -> int:
        """The first byte past the buffer."""
        return self.address + self.size


@dataclass(frozen=True)
class LoopSpan:
    """A loop of the kernel: its own statement number, the last of its body, and its trip count when
    constant (None for a ``while`` or bounds known only at run time)."""

    first: int
    last: int
    trips: int | None


@dataclass(frozen=True)
class KernelMap:
    """The buffer lifetimes of one kernel and the capacities of the platform it was planned for."""

    kernel: str
    core: str
    platform: str
    statements: int
    capacity: dict[MemorySpace, int]
    buffers: tuple[Buffer, ...]
    loops: tuple[LoopSpan, ...] = ()

    def spaces(self) -> list[MemorySpace]:
        """The memory spaces the kernel uses, in the enum's order (Vec, Mat, Left, Right, Acc, ...)."""
        return sorted({b.space for b in self.buffers})

    def peak(self, space: MemorySpace) -> int:
        """The highest byte the kernel's buffers reach in ``space`` (what the capacity check compares)."""
        return max((b.end for b in self.buffers if b.space is space), default=0)

    def overflowing(self) -> list[MemorySpace]:
        """The spaces whose peak is past the platform's capacity (a plan that does not fit)."""
        return [s for s in self.spaces() if s in self.capacity and self.peak(s) > self.capacity[s]]


def kernel_map(func: Function, platform: Platform) -> KernelMap:
    """The memory map of the AIC or AIV kernel ``func``, whose tiles have planned addresses."""
    life = lifetimes(func)
    chains: dict[Var, list[tuple[int, int, Var]]] = {}
    for var in life.defs:
        chains.setdefault(var.type.memref.base_, []).append((*life.interval(var), var))
    buffers: list[Buffer] = []
    for members in chains.values():
        ref = members[0][2].type.memref
        offset = ref.byte_offset_
        if not isinstance(offset, ConstInt) or offset.value < 0:
            raise MemmapError(
                f"'{func.name}' has no planned address for '{members[0][2].name_hint}': a memory map needs the "
                "program after AllocateMemoryAddr (a pipeline that runs memory planning)"
            )
        size = max(v.type.memref.size_ for _, _, v in members)
        buffers += _lifetimes(members, members[0][2].type.memory_space, offset.value, size)
    space = reserved_space(func.func_type)
    for call in function_index(func).of(Call):
        if op_name(call) == "system.reserve_buffer":
            kw = call.kwargs
            buffers.append(Buffer((kw["name"],), space, kw["base"], kw["size"], 1, max(life.statements, 1), ring=True))
    buffers.sort(key=lambda b: (b.space, b.first, b.address))
    core = "AIC" if func.func_type is FunctionType.AIC else "AIV"
    loops = tuple(sorted((LoopSpan(lp.start, lp.end, _trips(lp.stmt)) for lp in life.loops),
                         key=lambda lp: (lp.first, -lp.last)))
    statements = max(life.statements, 1)
    return KernelMap(func.name, core, platform.name, statements, dict(platform.capacity), tuple(buffers), loops)


def _trips(loop: Stmt) -> int | None:
    if not isinstance(loop, ForStmt):
        return None
    bounds = (loop.start, loop.stop, loop.step)
    if not all(isinstance(b, ConstInt) for b in bounds) or loop.step.value <= 0:
        return None
    return max(0, -(-(loop.stop.value - loop.start.value) // loop.step.value))


def _lifetimes(members: list[tuple[int, int, Var]], space: MemorySpace, address: int, size: int) -> list[Buffer]:
    """The lifetimes of one buffer: its tiles in order of definition, joined where they overlap or touch."""
    out: list[Buffer] = []
    names: list[str] = []
    first = last = -1
    for d, l, var in sorted(members, key=lambda m: (m[0], m[1])):
        if names and d > last:
            out.append(Buffer(tuple(names), space, address, size, first, last))
            names = []
        if not names:
            first, last = d, l
        names.append(var.name_hint)
        last = max(last, l)
    out.append(Buffer(tuple(names), space, address, size, first, last))
    return out
