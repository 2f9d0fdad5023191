"""Tile creation, movement and element access (docs/ops.md#tile-ops).

Tiles live in on-chip buffers; ``tile.load``/``tile.store`` move data between GM tensors and tiles,
``tile.move`` between buffers. Result memory spaces follow docs/ops.md#memory-spaces.
"""

from __future__ import annotations

from ..datatype import DataType
from ..enums import MemorySpace, TileLayout
from ..op_registry import DEFERRED, INHERIT, CallInfo
from ..type_base import ScalarType, Type
from ..types import TensorType, TensorView, TileType, implicit_layout
from . import kwtypes as K
from .common import (
    check_window,
    clip_window,
    const_value,
    elements,
    format_dims,
    index,
    is_fully_valid,
    merged_2d,
    static_elements,
    tile_type,
    valid_shape,
)
from .decl import (
    KERNEL,
    Vec,
    RW,
    W,
    Acc,
    define,
    index as index_p,
    kw,
    mem,
    scalar,
    shape,
    tensor,
    tile,
)
from .normalize import const_of, to_tuple_or_single, value_of_kwarg_dtype, write_value
from .tensor_ops import (
    RANDOM_SEEDS,
    check_ci,
    check_fill_value,
    check_indices,
    check_random,
    check_write_value,
    index_scalar,
)
from .shape_rules import written_valid
from .tensor_view_ops import ATOMIC, alloc_rule, check_atomic

D = DataType
TARGET = kw("target_memory", K.EnumKw(MemorySpace), MemorySpace.Vec)


def static_shape(ci: CallInfo, name: str = "shape") -> list:
    """A static, positive shape list as INDEX constants."""
    return [index(v) for v in static_elements(ci, name)]


def _create(ci: CallInfo) -> Type:
    """``Tile[shape, dtype, target_memory]``; ``transpose``/``flat_layout`` pick a Mat tile's layout."""
    dims = static_shape(ci)
    space = ci.kw("target_memory")
    transpose, flat = ci.kw("transpose"), ci.kw("flat_layout")
    if (transpose is not None or flat is not None) and space != MemorySpace.Mat:
        ci.fail(f"transpose/flat_layout only apply to Mat tiles, got target_memory={space.name}")
    if transpose and len(dims) != 2:
        ci.fail(f"transpose requires a 2-D shape, got {format_dims(dims)}")
    if transpose:
        return tile_type(dims, ci.kw("dtype"), blayout=TileLayout.row_major, slayout=TileLayout.col_major,
                         space=space)
    if flat:
        return tile_type(dims, ci.kw("dtype"), blayout=TileLayout.row_major, slayout=TileLayout.none_box,
                         space=space)
    return tile_type(dims, ci.kw("dtype"), space=space)


define("tile.create", [shape("shape")], _create, placement=KERNEL, memory=mem(out=DEFERRED, by_target=True),
       kwargs=[kw("dtype", K.DTYPE), TARGET, kw("transpose", K.BOOL, None, always=False),
               kw("flat_layout", K.BOOL, None, always=False, keyword_only=True)])


def _full(ci: CallInfo) -> Type:
    """A Vec tile of a static shape filled with a constant."""
    dims = static_shape(ci)
    check_fill_value(ci, "value", ci.kw("dtype"))
    return tile_type(dims, ci.kw("dtype"))


define("tile.full", [shape("shape"), scalar("value", norm=value_of_kwarg_dtype("dtype"))], _full,
       placement=KERNEL, memory=mem(out=Vec), kwargs=[kw("dtype", K.DTYPE)],
       signature=("shape", "dtype", "value"))


def _ci(ci: CallInfo) -> Type:
    """A Vec index sequence along the last axis."""
    dims = static_shape(ci)
    return tile_type(dims, check_ci(ci, dims))


define("tile.ci", [scalar("start", norm=value_of_kwarg_dtype("dtype")), shape("shape")], _ci, placement=KERNEL,
       memory=mem((), out=Vec), kwargs=[kw("dtype", K.DTYPE, D.INT32), kw("descending", K.BOOL, False)])


def optional_valid(ci: CallInfo, dims: list) -> list | None:
    if ci["valid_shape"] is None:
        return None
    valid = elements(ci, "valid_shape")
    if len(valid) != len(dims):
        ci.fail(f"'valid_shape' must have {len(dims)} elements, got {len(valid)}")
    return valid


