"""Shaped types: tensors in GM, tiles in on-chip buffers, arrays; and their views."""

from __future__ import annotations

import itertools
from operator import attrgetter
from collections.abc import Sequence
from typing import Annotated, Any

from pydantic import BeforeValidator, Field

from . import hooks
from .datatype import DataType
from .enums import CompactMode, MemorySpace, PadValue, TensorLayout, TileLayout
from .errors import IRTypeError, IRValueError
from .expr import ConstInt, Expr
from .memref import MemRef, memory_space_from_name
from .node import DType, Int, ModelBase, replace
from .type_base import Type


# ``map(isinstance, items, _EXPR)``: the test of every item in C.
_EXPR = itertools.repeat(Expr)


def _expr_list(v: Any) -> Any:
    """Shape-like lists: ints become ``ConstInt(v, INDEX)``, symbolic dimensions their Var; tuples become lists."""
    if type(v) is list and all(map(isinstance, v, _EXPR)):
        return v  # already expressions (most lists: one type derived from another)
    if isinstance(v, (list, tuple)):
        return [_opt_expr(x) for x in v]
    return v


def _opt_expr(v: Any) -> Any:
    if isinstance(v, int) and not isinstance(v, bool):
        return ConstInt(v, DataType.INDEX)
    # A symbolic dimension of the DSL (``pl.dynamic("M")``, evaluated in an annotation) stands for its Var.
    to_expr = getattr(type(v), "__ir_expr__", None)
    return to_expr(v) if to_expr is not None else v


ExprList = Annotated[list[Expr], BeforeValidator(_expr_list)]
OptExpr = Annotated[Expr | None, BeforeValidator(_opt_expr)]


def _const_value(e: Expr) -> int | None:
    return e.value if isinstance(e, ConstInt) else None


def dims_equal(a: list[Expr], b: list[Expr]) -> bool:
    """Element-wise equality of two dim lists: same object or equal constants."""
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if x is not y and not (isinstance(x, ConstInt) and isinstance(y, ConstInt) and x.value == y.value):
            return False
    return True


class _StructuralValue(ModelBase):
    """Views compare structurally, like types."""

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return hooks.structural_equal(self, other)

    def __hash__(self) -> int:
        return hooks.structural_hash(self)


class TensorView(_StructuralValue):
    """Layout of a GM tensor: strides, layout tag, valid region and pad value."""

    stride: ExprList = Field(default_factory=list)
    layout: TensorLayout = TensorLayout.ND
    valid_shape: ExprList = Field(default_factory=list)
    pad: PadValue = PadValue.null
    _positional = ("stride", "layout", "valid_shape", "pad")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        given = set(kwargs) | set(self._positional[: len(args)])
        if given and "layout" not in given and given & {"stride", "valid_shape", "pad"}:
            raise IRValueError("TensorView: stride/valid_shape/pad require an explicit layout")
        super().__init__(*args, **kwargs)


class TileView(_StructuralValue):
    """Layout of a tile buffer. ``fractal`` is in bytes; an omitted view means the implicit one."""

    valid_shape: ExprList = Field(default_factory=list)
    stride: ExprList = Field(default_factory=list)
    start_offset: OptExpr = None
    blayout: TileLayout = TileLayout.row_major
    slayout: TileLayout = TileLayout.none_box
    fractal: Int = 512
    pad: PadValue = PadValue.null
    compact: CompactMode = CompactMode.null
    _positional = ("valid_shape", "stride", "start_offset", "blayout", "slayout", "fractal", "pad", "compact")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        for key in ("valid_shape", "stride"):
            if kwargs.get(key, []) is None:
                kwargs[key] = []
        super().__init__(*args, **kwargs)


# The spaces whose implicit ``(blayout, slayout, fractal)`` does not depend on the shape.
_FIXED_LAYOUTS: dict[MemorySpace, tuple[TileLayout, TileLayout, int]] = {
    MemorySpace.Mat: (TileLayout.col_major, TileLayout.row_major, 512),
    MemorySpace.Left: (TileLayout.col_major, TileLayout.row_major, 512),
    MemorySpace.Acc: (TileLayout.col_major, TileLayout.row_major, 1024),
    MemorySpace.LeftScale: (TileLayout.row_major, TileLayout.row_major, 32),
    MemorySpace.RightScale: (TileLayout.col_major, TileLayout.col_major, 32),
}


# The members implicit_layout returns, read once: on Python 3.11 ``TileLayout.row_major`` goes through
# ``EnumType.__getattr__``'s slow attribute path (~10x a plain class attribute), and the checks ask
# this of every tile of every changed function.
_ROW_MAJOR, _COL_MAJOR, _NONE_BOX = TileLayout.row_major, TileLayout.col_major, TileLayout.none_box
_RIGHT = MemorySpace.Right


