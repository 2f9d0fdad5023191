"""Helpers shared by the memory-planning passes (InitMemRef, MemoryReuse, AllocateMemoryAddr):
which functions are planned, tile buffer sizes, and a rewrite that gives variables new types."""

from __future__ import annotations

import math
from collections.abc import Callable, Collection
from typing import Any, Generic, TypeVar

from pypto.analysis import expr_vars
from pypto.analysis.index import PLAIN
from pypto.backend import Platform
from pypto.ir.datatype import DataType
from pypto.ir.enums import FunctionType, MemorySpace
from pypto.ir.errors import IRTypeError, IRValueError
from pypto.ir.expr import Call, ConstBool, ConstFloat, ConstInt, Expr, IterArg, MakeTuple, Op, Var
from pypto.ir.memref import MemRef
from pypto.ir.parts import copy_parts, replace_parts
from pypto.ir.span import Span
from pypto.ir.stmt import AssignStmt, SeqStmts, Stmt
from pypto.ir.transforms import flatten_to_stmts
from pypto.ir.traversal import iter_value
from pypto.ir.type_base import PtrType
from pypto.ir.types import TileType

from .rewrite import Result, Rewrite
from .util import block_of, same_list

N = TypeVar("N")

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


class MemRefMemo:
    """:func:`with_memref` for many MemRefs given to a few type objects (a kernel's tiles share a
    handful): the first request per type object builds the new type, the others copy that one with
    their MemRef (a MemRef for a MemRef: nothing to validate or derive again)."""

    def __init__(self) -> None:
        self._first: dict[int, tuple[TileType, TileType]] = {}  # id(old type) -> (old type, its first copy)

    def get(self, t: TileType, memref: MemRef) -> TileType:
        """``with_memref(t, memref)``."""
        found = self._first.get(id(t))
        if found is None:
            new = with_memref(t, memref)
            self._first[id(t)] = (t, new)  # the old type kept alive with its id
            return new
        return copy_parts(found[1], {"memref": memref})


class Prototype(Generic[N]):
    """A node of one kind the planning passes make many of (per kernel or per tile): a template is
    built once per process by the validated constructor, on first use, and each node is a copy of
    it with its own parts (pypto.ir.parts.copy_parts), holding what the constructor makes from those
    checked parts (tests/passes/test_memory_planning.py). The constructor of a MemRef costs about
    seven copies of it."""

    def __init__(self, build: Callable[[], N]) -> None:
        self._build = build
        self._template: N | None = None

    def make(self, changes: dict[str, Any]) -> N:
        """A copy of the template with ``changes``, which name every field the constructor fills from
        its arguments, each with a value of the class it replaces."""
        template = self._template
        if template is None:
            template = self._template = self._build()
        return copy_parts(template, changes)


_NO_SPAN = Span.unknown()
_MEMREF: Prototype[MemRef] = Prototype(
    lambda: MemRef(Var("mem", PtrType.get(), _NO_SPAN), ConstInt(0, DataType.INT64, _NO_SPAN), 0, _NO_SPAN))


def new_memref(base: Var, byte_offset: Expr, size: int, span: Span) -> MemRef:
    """``MemRef(base, byte_offset, size, span)``: a MemRef of ``size`` bytes at ``byte_offset`` in the
    allocation ``base`` (validating each was about a tenth of MemoryReuse and AllocateMemoryAddr on
    the examples)."""
    return _MEMREF.make({"name_hint": base.name_hint, "base_": base, "byte_offset_": byte_offset, "size_": size,
                         "span": span})


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


def block_like(old: Stmt, stmts: list[Stmt]) -> Stmt:
    """``block_of(stmts, old.span)``: when ``old`` is a block and ``stmts`` are several statements, none
    a block, a copy of ``old`` holding them (a block derives nothing from its statements: no validation,
    a malformed one is still refused by the next boundary check)."""
    if type(old) is SeqStmts and len(stmts) > 1 and SeqStmts not in map(type, stmts):
        return copy_parts(old, {"stmts": stmts})
    return block_of(stmts, old.span)


_CONSTANTS = (ConstInt, ConstFloat, ConstBool)
_LEAVES = (Var, *_CONSTANTS)
_CONSTANT_CLASSES = frozenset(_CONSTANTS)
_LEAF_CLASSES = frozenset(_LEAVES)