def _tri(ci: CallInfo) -> Type:
    """A 2-D triangular 0/1 mask around ``diagonal`` (upper or lower)."""
    dims = static_shape(ci)
    if len(dims) != 2:
        ci.fail(f"shape must be 2-D, got {format_dims(dims)}")
    if ci["diagonal"].type.dtype != D.INT32:
        ci.fail("argument 'diagonal' must be an INT32 scalar")
    return tile_type(dims, ci.kw("dtype"), optional_valid(ci, dims))


define("tile.tri", [scalar("diagonal", norm=const_of(D.INT32)), shape("shape"), shape("valid_shape", optional=True)],
       _tri, placement=KERNEL, memory=mem((), out=Vec),
       kwargs=[kw("dtype", K.DTYPE, D.INT32), kw("upper", K.BOOL, False)],
       signature=("diagonal", "shape", "valid_shape", "dtype", "upper"))


def _random(ci: CallInfo) -> Type:
    """Philox random numbers in a 2-D Vec tile."""
    dims = static_shape(ci)
    return tile_type(dims, check_random(ci, dims), optional_valid(ci, dims))


define("tile.random",
       [*(scalar(s, norm=const_of(D.INT32)) for s in RANDOM_SEEDS), shape("shape"),
        shape("valid_shape", optional=True)],
       _random, placement=KERNEL, memory=mem(out=Vec),
       kwargs=[kw("dtype", K.DTYPE, D.UINT32), kw("rounds", K.INT, 10)])


def _load(ci: CallInfo) -> Type:
    """``Tile[shapes, tensor.dtype, target_memory]`` (Vec or Mat); valid = requested ∩ source valid."""
    t = ci["tensor"].type
    offs, dims, req = elements(ci, "offsets"), elements(ci, "shapes"), elements(ci, "valid_shape")
    if not dims:
        ci.fail("'shapes' must not be empty")
    if not len(offs) == len(dims) == len(req) == len(t.shape):
        ci.fail(f"offsets, shapes and valid_shape must each have {len(t.shape)} elements (the tensor rank), "
                f"got {len(offs)}, {len(dims)} and {len(req)}")
    space = ci.kw("target_memory")
    if space not in (MemorySpace.Vec, MemorySpace.Mat):
        ci.fail(f"target_memory must be Vec or Mat, got {space.name}")
    valid = clip_window(ci, t, offs, dims, req, ci.kw("clamp"))
    if ci.kw("flatten"):
        return _flat_load(ci, tile_type(dims, t.dtype, valid, space=space))
    if space == MemorySpace.Mat and len(dims) == 2 and const_value(dims[0]) == 1:
        return tile_type(dims, t.dtype, valid, blayout=TileLayout.row_major, slayout=TileLayout.none_box,
                         space=space)
    return tile_type(dims, t.dtype, valid, space=space)


def _flat_load(ci: CallInfo, window: TileType) -> TileType:
    """``flatten=True``: the rank > 2 window as the 2-D tile of its merged rows (FlattenTileNdTo2D's loads)."""
    dims, valid = list(window.shape), valid_shape(window)
    if len(dims) < 3:
        ci.fail(f"flatten=True needs a window of rank > 2, got {format_dims(dims)}")
    if any(const_value(d) is None for d in dims[:-1]):
        ci.fail(f"flatten=True needs static leading axes, got {format_dims(dims)}")
    if any(const_value(v) != const_value(d) for v, d in zip(valid[1:-1], dims[1:-1])):
        ci.fail(f"flatten=True needs a valid region {format_dims(valid)} partial only along the first and the "
                f"last axis of the window {format_dims(dims)}")
    return merged_2d(window)


define("tile.load",
       [tensor("tensor"), shape("offsets"), shape("shapes"), shape("valid_shape", optional=True,
                                                                   default_from="shapes")],
       _load, placement=KERNEL, memory=mem(out=DEFERRED, by_target=True),
       kwargs=[TARGET, kw("clamp", K.BOOL, False, always=False),
               kw("flatten", K.BOOL, False, always=False, keyword_only=True)])


