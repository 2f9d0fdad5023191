"""MemRef: a variable naming a byte range of an allocation (base ``Ptr`` var, offset, size)."""

from __future__ import annotations

from typing import Any

from .datatype import DataType
from .enums import MemorySpace
from .errors import IRTypeError, IRValueError
from .expr import ConstInt, Expr, Var
from .node import Bool, Int
from .span import Span
from .type_base import MemRefType, PtrType

_SPACE_PREFIX = {
    "mem_ddr_": MemorySpace.DDR,
    "mem_vec_": MemorySpace.Vec,
    "mem_mat_": MemorySpace.Mat,
    "mem_left_": MemorySpace.Left,
    "mem_right_": MemorySpace.Right,
    "mem_acc_": MemorySpace.Acc,
    "mem_bias_": MemorySpace.Bias,
    "mem_leftscale_": MemorySpace.LeftScale,
    "mem_rightscale_": MemorySpace.RightScale,
}


def memory_space_from_name(name: str) -> MemorySpace | None:
    """The memory space encoded in a base name such as ``mem_vec_0`` (None if it encodes none)."""
    for prefix in sorted(_SPACE_PREFIX, key=len, reverse=True):
        if name.startswith(prefix):
            return _SPACE_PREFIX[prefix]
    return None


def _offset_expr(v: Any, span: Span) -> Expr:
    if isinstance(v, bool):
        raise IRTypeError("MemRef: byte_offset must be an int or Expr, got bool")
    if isinstance(v, int):
        return ConstInt(v, DataType.INT64, span)
    if isinstance(v, Expr):
        return v
    raise IRTypeError(f"MemRef: byte_offset must be an int or Expr, got {type(v).__name__}")


class MemRef(Var):
    """A buffer reference. Forms:

    * ``MemRef(base: Var, byte_offset, size, span=..., is_pinned=False, slots=1, slot=None)``
    * ``MemRef(base_name: str, byte_offset: int, size: int, span=...)`` (fresh base Ptr var)
    * ``MemRef(span=..., slots=1)`` / ``MemRef(name: str, span=..., slots=1)``: an author-declared
      (pinned) allocation whose size and address are planned later
    * legacy ``MemRef(memory_space, addr, size, id)`` and ``MemRef(addr, size, id)``
    """

    base_: Var
    byte_offset_: Expr
    size_: Int
    is_pinned_: Bool = False
    slot_count_: Int = 1
    slot_index_: Int | None = None
    _derived = ("type", "unique_id")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if "base_" in kwargs:  # field form, used by replace() and deserialisation
            kwargs.setdefault("name_hint", kwargs["base_"].name_hint)
            kwargs["type"] = MemRefType.get()
            super().__init__(**kwargs)
            return
        span = kwargs.pop("span", None)
        if len(args) > 4 and isinstance(args[0], Var) and isinstance(args[3], Span):
            # MemRef(base, byte_offset, size, span, is_pinned, slots, slot): the trailing ones by position
            for name, value in zip(("is_pinned", "slots", "slot"), args[4:]):
                if name in kwargs:
                    raise IRTypeError(f"MemRef() got multiple values for argument '{name}'")
                kwargs[name] = value
            args = args[:4]
        if args and isinstance(args[-1], Span):
            span, args = args[-1], args[:-1]
        span = span or Span.unknown()
        is_pinned = kwargs.pop("is_pinned", False)
        slots = kwargs.pop("slots", 1)
        slot = kwargs.pop("slot", None)
        if kwargs:
            raise IRTypeError(f"MemRef(): unexpected keyword arguments {sorted(kwargs)}")
        if not isinstance(slots, int) or isinstance(slots, bool) or slots < 1:
            raise IRValueError(f"MemRef: slots must be an int >= 1, got {slots!r}")
        if len(args) == 0 or (len(args) == 1 and isinstance(args[0], str)):
            name = args[0] if args else ""
            base, offset, size, is_pinned = Var(name, PtrType.get(), span), ConstInt(0, DataType.INT64, span), 0, True
        elif len(args) == 4 and isinstance(args[0], MemorySpace):
            space, addr, size, ident = args
            base = Var(f"mem_{space.name.lower()}_{ident}", PtrType.get(), span)
            offset = _offset_expr(addr, span)
        elif len(args) == 3 and isinstance(args[0], Var):
            base, offset, size = args[0], _offset_expr(args[1], span), args[2]
        elif len(args) == 3 and isinstance(args[0], str):
            base, offset, size = Var(args[0], PtrType.get(), span), _offset_expr(args[1], span), args[2]
        elif len(args) == 3:
            addr, size, ident = args
            base = Var(f"mem_{ident}", PtrType.get(), span)
            offset = _offset_expr(addr, span)
        else:
            raise IRTypeError(f"MemRef(): unsupported argument list {args!r}")
        if not isinstance(base.type, PtrType):
            raise IRTypeError(f"MemRef: the base must be a Var of type pl.Ptr, got {base.type}")
        super().__init__(
            name_hint=base.name_hint,
            type=MemRefType.get(),
            span=span,
            base_=base,
            byte_offset_=offset,
            size_=size,
            is_pinned_=is_pinned,
            slot_count_=slots,
            slot_index_=slot,
        )

    @property
    def base(self) -> Var:
        return self.base_

    @property
    def byte_offset(self) -> Expr:
        return self.byte_offset_

    @property
    def size(self) -> int:
        return self.size_

    @property
    def is_pinned(self) -> bool:
        return self.is_pinned_

    @property
    def slot_count(self) -> int:
        return self.slot_count_

    @property
    def slot_index(self) -> int | None:
        return self.slot_index_

    def __getitem__(self, k: int) -> MemRef:
        """Slot ``k`` of a multi-slot declaration."""
        if not self.is_pinned_:
            raise IRValueError("MemRef slot selection needs an author-declared MemRef")
        if not 0 <= k < self.slot_count_:
            raise IRValueError(f"MemRef slot {k} out of range for {self.slot_count_} slots")
        return MemRef(
            name_hint=self.name_hint,
            base_=self.base_,
            byte_offset_=self.byte_offset_,
            size_=self.size_,
            is_pinned_=True,
            slot_count_=self.slot_count_,
            slot_index_=k,
            span=self.span,
        )

    @staticmethod
    def same_allocation(a: MemRef, b: MemRef) -> bool:
        """Both refer to the same base allocation."""
        return a.base_ is b.base_

    @staticmethod
    def may_alias(a: MemRef, b: MemRef) -> bool:
        """Same base and overlapping byte ranges (non-constant offsets are assumed to overlap)."""
        if a.base_ is not b.base_:
            return False
        ao, bo = a.byte_offset_, b.byte_offset_
        if not (isinstance(ao, ConstInt) and isinstance(bo, ConstInt)):
            return True
        return ao.value < bo.value + b.size_ and bo.value < ao.value + a.size_