class Retype(Rewrite):
    """A rewrite that redefines the variables of ``new_types`` with those types (uses follow).

    Assignments, most statements of a kernel, go to :meth:`assign` straight from :meth:`stmt` (a
    subclass special-cases some by overriding it, not with an ``@on(AssignStmt)`` handler); the
    other statements take the generic path.
    """

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # A handler that would match an assignment is never asked (stmt calls assign).
        if any(issubclass(AssignStmt, sig[0]) for sig in cls._dispatcher.funcs):
            raise TypeError(f"{cls.__name__}: a Retype special-cases assignments by overriding assign, not with @on")
        if cls.types:  # assign keeps a variable without a new type as it is, not retyped by the walk
            raise TypeError(f"{cls.__name__}: a Retype gives new types through new_types, not with types = True")

    def __init__(self, new_types: dict[Var, Any]) -> None:
        self.new_types = new_types

    @staticmethod
    def reblock(old: Stmt, stmts: list[Stmt]) -> Stmt:
        return old if same_list(stmts, flatten_to_stmts(old)) else block_like(old, stmts)

    def stmt(self, node: Stmt) -> Result:
        # Assignments skip the per-statement dispatch (handler lookup, generic children): that was
        # about half of each memory-planning pass's rewrite.
        if type(node) is not AssignStmt:
            return super().stmt(node)
        try:
            return self.assign(node)
        except (IRTypeError, IRValueError) as err:  # as Rewrite.stmt does for a handler
            if err.span is None or not err.span.is_valid():
                err.span = node.span
            raise

    def assign(self, node: AssignStmt) -> Result:
        """``var = value`` rebuilt directly from its validated parts: for the common statement, a
        tile variable defined by an op call on variables and constants, :meth:`define` and
        :meth:`expr` inlined (this is most of each memory-planning pass's rewrite). The variable is
        defined first, as the generic case does."""
        var, value = node.var, node.value
        maps = self.remap.maps
        t = self.new_types.get(var)
        if type(var) is not Var:
            new_var = self.define(var)
        elif t is None:
            new_var = var  # what define gives a plain variable keeping its type
        elif type(t) is type(var.type):  # replace_parts' test: a tile type for a tile type
            new_var = maps[-1][var] = copy_parts(var, {"type": t})
        else:
            new_var = self.define(var)
        if len(maps) == 1 and type(value) is Call and not self._exprs and type(value.op) is Op and _flat_call(value):
            remap = maps[0]  # a straight-line kernel: one scope
            args = value.args
            if any(map(remap.__contains__, args)):  # only variables are keys
                value = copy_parts(value, {"args": [remap.get(a, a) for a in args]})
        else:
            value = self.expr(value)
        if new_var is var and value is node.value:
            return node
        return copy_parts(node, {"var": new_var, "value": value})  # a variable for one, an expression for one

    def expr(self, value: Any) -> Any:
        # The common statement value, an op call on variables and constants, rebuilt directly: the
        # generic traversal (what it would build, as no expression handler exists) was about a
        # third of each memory-planning pass.
        if type(value) is Call and not self._exprs and type(value.op) is Op and _flat_call(value):
            args = value.args
            maps = self.remap.maps
            if len(maps) == 1:  # a straight-line kernel: one scope, the lookups inlined
                remap = maps[0]
                if not any(map(remap.__contains__, args)):  # no argument renamed (only variables are keys)
                    return value
                new = [remap.get(a, a) for a in args]
            else:
                new = [self.use(a) if isinstance(a, Var) else a for a in args]
                if same_list(new, args):
                    return value
            return copy_parts(value, {"args": new})  # a list for a list
        if type(value) is Call and not self._exprs and type(value.op) is Op and _plain_extras(value):
            new_call = self._computed_args(value)
            if new_call is not None:
                return new_call
        return super().expr(value)

    def _computed_args(self, call: Call) -> Call | None:
        """An op call some of whose arguments are computed (offsets from a loop index): its argument
        variables renamed, as the generic walk would, when no other argument holds a renamed variable
        (the walk would keep those arguments as they are), else None. The walk was about a sixth of
        each memory-planning pass on the examples."""
        use = self.use
        new = []
        for a in call.args:
            if isinstance(a, Var):
                new.append(use(a))
                continue
            if not isinstance(a, _CONSTANTS) and any(use(v) is not v for v in expr_vars(a)):
                return None
            new.append(a)
        return call if same_list(new, call.args) else copy_parts(call, {"args": new})  # a list for a list

    def define(self, var: Var) -> Var:
        t = self.new_types.get(var)
        if t is None:
            return super().define(var)
        if isinstance(var, IterArg):
            new: Var = replace_parts(var, type=t, initValue=self.expr(var.initValue))
        elif type(t) is type(var.type):  # replace_parts' test, inlined for the common tile variable
            new = copy_parts(var, {"type": t})
        else:
            new = replace_parts(var, type=t)
        self.remap.maps[-1][var] = new  # bind, inlined
        return new


def _flat_call(call: Call) -> bool:
    """Every argument a variable or a constant (or a tuple of constants), and no IR node in the
    keywords or attributes: the only children a rewrite may change are the argument variables."""
    if _LEAF_CLASSES.issuperset(map(type, call.args)):  # most calls: one set test of the exact classes
        return _plain_extras(call)
    for a in call.args:
        kind = type(a)
        # The exact classes first (set tests): isinstance against the IR classes is slow.
        if kind in _LEAF_CLASSES or (kind is MakeTuple and _CONSTANT_CLASSES.issuperset(map(type, a.elements))):
            continue
        if not (isinstance(a, _LEAVES) or (kind is MakeTuple and all(
                isinstance(e, _CONSTANTS) for e in a.elements))):
            return False
    return _plain_extras(call)


# The exact classes of keyword values found plain (isinstance of PLAIN): a call's keywords are then
# checked by one set test instead of an isinstance per value (enum classes are many, so learnt here).
_PLAIN_CLASSES: set[type] = set()


def plain_values(values: Collection[Any]) -> bool:
    """Every value of ``values`` is an instance of :data:`pypto.analysis.index.PLAIN`."""
    if _PLAIN_CLASSES.issuperset(map(type, values)):
        return True
    if not all(isinstance(v, PLAIN) for v in values):
        return False
    _PLAIN_CLASSES.update(map(type, values))
    return True


def _plain_extras(call: Call) -> bool:
    """No IR node in the keywords or attributes of ``call``."""
    kwargs = call.kwargs  # mostly enums and numbers: no generic look into them then
    if kwargs and not plain_values(kwargs.values()) and next(iter_value(kwargs), None) is not None:
        return False
    attrs = call.attrs  # most calls' attrs are empty: no mapping view to build
    return not attrs.__pydantic_fields_set__ or next(iter_value(attrs), None) is None
