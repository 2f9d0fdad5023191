"""Type annotations (docs/ir.md#printed-types): Scalar, Tensor (+ view, MemRef), Tile (+ MemRef, memory
space, view), Array, Tuple and the singleton types.

A TileView prints only the fields that differ from the implicit view of the tile's shape and
memory space (``pypto.ir.types.implicit_layout``); ``explicit_layout=True`` always prints the
resolved ``blayout``/``slayout``/``fractal``. Printed types are memoised per Type object.
"""

from __future__ import annotations

from typing import Any, Callable

from ..enums import CompactMode, PadValue
from ..expr import ConstInt, Expr, Var
from ..memref import MemRef
from ..type_base import (
    AsyncEventType,
    AsyncSessionType,
    CommCtxType,
    MemRefType,
    PrefetchAsyncContextType,
    PtrType,
    ScalarType,
    TupleType,
    Type,
    UnknownType,
    WindowBufferType,
)
from ..types import ArrayType, DistributedTensorType, TensorType, TensorView, TileType, TileView, dims_equal, implicit_layout
from .exprs import ExprPrinter
from .values import dq, dtype_text, enum_text

_SINGLETONS: dict[type, str] = {
    UnknownType: "{p}.UnknownType",
    PtrType: "{p}.Ptr",
    MemRefType: "{p}.MemRefType",
    WindowBufferType: "pld.WindowBufferType",
    CommCtxType: "pld.CommCtxType",
    PrefetchAsyncContextType: "{p}.PrefetchAsyncContext",
    AsyncEventType: "{p}.AsyncEvent",
    AsyncSessionType: "{p}.AsyncSession",
}


