"""Helpers shared by the memory-planning passes (InitMemRef, MemoryReuse, AllocateMemoryAddr):
which functions are planned, tile buffer sizes, and a rewrite that gives variables new types."""

from __future__ import annotations

import math
from typing import Any

from pypto.analysis.index import PLAIN
from pypto.backend import Platform
from pypto.ir.datatype import DataType
from pypto.ir.enums import FunctionType, MemorySpace
from pypto.ir.expr import Call, ConstBool, ConstFloat, ConstInt, IterArg, MakeTuple, Op, Var
from pypto.ir.memref import MemRef
from pypto.ir.parts import copy_parts, replace_parts
from pypto.ir.stmt import AssignStmt, Stmt
from pypto.ir.traversal import iter_value
from pypto.ir.types import TileType

from .rewrite import Rewrite
from .util import same_list

# Functions whose tiles live in on-chip memory (split_core has no InCore function left).
KERNELS = frozenset({FunctionType.AIV, FunctionType.AIC})


# Read once: Enum members go through the slow class attribute path on Python 3.11 (these run per tile).
_OFF_CHIP = (None, MemorySpace.DDR)
_ACC = MemorySpace.Acc


def on_chip(t: object) -> bool:
    """A tile type in an on-chip memory space (DDR tiles get no buffer)."""
    return isinstance(t, TileType) and t.memory_space not in _OFF_CHIP


def tile_nbytes(t: TileType, platform: Platform) -> int | None:
    """Bytes of the buffer of ``t`` (docs/passes.md#initmemref), or None for a dynamic shape.

    ``∏shape × dtype bytes``, sub-byte dtypes rounded up; an Acc tile pads its rows (``M``) to 16,
    or to 32 for INT32 accumulators on a2a3.
    """
    dims = [d.value if isinstance(d, ConstInt) else None for d in t.shape]
    if None in dims:
        return None
    if t.memory_space is _ACC and len(dims) >= 2:
        align = 32 if t.dtype == DataType.INT32 and platform.name == "a2a3" else 16
        dims[-2] = -(-dims[-2] // align) * align
    return -(-math.prod(dims) * t.dtype.get_bit() // 8)


def with_memref(t: TileType, memref: MemRef | None) -> TileType:
    """``t`` with another MemRef (shape, dtype, view and space kept; built from its checked parts)."""
    return replace_parts(t, memref=memref)


class TypeMemo:
    """:func:`with_memref` once per distinct type and MemRef: the tiles of one buffer that have one
    shape, dtype, view and space share one new type object (types are immutable and compare
    structurally), so a pass re-pointing a kernel's tiles builds a type per buffer, not per tile."""

    def __init__(self) -> None:
        self._types: dict[tuple, TileType] = {}

    def get(self, t: TileType, memref: MemRef) -> TileType:
        """``with_memref(t, memref)``, shared with every earlier equal request."""
        view = t.tile_view
        # Objects by identity (the memo keeps them alive through the types it holds; dtypes and spaces
        # are singletons, whose hashes are Python calls).
        dims = tuple((d.value, id(d.dtype)) if type(d) is ConstInt else id(d) for d in t.shape)
        key = (id(memref), id(t.dtype), id(t.memory_space), dims, None if view is None else id(view))
        found = self._types.get(key)
        if found is None:
            found = self._types[key] = with_memref(t, memref)
        return found


_CONSTANTS = (ConstInt, ConstFloat, ConstBool)
_LEAVES = (Var, *_CONSTANTS)


class Retype(Rewrite):
    """A rewrite that redefines the variables of ``new_types`` with those types (uses follow)."""

    def __init__(self, new_types: dict[Var, Any]) -> None:
        self.new_types = new_types

    def expr(self, value: Any) -> Any:
        # The common statement value, an op call on variables and constants, rebuilt directly: the
        # generic traversal (what it would build, as no expression handler exists) was about a
        # third of each memory-planning pass.
        if type(value) is Call and not self._exprs and type(value.op) is Op and _flat_call(value):
            args = value.args
            maps = self.remap.maps
            if len(maps) == 1:  # a straight-line kernel: one scope, the lookup inlined
                get = maps[0].get
                new = [get(a, a) if isinstance(a, Var) else a for a in args]
            else:
                new = [self.use(a) if isinstance(a, Var) else a for a in args]
            return value if same_list(new, args) else copy_parts(value, {"args": new})  # a list for a list
        return super().expr(value)

    def children(self, node: Stmt) -> Stmt:
        # The common statement, ``var = call``, rebuilt directly from its validated parts (no generic
        # walk over its fields); the variable is defined first, as the generic case does.
        if type(node) is not AssignStmt:
            return super().children(node)
        var, value = self.define(node.var), self.expr(node.value)
        if var is node.var and value is node.value:
            return node
        return replace_parts(node, var=var, value=value)

    def define(self, var: Var) -> Var:
        t = self.new_types.get(var)
        if t is None:
            return super().define(var)
        if isinstance(var, IterArg):
            new: Var = replace_parts(var, type=t, initValue=self.expr(var.initValue))
        else:
            new = replace_parts(var, type=t)
        self.remap.maps[-1][var] = new  # bind, inlined
        return new


def _flat_call(call: Call) -> bool:
    """Every argument a variable or a constant (or a tuple of constants), and no IR node in the
    keywords or attributes: the only children a rewrite may change are the argument variables."""
    for a in call.args:
        if not (isinstance(a, _LEAVES) or (type(a) is MakeTuple and all(
                isinstance(e, _CONSTANTS) for e in a.elements))):
            return False
    kwargs = call.kwargs  # mostly enums and numbers: no generic look into them then
    if kwargs and not all(isinstance(v, PLAIN) for v in kwargs.values()) and next(iter_value(kwargs), None) is not None:
        return False
    attrs = call.attrs  # most calls' attrs are empty: no mapping view to build
    return not attrs.__pydantic_fields_set__ or next(iter_value(attrs), None) is None