def implicit_layout(shape: list[Expr], memory_space: MemorySpace | None) -> tuple[TileLayout, TileLayout, int]:
    """``(blayout, slayout, fractal)`` of the implicit view of a tile of this shape and space."""
    fixed = _FIXED_LAYOUTS.get(memory_space)  # type: ignore[arg-type]
    if fixed is not None:
        return fixed
    blayout = _ROW_MAJOR
    if len(shape) == 2:  # a static column vector [n, 1], n > 1, is col-major
        rows, cols = shape
        if isinstance(cols, ConstInt) and cols.value == 1 and isinstance(rows, ConstInt) and rows.value > 1:
            blayout = _COL_MAJOR
    slayout = _COL_MAJOR if memory_space is _RIGHT else _NONE_BOX
    return blayout, slayout, 512


def implicit_tile_view(shape: list[Expr], memory_space: MemorySpace | None) -> TileView:
    """The implicit view of a tile: valid region = shape, layouts from ``implicit_layout``."""
    blayout, slayout, fractal = implicit_layout(shape, memory_space)
    return TileView(valid_shape=list(shape), blayout=blayout, slayout=slayout, fractal=fractal)


# An implicit view's other fields: TileView's defaults.
_IMPLICIT = TileView()


class ShapedType(Type):
    """Base of tensor and tile types: dtype, shape and an optional MemRef."""

    shape: ExprList
    dtype: DType
    memref: MemRef | None = None

    @property
    def memory_space(self) -> MemorySpace | None:
        """The memory space of the buffer (concrete types override)."""
        return None

    def shares_memref_with(self, other: ShapedType) -> bool:
        """Both types carry MemRefs on the same allocation."""
        return self.memref is not None and other.memref is not None and MemRef.same_allocation(self.memref, other.memref)


def _check_fp4(shape: list[Expr], dtype: DataType, what: str) -> None:
    if dtype == DataType.FP4 and shape:
        last = _const_value(shape[-1])
        if last is not None and (last <= 0 or last % 2):
            raise IRValueError(f"{what}: FP4 needs an even, positive last dimension, got {last}")


class TensorType(ShapedType):
    """A tensor in GM: ``pl.Tensor[[64, 128], pl.FP32]``."""

    tensor_view: TensorView | None = None
    _positional = ("shape", "dtype", "memref", "tensor_view")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.dtype == DataType.FP4:
            _check_fp4(self.shape, self.dtype, type(self).__name__)
        view = self.tensor_view
        if view is not None:
            valid = [] if dims_equal(view.valid_shape, self.shape) else view.valid_shape
            if valid is not view.valid_shape:
                view = TensorView(stride=view.stride, layout=view.layout, valid_shape=valid, pad=view.pad)
            if not view.stride and view.layout == TensorLayout.ND and not view.valid_shape and view.pad == PadValue.null:
                view = None
            object.__setattr__(self, "tensor_view", view)

    @property
    def memory_space(self) -> MemorySpace:
        return MemorySpace.DDR


class DistributedTensorType(TensorType):
    """A tensor with a distributed window buffer (distributed dialect only)."""

    window_buffer: Expr | None = None
    _positional = ("shape", "dtype", "memref", "tensor_view", "window_buffer")


class TileType(ShapedType):
    """A tile in an on-chip buffer: ``pl.Tile[[16, 16], pl.FP16, pl.Mem.Vec]``.

    ``memory_space`` may be None (not yet inferred). An omitted ``tile_view`` means the implicit view
    of (shape, memory_space); a view equal to it is stored as None.
    """

    tile_view: TileView | None = None
    memory_space_: MemorySpace | None = None
    _positional = ("shape", "dtype", "memref", "tile_view", "memory_space")
    # The effective view, made on first use (a type never changes). A slot, not a field or a private
    # attribute: equality, hashing, serialization, copies and pickles do not see it, and the class
    # keeps the plain attribute lookup (plain_getattr.py). Not a table keyed by dims: that kept the
    # dims of programs long gone alive.
    __slots__ = ("_effective_view",)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        space = kwargs.pop("memory_space", None)
        if len(args) > 4:
            space, args = args[4], args[:4]
        if "memory_space_" in kwargs:
            space = kwargs.pop("memory_space_")
        memref = kwargs.get("memref", args[2] if len(args) > 2 else None)
        if memref is not None and space is None:
            if not isinstance(memref, MemRef):
                raise IRTypeError(f"TileType: field 'memref': expected MemRef, got {type(memref).__name__}")
            space = memory_space_from_name(memref.base_.name_hint)
            if space is None:
                raise IRValueError("TileType: a MemRef requires an explicit memory space")
        kwargs["memory_space_"] = space
        super().__init__(*args, **kwargs)
        if self.dtype == DataType.FP4:
            _check_fp4(self.shape, self.dtype, "TileType")
        view = self.tile_view
        if view is not None:
            if view.valid_shape and dims_equal(view.valid_shape, self.shape):
                view = replace(view, valid_shape=[])
            if (
                not view.valid_shape
                and not view.stride
                and view.start_offset is None
                and view.pad == PadValue.null
                and view.compact == CompactMode.null
                and (view.blayout, view.slayout, view.fractal) == implicit_layout(self.shape, space)
            ):
                view = None
            object.__setattr__(self, "tile_view", view)

    # A C getter (no Python frame): passes read a tile's memory space everywhere.
    memory_space = property(attrgetter("memory_space_"), doc="The memory space (None until inferred).")

    def get_effective_tile_view(self) -> TileView:
        """The stored view with its valid region filled in, or the implicit view (memoised: callers
        must not change it)."""
        try:
            return self._effective_view
        except AttributeError:  # first use
            pass
        view = self.tile_view
        if view is None:
            view = implicit_tile_view(self.shape, self.memory_space_)
        elif not view.valid_shape:
            view = replace(view, valid_shape=list(self.shape))
        object.__setattr__(self, "_effective_view", view)
        return view


