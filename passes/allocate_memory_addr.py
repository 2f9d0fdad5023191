"""AllocateMemoryAddr: byte addresses for the buffers of every kernel (docs/passes.md#allocatememoryaddr)."""

from __future__ import annotations

import itertools
import operator
import re

from pypto.languages.invariants import AllocatedMemoryAddr
from pypto.languages.invariants.walk import checked_defs
from pypto.languages.memref import memref

from pypto.analysis import function_index, op_name, stmt_exprs
from pypto.ir.datatype import DataType
from pypto.ir.enums import MemorySpace
from pypto.ir.expr import Call, ConstInt, Op, Var
from pypto.ir.function import Function, Program
from pypto.ir.memref import MemRef
from pypto.ir.node import replace
from pypto.ir.ops.cross_core_ops import AUTO, reserved_space
from pypto.ir.span import Span
from pypto.ir.stmt import AssignStmt
from pypto.ir.types import TileType

from pypto.transform.context import PassContext
from pypto.transform.errors import PassError
from pypto.transform.memref_util import KERNELS, Prototype, Retype, TypeMemo, new_memref, on_chip
from pypto.transform.rewrite import Result, RewritePass
from pypto.transform.util import straight_line

_ID = re.compile(r"(\d+)$")
_OFFSET: Prototype[ConstInt] = Prototype(lambda: ConstInt(0, DataType.INT64, Span.unknown()))  # a tile's byte address


class CapacityError(PassError):
    """The buffers of a kernel do not fit a memory space of the platform; ``hint`` says what to do.

    ``attempt`` is the kernel as the planner laid it out anyway (every tile and ring at the address it
    tried, some past the capacity), so a memory map can show the overflow (:mod:`pypto.memmap`).
    """

    def __init__(self, pass_name: str, message: str, span: Span, hint: str, attempt: Function | None = None) -> None:
        super().__init__(pass_name, message, span, hint)
        self.attempt = attempt