class TypePrinter(ExprPrinter):
    """Adds type printing to the expression printer."""

    def __init__(self, prefix: str, names: dict[Var, str] | None = None, explicit_layout: bool = False) -> None:
        super().__init__(prefix, names)
        self.explicit_layout = explicit_layout
        # Pointer vars defined in the current body: their MemRefs name them bare (outside signatures).
        self.body_ptrs: set[Var] = set()
        self.in_signature = False
        # Printed texts by type object (the type kept alive with its id), in bodies and in
        # signatures, each with whether the type is plain (reads no Vars).
        self._type_memo: dict[int, tuple[Type, str, bool]] = {}
        self._signature_memo: dict[int, tuple[Type, str, bool]] = {}
        # Texts of plain constant-shaped types by structure (see :meth:`type`); names never enter them.
        self._plain_memo: dict[tuple, str] = {}
        # The same texts by the identity of (class, dtype, memory space, dims), each with its dims
        # (kept alive so that their ids stay theirs): a parser shares its constant dims.
        self._plain_ids: dict[tuple, tuple[str, tuple[Expr, ...]]] = {}
        # The last type printed by its structure, or found by StmtPrinter.statements to read no Vars.
        self.plain_type: Type | None = None

    def reset_type_memo(self) -> None:
        """Forget memoised texts (names differ per function)."""
        self._type_memo = {}
        self._signature_memo = {}

    def type(self, t: Type) -> str:
        """The annotation text of ``t``."""
        # First by the type object: op rules and passes share types (an elementwise result is
        # typed by its operand's type object), so most statements meet a type printed before.
        memo = self._signature_memo if self.in_signature else self._type_memo
        key = id(t)
        hit = memo.get(key)
        if hit is not None:
            if hit[2]:
                self.plain_type = t
            return hit[1]
        cls = type(t)
        # A parser builds a fresh type object per annotation; a view-less, MemRef-less type of
        # constant dims prints the same whatever the names, so equal ones share one text.
        plain = None
        if cls is TileType:
            view, space = t.tile_view, t.memory_space_
        elif cls is TensorType:
            view, space = t.tensor_view, None
        else:
            view = cls  # not None: no plain text
        if view is None and t.memref is None and not self.explicit_layout:
            # First by the identity of the dims (the parser shares its constants): an entry
            # keeps its dims alive, and was made only for dims that are all ConstInt.
            shape = t.shape
            ids = (cls, id(t.dtype), id(space), *map(id, shape))
            hit = self._plain_ids.get(ids)
            if hit is not None:
                self.plain_type = t
                memo[key] = (t, hit[0], True)
                return hit[0]
            key_parts = [cls, id(t.dtype), id(space)]
            for d in shape:
                if type(d) is not ConstInt:
                    break
                key_parts.append(d.value)
            else:
                plain = tuple(key_parts)
                self.plain_type = t
                text = self._plain_memo.get(plain)
                if text is not None:
                    self._plain_ids[ids] = (text, tuple(shape))
                    memo[key] = (t, text, True)
                    return text
        fn = _TYPE_FNS.get(cls)
        if fn is None:
            fn = _resolve_type(cls)
        text = fn(self, t)
        memo[key] = (t, text, plain is not None)
        if plain is not None:
            self._plain_memo[plain] = text
            self._plain_ids[ids] = (text, tuple(shape))
        return text

    def dims_text(self, dims: list[Expr]) -> str:
        return "[" + ", ".join([self.dim(d) for d in dims]) + "]"

    def scalar_type(self, t: ScalarType) -> str:
        return f"{self.p}.Scalar[{dtype_text(self.p, t.dtype)}]"

    def tensor_type(self, t: TensorType) -> str:
        head = "pld.DistributedTensor" if isinstance(t, DistributedTensorType) else f"{self.p}.Tensor"
        parts = [self.dims_text(t.shape), dtype_text(self.p, t.dtype)]
        if t.tensor_view is not None:
            parts.append(self.tensor_view(t.tensor_view, t.shape))
        if t.memref is not None:
            parts.append(self.memref(t.memref))
        return f"{head}[{', '.join(parts)}]"

    def tensor_view(self, view: TensorView, shape: list[Expr]) -> str:
        """``pl.TensorView(valid_shape=[...], stride=[...], layout=..., pad=...)``."""
        parts = []
        if view.valid_shape and not dims_equal(view.valid_shape, shape):
            parts.append(f"valid_shape={self.dims_text(view.valid_shape)}")
        parts.append(f"stride={self.dims_text(view.stride)}")
        parts.append(f"layout={enum_text(self.p, view.layout)}")
        if view.pad != PadValue.null:
            parts.append(f"pad={enum_text(self.p, view.pad)}")
        return f"{self.p}.TensorView({', '.join(parts)})"

    def tile_type(self, t: TileType) -> str:
        parts = [self.dims_text(t.shape), dtype_text(self.p, t.dtype)]
        if t.memref is not None:
            parts.append(self.memref(t.memref))
        if t.memory_space is not None:
            parts.append(enum_text(self.p, t.memory_space))
        if t.tile_view is not None or self.explicit_layout:
            parts.append(self.tile_view(t.tile_view, t))
        return f"{self.p}.Tile[{', '.join(parts)}]"

    def tile_view(self, view: TileView | None, t: TileType) -> str:
        """The view fields that differ from the implicit view, in declaration order."""
        p = self.p
        blayout, slayout, fractal = implicit_layout(t.shape, t.memory_space)
        parts = []
        if view is not None:
            if view.valid_shape and not dims_equal(view.valid_shape, t.shape):
                parts.append(f"valid_shape={self.dims_text(view.valid_shape)}")
            if view.stride:
                parts.append(f"stride={self.dims_text(view.stride)}")
            if view.start_offset is not None:
                parts.append(f"start_offset={self.dim(view.start_offset)}")
        explicit = self.explicit_layout
        vb, vs, vf = (view.blayout, view.slayout, view.fractal) if view is not None else (blayout, slayout, fractal)
        if explicit or vb != blayout:
            parts.append(f"blayout={enum_text(p, vb)}")
        if explicit or vs != slayout:
            parts.append(f"slayout={enum_text(p, vs)}")
        if explicit or vf != fractal:
            parts.append(f"fractal={vf}")
        if view is not None:
            if view.pad != PadValue.null:
                parts.append(f"pad={enum_text(p, view.pad)}")
            if view.compact != CompactMode.null:
                parts.append(f"compact={enum_text(p, view.compact)}")
        return f"{p}.TileView({', '.join(parts)})"

    def memref(self, m: MemRef) -> str:
        """``pl.MemRef("name")`` (pinned, + slots/slot) or ``pl.MemRef(<base>, <offset>, <size>)``,
        e.g. ``pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 65536)``."""
        p = self.p
        if m.is_pinned_:
            text = f"{p}.MemRef({dq(m.name_hint)}"
            if m.slot_count_ > 1:
                text += f", slots={m.slot_count_}"
            text += ")"
            if m.slot_index_ is not None:
                text += f"[{m.slot_index_}]"
            return text
        base = m.base_
        if not self.in_signature and base in self.body_ptrs:
            base_text = self.var(base)
        else:
            base_text = dq(base.name_hint)
            if not self.in_signature:
                self.missed = True  # the base may be a body def not met yet (see ProgramPrinter.optimistic_lines)
        # The offset is a typed expression (INT64 constants print as ``pl.const(0, pl.INT64)``).
        return f"{p}.MemRef({base_text}, {self.expr(m.byte_offset_)}, {m.size_})"

    def array_type(self, t: ArrayType) -> str:
        return f"{self.p}.Array[{t.extent.value}, {dtype_text(self.p, t.dtype)}]"

    def tuple_type(self, t: TupleType) -> str:
        if not t.types:
            return f"{self.p}.Tuple[()]"
        return f"{self.p}.Tuple[{', '.join([self.type(x) for x in t.types])}]"

    def singleton_type(self, t: Type) -> str:
        for cls in type(t).__mro__:
            form = _SINGLETONS.get(cls)
            if form is not None:
                return form.format(p=self.p)
        return self.unsupported_type(t)

    def unsupported_type(self, t: Any) -> str:
        return "<unsupported IRNode type>"


_TYPE_FNS: dict[type, Callable[[TypePrinter, Any], str]] = {
    ScalarType: TypePrinter.scalar_type,
    TensorType: TypePrinter.tensor_type,
    DistributedTensorType: TypePrinter.tensor_type,
    TileType: TypePrinter.tile_type,
    ArrayType: TypePrinter.array_type,
    TupleType: TypePrinter.tuple_type,
}
_TYPE_FNS.update({cls: TypePrinter.singleton_type for cls in _SINGLETONS})


def _resolve_type(cls: type) -> Callable[[TypePrinter, Any], str]:
    for base in cls.__mro__[1:]:
        fn = _TYPE_FNS.get(base)
        if fn is not None:
            _TYPE_FNS[cls] = fn
            return fn
    _TYPE_FNS[cls] = TypePrinter.unsupported_type
    return TypePrinter.unsupported_type