def effective_layout(tile: TileType) -> tuple[TileLayout, TileLayout, int]:
    """``(blayout, slayout, fractal)`` of ``tile``'s effective view, without building the view (the
    checks ask this of every tile of every changed function)."""
    view = tile.tile_view
    if view is None:
        return implicit_layout(tile.shape, tile.memory_space_)
    return view.blayout, view.slayout, view.fractal


def effective_valid_shape(tile: TileType) -> Sequence[Expr]:
    """``tile.get_effective_tile_view().valid_shape`` without building the view (the generators and
    analyses ask it of every tile of a compile's fresh final program): the stored view's valid shape,
    else the shape."""
    view = tile.tile_view
    return view.valid_shape if view is not None and view.valid_shape else tile.shape


def effective_view_layout(tile: TileType) -> tuple[TileLayout, TileLayout, int, PadValue, CompactMode]:
    """``(blayout, slayout, fractal, pad, compact)`` of ``tile.get_effective_tile_view()``, without
    building the view."""
    view = tile.tile_view
    if view is None:
        return (*implicit_layout(tile.shape, tile.memory_space_), _IMPLICIT.pad, _IMPLICIT.compact)
    return view.blayout, view.slayout, view.fractal, view.pad, view.compact


def buffer_dims(tile: TileType) -> list[Expr]:
    """The 2-D extents of the buffer a tile is laid out in: its shape, with the major axis widened to
    the view's stride when that says more (a column slice of a row-major tile keeps its source's row
    pitch: ``[16, 64]`` with ``stride=[128, 1]`` lives in a 16 x 128 buffer)."""
    dims = list(tile.shape)
    view = tile.tile_view
    if view is None or not view.stride or len(dims) != 2 or len(view.stride) != 2:
        return dims
    if view.blayout == TileLayout.row_major:
        return [dims[0], view.stride[0]]
    return [view.stride[1], dims[1]]


def element_strides(tile: TileType) -> list[Expr]:
    """The element strides of a 2-D plain (NoneBox) tile in its buffer: ``[cols, 1]`` row-major,
    ``[1, rows]`` col-major (the buffer's extents, so a pitched view steps its source's lines)."""
    rows, cols = buffer_dims(tile)
    one = ConstInt(1, DataType.INDEX)
    return [cols, one] if tile.get_effective_tile_view().blayout == TileLayout.row_major else [one, rows]


def pitched(src: TileType, window: TileType) -> TileType:
    """``window`` (the type of a 2-D slice of ``src``) as a zero-copy view of ``src``'s buffer: with
    ``src``'s pitch as its stride when its lines are narrower than the buffer's (a vector tile's
    rows, or columns when col-major; a single line needs none)."""
    view = window.get_effective_tile_view()
    if len(src.shape) != 2 or len(window.shape) != 2 or view.slayout != TileLayout.none_box:
        return window
    buf = buffer_dims(src)
    major = 1 if view.blayout == TileLayout.row_major else 0
    if _const_value(window.shape[1 - major]) == 1 or dims_equal([buf[major]], [window.shape[major]]):
        return window
    one = ConstInt(1, DataType.INDEX)
    stride = [buf[1], one] if major == 1 else [one, buf[0]]
    return TileType(window.shape, window.dtype, None, replace(view, stride=stride), window.memory_space)


def is_strided(tile: TileType) -> bool:
    """Whether the tile is a window whose rows (columns, when col-major) are further apart than its
    extent: a zero-copy view into a wider buffer."""
    return not dims_equal(buffer_dims(tile), list(tile.shape))


class ArrayType(Type):
    """An on-core 1-D array of integers, BOOL or TASK_ID: ``pl.Array[16, pl.INT32]``."""

    dtype: DType
    extent: ConstInt
    _positional = ("dtype", "extent")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if len(args) > 1:
            kwargs["extent"], args = args[1], args[:1]
        extent = kwargs.get("extent")
        if isinstance(extent, int) and not isinstance(extent, bool):
            kwargs["extent"] = ConstInt(extent, DataType.INDEX)
        super().__init__(*args, **kwargs)
        d = self.dtype
        if not (d.is_int() or d.is_bool() or d.is_task_id()):
            raise IRValueError(f"ArrayType: element dtype must be integer, BOOL or TASK_ID, got {d}")
        if self.extent.value <= 0:
            raise IRValueError(f"ArrayType: extent must be > 0, got {self.extent.value}")

    @property
    def shape(self) -> list[Expr]:
        return [self.extent]

    @property
    def memory_space(self) -> MemorySpace:
        return MemorySpace.ScalarLocal
