"""Memory-planning invariants: every tile has a MemRef; every on-chip MemRef has an address and
each memory space fits the chip."""

from __future__ import annotations

import itertools
import operator

from pypto.analysis import function_index, op_name

from pypto.ir.enums import MemorySpace
from pypto.ir.expr import Call, ConstInt, Op, Var
from pypto.ir.function import Function, Program
from pypto.ir.op_registry import is_view_op
from pypto.ir.stmt import AssignStmt
from pypto.ir.types import TileType

from .base import Invariant, Reporter
from .kernels import TPOPS
from .walk import checked_defs



_VAR = operator.attrgetter("var")
_TYPE = operator.attrgetter("type")


def _check_memrefs(func: Function, program: Program, report: Reporter) -> None:
    assigns = function_index(func).of(AssignStmt)
    # Only an assigned tile without a MemRef breaks the rule: look at the assigned variables' types
    # (not every node's), the shaped ones without a MemRef first with C-level maps.
    types = list(map(_TYPE, map(_VAR, assigns)))
    unplaced = itertools.compress(types, map(operator.is_, map(getattr, types, itertools.repeat("memref"),
                                                                itertools.repeat(0)), itertools.repeat(None)))
    if not any(isinstance(t, TileType) for t in unplaced):
        return
    piped: set[Var] = set()
    for stmt in assigns:
        value = stmt.value  # op_name(value), inlined: this looks at every assignment
        name = value.op.name if type(value) is Call and type(value.op) is Op else op_name(value)
        if name in TPOPS or (piped and is_view_op(name) and value.args and value.args[0] in piped):
            piped.add(stmt.var)
            continue
        if isinstance(stmt.var.type, TileType) and stmt.var.type.memref is None:
            report.error("NO_MEMREF", f"tile '{stmt.var.name_hint}' has no MemRef", stmt)


HasMemRefs = Invariant.per_function(
    "HasMemRefs",
    "every assigned tile has a MemRef (pipe-slot tiles from tpop and their views excepted)",
    _check_memrefs,
)


_OFF_CHIP = (None, MemorySpace.DDR)


def _addresses_fit(func: Function, capacity: dict[MemorySpace, int]) -> bool:
    """True when every on-chip tile type among the node types of ``func`` has an address and each
    space's highest end fits: then no variable of ``func`` (its type is one of them) breaks a rule.
    After memory reuse the variables share a few types."""
    high: dict[MemorySpace, int] = {}
    for t in function_index(func).types_of(TileType):
        memref = t.memref
        if memref is None or t.memory_space_ in _OFF_CHIP:
            continue
        offset = memref.byte_offset_
        if not isinstance(offset, ConstInt) or offset.value < 0:
            return False
        end = offset.value + memref.size_
        if end > high.get(t.memory_space, 0):
            high[t.memory_space] = end
    return all(capacity.get(space) is None or end <= capacity[space] for space, end in high.items())


def _check_addresses(func: Function, program: Program, report: Reporter) -> None:
    capacity = report.platform.capacity
    if _addresses_fit(func, capacity):
        return
    high: dict[MemorySpace, tuple[int, Var]] = {}
    off_chip = _OFF_CHIP
    for var in checked_defs(func):
        t = var.type
        if not isinstance(t, TileType) or t.memref is None or t.memory_space_ in off_chip:
            continue
        offset = t.memref.byte_offset_
        if not isinstance(offset, ConstInt) or offset.value < 0:
            report.error("NO_ADDRESS", f"tile '{var.name_hint}' has no address in {t.memory_space.name}", var)
            continue
        end = offset.value + t.memref.size_
        if end > high.get(t.memory_space, (0, var))[0]:
            high[t.memory_space] = (end, var)
    for space, (end, var) in sorted(high.items()):
        limit = capacity.get(space)
        if limit is not None and end > limit:
            report.error(
                "CAPACITY",
                f"Function '{func.name}': {space.name} buffer usage ({end} bytes) exceeds platform limit ({limit} bytes)",
                var,
            )


AllocatedMemoryAddr = Invariant.per_function(
    "AllocatedMemoryAddr",
    "every on-chip tile MemRef has a non-negative address, and each space fits the chip",
    _check_addresses,
    auto_verified=True,
)