def _align(n: int, a: int) -> int:
    return -(-n // a) * a


class AllocateMemoryAddr(RewritePass):
    """Lay the allocations of each kernel out per memory space, from address 0.

    before:  ta: pl.Tile[[128, 128], pl.FP32, pl.MemRef(mem_vec_0, pl.const(-1, pl.INT64), 65536), pl.Mem.Vec]
             tb: pl.Tile[[128, 128], pl.FP32, pl.MemRef(mem_vec_1, pl.const(-1, pl.INT64), 65536), pl.Mem.Vec]
    after:   ta: pl.Tile[[128, 128], pl.FP32, pl.MemRef(mem_vec_0, pl.const(0, pl.INT64), 65536), pl.Mem.Vec]
             tb: pl.Tile[[128, 128], pl.FP32, pl.MemRef(mem_vec_1, pl.const(65536, pl.INT64), 65536), pl.Mem.Vec]

    Per space, the allocations (one per base Ptr, the size of its largest tile) are sorted by
    name (``mem_vec_<n>`` by ``n``) and placed one after the other, each start aligned to the
    platform's address alignment (32 bytes). The end of the last one must fit the space's capacity
    on the platform of the pass context, else a PassError
    ``Function '<f>': <Space> buffer usage (<n> bytes) exceeds platform limit (<cap> bytes)``.
    ``tile.alloc`` statements stay as they are; every tile's MemRef gets its constant address.

    Cross-core pipe buffers (``system.reserve_buffer``) come first, at the bottom of the kernel's
    cross-core space (Mat on AIC, Vec on AIV): explicit bases as written, ``pl.AUTO`` ones one after
    the other from 0 (the resolved base is written back into the call); the space's tiles start at
    the aligned end of the highest reserved range, and the ring counts in its capacity check.

    Every space is laid out before the capacity check fails, and the error's ``attempt`` holds the
    kernel at the addresses tried: ``pypto memmap`` draws it with the overflow in red.
    """

    source = memref
    produces = frozenset({AllocatedMemoryAddr})

    def run_function(self, func: Function, program: Program) -> Function:
        if func.func_type not in KERNELS:
            return func
        platform = PassContext.current().platform
        allocs, defs, reserves = _contents(func)
        keys, tiles = _tiles(defs)
        slots = _slots(allocs, tiles)
        addresses: dict[Var, int] = {}
        reserved = reserved_space(func.func_type)
        bases_of, floor = self._reserve(func, reserves, reserved, platform.address_alignment)
        by_space: dict[MemorySpace, list[Var]] = {}
        for base, (space, _, _) in slots.items():
            by_space.setdefault(space, []).append(base)
        if floor:
            by_space.setdefault(reserved, [])
        overflow: CapacityError | None = None
        for space, bases in by_space.items():
            addr = floor if space is reserved else 0
            end = addr
            for base in sorted(bases, key=_slot_key):
                addresses[base] = addr
                end = addr + slots[base][1]
                addr = _align(end, platform.address_alignment)
            cap = platform.capacity.get(space)
            if overflow is None and cap is not None and end > cap:
                overflow = CapacityError(
                    self.name,
                    f"Function '{func.name}': {space.name} buffer usage ({end} bytes) exceeds platform limit "
                    f"({cap} bytes)",
                    slots[bases[0]][2].span if bases else func.span,
                    f"the {space.name} tiles of '{func.name}' that are live at the same time do not fit "
                    f"{platform.name}: use smaller tiles (process the data in more blocks)"
                    + (f"; the reserved pipe rings take the first {floor} bytes: fewer or smaller slots "
                       "(slot_num, slot_size) leave more" if floor and space is reserved else ""),
                )
        placed = self._place(func, program, defs, keys, tiles, addresses, bases_of)
        if overflow is not None:
            # Every space is laid out first, so the attempt shows all of the kernel's overflows.
            overflow.attempt = placed
            raise overflow
        return placed

    def _place(
        self, func: Function, program: Program, defs: list[Var], keys: list[int], tiles: _Tiles,
        addresses: dict[Var, int], bases_of: dict[Call, int],
    ) -> Function:
        """``func`` with every tile's MemRef at its base's address and the resolved ring bases written
        in (``keys``: the id of each of ``defs``' types, ``tiles``: :func:`_tiles`)."""
        refs: dict[int, MemRef] = {}
        memo = TypeMemo()
        placed: dict[int, TileType] = {}  # by type object
        for key, (t, _) in tiles.items():
            m = t.memref
            ref = refs.get(id(m))
            if ref is None:
                addr, span = addresses[m.base_], m.span
                offset = _OFFSET.make({"value": addr, "span": span})
                ref = refs[id(m)] = new_memref(m.base_, offset, m.size_, span)
            placed[key] = memo.get(t, ref)
        if not placed and not bases_of:
            return func
        # Each tile variable's new type, by C-level maps over the variables.
        tile = list(map(placed.__contains__, keys))
        new_types = dict(zip(itertools.compress(defs, tile), map(placed.__getitem__, itertools.compress(keys, tile))))
        run = _Place(new_types, bases_of) if bases_of else Retype(new_types)
        run.start(func, program)
        return run.function(func)

    def _reserve(
        self, func: Function, calls: list[Call], space: MemorySpace, alignment: int,
    ) -> tuple[dict[Call, int], int]:
        """The base of each ``reserve_buffer`` call of ``func`` (``calls``) and the aligned end of the
        reserved ranges."""
        bases: dict[Call, int] = {}
        ranges: list[tuple[int, int, Call]] = []
        auto = 0
        for call in calls:  # explicit bases first: AUTO ones go above them
            if call.kwargs["base"] != AUTO:
                bases[call] = call.kwargs["base"]
                auto = max(auto, _align(bases[call] + call.kwargs["size"], alignment))
        for call in calls:
            if call.kwargs["base"] == AUTO:
                bases[call] = auto
                auto = _align(auto + call.kwargs["size"], alignment)
        for call in calls:
            start, end = bases[call], bases[call] + call.kwargs["size"]
            for other_start, other_end, other in ranges:
                if start < other_end and other_start < end:
                    raise self.error(
                        f"Function '{func.name}': reserved buffer '{call.kwargs['name']}' [{start}, {end}) overlaps "
                        f"'{other.kwargs['name']}' [{other_start}, {other_end}) in {space.name}", call.span,
                        "give the buffers disjoint bases, or base=pl.AUTO to let memory planning place them")
            ranges.append((start, end, call))
        floor = max((_align(end, alignment) for _, end, _ in ranges), default=0)
        return bases, floor


class _Place(Retype):
    """Retype the tiles with their addresses and write the resolved bases into ``reserve_buffer``."""

    def __init__(self, new_types: dict[Var, TileType], bases: dict[Call, int]) -> None:
        super().__init__(new_types)
        self.bases = bases

    def assign(self, node: AssignStmt) -> Result:
        base = self.bases.get(node.value) if isinstance(node.value, Call) else None
        if base is None or node.value.kwargs["base"] == base:
            return super().assign(node)
        call = replace(node.value, kwargs={**node.value.kwargs, "base": base})
        return replace(node, var=self.define(node.var), value=call)


_ALLOC = "tile.alloc"
_RESERVE = "system.reserve_buffer"
_TYPE = operator.attrgetter("type")
_VAR = operator.attrgetter("var")


def _contents(func: Function) -> tuple[list[AssignStmt], list[Var], list[Call]]:
    """The ``tile.alloc`` assignments of ``func``, the variables it defines (parameters first) and its
    ``reserve_buffer`` calls, each in program order. A straight-line function (most kernels) has
    them in its statements (calls are not nested in this dialect): the node index, a walk of every
    node, is not built for them."""
    stmts = straight_line(func)
    if stmts is None:
        index = function_index(func)
        allocs = [s for s in index.of(AssignStmt) if op_name(s.value) == _ALLOC]
        # The defined variables the boundary checks of the input listed already (cached per function).
        return allocs, checked_defs(func), index.calls_to(_RESERVE)
    assigns: list[AssignStmt] = []
    allocs: list[AssignStmt] = []
    reserves: list[Call] = []
    for s in stmts:  # one loop: the op call of an assignment (most statements) is told by its op's name
        if type(s) is AssignStmt:
            assigns.append(s)
            value = s.value
            if type(value) is Call and type(value.op) is Op:
                name = value.op.name
                if name == _ALLOC:
                    allocs.append(s)
                elif name == _RESERVE:
                    reserves.append(value)
                continue
            if op_name(value) == _ALLOC:
                allocs.append(s)
            exprs: tuple | list = (value,)
        else:
            exprs = stmt_exprs(s)
        reserves += [e for e in exprs if _reserves(e)]
    return allocs, [*func.params, *map(_VAR, assigns)], reserves


def _reserves(e: object) -> bool:
    """True for a ``reserve_buffer`` call (the ones ``FunctionIndex.calls_to`` lists)."""
    # The exact classes first: isinstance against other IR classes is slow.
    if type(e) is Call and type(e.op) is Op:
        return e.op.name == _RESERVE
    return isinstance(e, Call) and op_name(e) == _RESERVE


# The on-chip tile types with a MemRef among the types of a function's variables, each once (by id):
# the type and the first variable of it, in the order of first use.
_Tiles = dict[int, tuple[TileType, Var]]


def _tiles(defs: list[Var]) -> tuple[list[int], _Tiles]:
    """The id of the type of each of ``defs``, and their tile types (``_Tiles``). Each type is looked
    at once (the maps run in C): MemoryReuse gives the tiles of a buffer that agree in shape, dtype,
    space and view one type object."""
    types = list(map(_TYPE, defs))
    keys = list(map(id, types))
    first = dict(zip(reversed(keys), reversed(defs)))
    distinct = dict(zip(keys, types))
    return keys, {key: (t, first[key]) for key, t in distinct.items() if on_chip(t) and t.memref is not None}


def _slots(allocs: list[AssignStmt], tiles: _Tiles) -> dict[Var, tuple[MemorySpace, int, Var]]:
    """Each allocation (``allocs``): its space, size (the largest of its alloc and its ``tiles``) and
    a variable to point an error at (the first tile using it)."""
    slots: dict[Var, tuple[MemorySpace, int, Var]] = {}
    for stmt in allocs:
        space, size = stmt.value.args
        if isinstance(space, ConstInt) and isinstance(size, ConstInt):
            slots[stmt.var] = (MemorySpace(space.value), size.value, stmt.var)
    users: set[Var] = set()
    for t, var in tiles.values():
        m = t.memref
        base, size = m.base_, m.size_
        found = slots.get(base)
        if base in users:  # a later tile type of a buffer: only a larger size changes its slot
            if size > found[1]:
                slots[base] = (found[0], size, found[2])
            continue
        users.add(base)
        slots[base] = (t.memory_space, max(0, size), var) if found is None else (found[0], max(found[1], size), var)
    return slots


def _slot_key(base: Var) -> tuple[str, int]:
    found = _ID.search(base.name_hint)
    return (base.name_hint[: found.start()] if found else base.name_hint, int(found.group(1)) if found else -1)