def _store(ci: CallInfo) -> Type:
    """The output tensor's type, its valid region joined with the window the store writes."""
    src, out = ci["tile"].type, ci["output_tensor"].type
    offs = elements(ci, "offsets")
    if len(offs) != len(out.shape):
        ci.fail(f"'offsets' must have {len(out.shape)} elements (the tensor rank), got {len(offs)}")
    if src.dtype != out.dtype:
        ci.fail(f"tile dtype {src.dtype.name} must equal the output tensor dtype {out.dtype.name}")
    check_atomic(ci, out.dtype)
    if ci["shapes"] is not None:
        window = elements(ci, "shapes")
        if len(window) != len(out.shape):
            ci.fail(f"'shapes' must have {len(out.shape)} elements, got {len(window)}")
    elif len(src.shape) == len(out.shape):
        window = valid_shape(src)
    else:
        ci.fail(f"storing a rank-{len(src.shape)} tile into a rank-{len(out.shape)} tensor needs 'shapes'")
    check_window(ci, out, offs, window, "writes", "output tensor", clamp=None)
    if is_fully_valid(out):
        return out
    view = out.tensor_view
    grown = written_valid(ci, out, offs, window)
    return TensorType(list(out.shape), out.dtype, out.memref,
                      TensorView(stride=view.stride, layout=view.layout, valid_shape=grown, pad=view.pad))


define("tile.store",
       [tile("tile"), shape("offsets"), tensor("output_tensor", effect=W), shape("shapes", optional=True)],
       _store, placement=KERNEL, memory=mem((Vec, Acc)), kwargs=[ATOMIC])


def _move(ci: CallInfo) -> Type:
    """Same shape/dtype in ``target_memory``, with the destination's layout (explicit ones win)."""
    t = ci["tile"].type
    space = ci.kw("target_memory")
    blayout, slayout, fractal = implicit_layout(list(t.shape), space)
    if space == MemorySpace.Right:
        blayout = TileLayout.row_major
    return tile_type(list(t.shape), t.dtype, valid_shape(t),
                     blayout=ci.kw("blayout") or blayout, slayout=ci.kw("slayout") or slayout,
                     fractal=fractal, pad=t.get_effective_tile_view().pad, space=space)


define("tile.move", [tile("tile")], _move, placement=KERNEL, memory=mem(out=Vec, by_target=True),
       kwargs=[kw("target_memory", K.EnumKw(MemorySpace)), kw("blayout", K.EnumKw(TileLayout), None, always=False),
               kw("slayout", K.EnumKw(TileLayout), None, always=False)])


def _extract(ci: CallInfo) -> Type:
    """A static 2-D window of ``src`` copied into ``target_memory``."""
    t = ci["src"].type
    dims = static_shape(ci)
    if len(t.shape) != 2 or len(dims) != 2:
        ci.fail(f"requires 2-D source and shape, got {format_dims(t.shape)} and {format_dims(dims)}")
    for name, size, dim in (("index_row", dims[0], t.shape[0]), ("index_col", dims[1], t.shape[1])):
        o, d = const_value(ci[name]), const_value(dim)
        if not ci[name].type.dtype.is_int():
            ci.fail(f"argument '{name}' must be an integer scalar")
        if o is not None and d is not None and (o < 0 or o + size.value > d):
            ci.fail(f"window {format_dims(dims)} at {name}={o} is outside the source {format_dims(t.shape)}")
    return tile_type(dims, t.dtype, space=ci.kw("target_memory"))


define("tile.extract", [tile("src"), index_p("index_row"), index_p("index_col"), shape("shape")], _extract,
       placement=KERNEL, memory=mem(out=Vec, by_target=True),
       kwargs=[kw("target_memory", K.EnumKw(MemorySpace), keyword_only=True)])


def _read(ci: CallInfo) -> Type:
    """``Scalar[dtype]``: one element."""
    check_indices(ci, "tile")
    return ScalarType(ci["tile"].type.dtype)


def _write(ci: CallInfo) -> Type:
    """The tile's type with one element overwritten."""
    check_indices(ci, "tile")
    check_write_value(ci, "tile")
    return ci["tile"].type


# pto-isa's Tile::GetValue/SetValue address Vec tiles only (a static assertion).
define("tile.read", [tile("tile"), shape("indices", norm=to_tuple_or_single)], _read, placement=KERNEL,
       memory=mem((Vec,)))
define("tile.write", [tile("tile", effect=RW), shape("indices", norm=to_tuple_or_single),
                      scalar("value", norm=write_value("tile"))], _write, placement=KERNEL,
       memory=mem((Vec,), out=INHERIT))
for _name in ("get_block_idx", "get_subblock_idx", "get_block_num"):
    define(f"tile.{_name}", [], index_scalar, placement=KERNEL)
define("tile.alloc", [index_p("memory_space"), index_p("size")], alloc_rule, placement=KERNEL,
       kwargs=[kw("pinned", K.BOOL, False, always=False, keyword_only=True)])
