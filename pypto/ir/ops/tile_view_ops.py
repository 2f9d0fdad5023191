"""Tile shape/view ops and gather/scatter/sort (docs/ops.md#tile-ops).

View ops (slice, reshape, transpose, assemble, ...) keep the source tile's memory space; gathers,
scatters and sorts are vector ops.
"""

from __future__ import annotations

from ..datatype import DataType
from ..enums import MemorySpace, PadValue, TileLayout
from ..expr import Expr
from ..op_registry import DEFERRED, INHERIT, TENSOR, TILE, CallInfo, Param
from ..type_base import Type
from ..types import TileType
from . import kwtypes as K
from .common import (
    block_elements,
    check_dtype,
    check_window,
    check_int,
    check_rank,
    const_value,
    dim_add,
    dim_equal,
    dims_equal,
    elements,
    format_dims,
    index,
    known_multiple,
    product,
    tile_type,
    valid_shape,
)
from .decl import KERNEL, RW, SCRATCH, VECTOR, W, Vec, define, index as index_p, kw, mem, scalar, shape, tensor
from .decl import tile
from .shape_rules import (
    check_pad,
    concat_dims,
    expand_dims,
    full_rank_window,
    pad_without_effect,
    reinterpret_dims,
    reinterpret_view,
    reshape_valid,
    set_valid,
    slice_result,
    swapped,
    transpose_axes,
    written_valid,
)
from .tensor_view_ops import (
    COMPARE_KWARGS,
    GATHER_ROW_PARAMS,
    MASK,
    OUT_DTYPE,
    SORT_BLOCK,
    check_gather_row,
    compare_result,
    mask_dims,
    mask_gather_dtype,
    merged_dims,
    check_mask_scatter,
    check_mrgsort1,
    sort32_dims,
    sort_struct_width,
)

D = DataType
VIEW = mem((), out=INHERIT)


def view_of(src: TileType, dims: list[Expr], valid: list[Expr] | None, pad: PadValue | None = None,
            keep_layout: bool = True) -> TileType:
    """A zero-copy view of ``src``: same space (and layout when ``keep_layout``)."""
    v = src.get_effective_tile_view()
    if keep_layout:
        return tile_type(dims, src.dtype, valid, blayout=v.blayout, slayout=v.slayout, fractal=v.fractal,
                         pad=pad, space=src.memory_space)
    return tile_type(dims, src.dtype, valid, pad=pad, space=src.memory_space)


def _slice(ci: CallInfo) -> Type:
    """A static window: ``shape`` minus dropped axes (a lower-rank ``shape`` covers the trailing axes), at
    least 2-D; valid = requested ∩ source valid."""
    t = ci["tile"].type
    for v in elements(ci, "shape"):
        if const_value(v) is None or const_value(v) <= 0:
            ci.fail(f"shape must be static positive, got {format_dims(elements(ci, 'shape'))}")
    _check_aligned_start(ci, t)
    dims, valid = slice_result(ci, t, clamp=False)
    while len(dims) < 2:
        dims, valid = [index(1)] + dims, [index(1)] + valid
    pad = ci.kw("pad_value")
    pad = t.get_effective_tile_view().pad if pad is None else pad  # a window keeps its source's padding
    return view_of(t, dims, valid, pad, keep_layout=len(dims) == len(t.shape))


define("tile.slice",
       [tile("tile"), shape("shape"), shape("offset"), shape("valid_shape", optional=True, fill_empty=True),
        shape("drop_dims", optional=True)],
       _slice, placement=KERNEL, memory=VIEW, view=True,
       kwargs=[kw("pad_value", K.PadValueKw(allow_null=True), None, always=False)],
       lint=pad_without_effect, canonical=full_rank_window)


def _check_aligned_start(ci: CallInfo, t: TileType, hint: str = "slice from offset {start} and keep the rest in "
                         "the valid region, or slice the tensor before loading it") -> None:
    """A window of a plain 2-D tile starts on a 32-byte boundary of its lines: TSUBVIEW makes the window
    a tile at ``src + offset`` (include/pto/npu/a2a3/TSubView.hpp), and vector instructions address
    on-chip buffers in 32-byte blocks. Row offsets of a row-major tile always are (its rows are whole
    blocks); a column offset must be a multiple of a block's elements (col-major: the other way)."""
    view = t.get_effective_tile_view()
    offsets = elements(ci, "offset")
    if view.slayout != TileLayout.none_box or len(t.shape) != 2 or len(offsets) != 2:
        return
    axis = 1 if view.blayout == TileLayout.row_major else 0
    per_block = block_elements(t.dtype)
    if known_multiple(offsets[axis], per_block):
        return
    what = "column" if axis == 1 else "row"
    start = const_value(offsets[axis])
    message = (f"a window of a {view.blayout.name} {t.dtype.name} tile must start on a 32-byte boundary: {what} "
               f"offset {format_dims([offsets[axis]])[1:-1]} is not ")
    if start is None:
        ci.fail(message + f"known to be a multiple of {per_block} (hint: write it as a multiple of {per_block}, "
                f"e.g. j * {per_block})")
    ci.fail(message + f"a multiple of {per_block} (hint: " + hint.format(start=start - start % per_block) + ")")


def _is_line(dims: list[Expr]) -> bool:
    return len(dims) != 2 or 1 in (const_value(dims[0]), const_value(dims[1]))


def _reshape(ci: CallInfo) -> Type:
    """Same elements in a new shape (same space); the valid region is carried when representable."""
    t = ci["tile"].type
    dims = elements(ci, "shape")
    # TRESHAPE reinterprets the buffer as a row-major tile: a (plain, not fractal) col-major one's
    # elements lie column by column, so only a single row or column keeps its element order.
    v = t.get_effective_tile_view()
    if (v.blayout == TileLayout.col_major and v.slayout == TileLayout.none_box
            and not (_is_line(list(t.shape)) and _is_line(dims))):
        ci.fail(f"a col-major {format_dims(t.shape)} tile reshaped to {format_dims(dims)} would reorder its "
                "elements (TRESHAPE reinterprets the buffer row-major); tile.move it to row-major first")
    result = view_of(t, dims, reshape_valid(ci, t, dims), pad=v.pad, keep_layout=False)
    view, cols = result.get_effective_tile_view(), const_value(dims[-1])
    # pto-isa's Tile (pto/common/pto_tile.hpp) needs a row-major row to be a whole number of blocks.
    per_block = block_elements(t.dtype)
    if (view.blayout, view.slayout) == (TileLayout.row_major, TileLayout.none_box) and cols is not None \
            and cols % per_block:
        ci.fail(f"a row-major {t.dtype.name} tile of shape {format_dims(dims)} has rows of "
                f"{cols * t.dtype.get_bit() // 8} bytes; the target needs a multiple of 32 (hint: reshape to a last "
                f"dimension that is a multiple of {per_block})")
    return result


define("tile.reshape", [tile("tile"), shape("shape")], _reshape, placement=KERNEL, memory=VIEW, view=True)


def _reinterpret_view(ci: CallInfo) -> Type:
    """Same bytes as another dtype, for packed row-major flat tiles: the columns, the valid columns and
    the row stride scale by the width ratio; a zero pad stays, another is dropped."""
    t = ci["tile"].type
    v = t.get_effective_tile_view()
    if v.blayout != TileLayout.row_major or v.slayout != TileLayout.none_box:
        ci.fail("only packed row-major flat tiles can be reinterpreted")
    dims = reinterpret_dims(ci, t, dn=False)
    valid, strides, pad = reinterpret_view(ci, t, False, dims)
    out = tile_type(dims, ci.kw("dtype"), valid or None, blayout=v.blayout, slayout=v.slayout, pad=pad,
                    space=t.memory_space)
    if not strides:
        return out
    return TileType(out.shape, out.dtype, None, out.get_effective_tile_view().model_copy(update={"stride": strides}),
                    out.memory_space)


define("tile.reinterpret_view", [tile("tile"), shape("shape", optional=True)], _reinterpret_view,
       placement=KERNEL, memory=VIEW, kwargs=[kw("dtype", K.DTYPE)], signature=("tile", "dtype", "*", "shape"),
       view=True)


def _transpose(ci: CallInfo) -> Type:
    """Two axes swapped (same space)."""
    t = ci["tile"].type
    a1, a2 = transpose_axes(ci, len(t.shape))
    tmp = ci["tmp_tile"]
    if tmp is not None and tmp.type.dtype != t.dtype:
        ci.fail("'tmp_tile' must have the input dtype")
    return view_of(t, swapped(list(t.shape), a1, a2), swapped(valid_shape(t), a1, a2), keep_layout=False)


define("tile.transpose", [tile("tile"), index_p("axis1"), index_p("axis2"),
                          tile("tmp_tile", effect=SCRATCH, optional=True)],
       _transpose, placement=KERNEL, memory=VIEW)

FIXPIPE_TARGETS = (D.FP16, D.BF16, D.INT8)
# a2a3 TINSERT Vec -> Vec (include/pto/common/arch/memory/tinsert_common.hpp): these element types; a
# 1-byte one fails its "ValidCol bytes must be 2-byte aligned" assertion on a run-time valid shape.
INSERT_DTYPES = (D.INT16, D.UINT16, D.FP16, D.BF16, D.FP32, D.INT32, D.UINT32)


def _check_insert(ci: CallInfo, tgt: TileType, src: TileType) -> None:
    """What TINSERT copies between two on-chip tiles: an element type of INSERT_DTYPES, both tiles in
    one layout, row-major or NZ (a plain col-major pair matches neither of its paths and copies nothing)."""
    if tgt.dtype not in INSERT_DTYPES:
        ci.fail(f"{tgt.dtype.name} tiles cannot be assembled: a2a3 TINSERT copies "
                f"{', '.join(d.name for d in INSERT_DTYPES)} elements (hint: cast to one of them, or assemble "
                "in the tensor the kernel stores to)")
    tv, sv = tgt.get_effective_tile_view(), src.get_effective_tile_view()
    if (tv.blayout, tv.slayout) != (sv.blayout, sv.slayout):
        ci.fail(f"the source ({sv.blayout.name}) and the target ({tv.blayout.name}) must have one layout "
                "(hint: tile.move the source to the target's layout first)")
    if (tv.blayout, tv.slayout) == (TileLayout.col_major, TileLayout.none_box):
        ci.fail("a plain col-major tile cannot be assembled: a2a3 TINSERT copies row-major (ND) or NZ tiles "
                "(hint: tile.move both to row-major first)")


def _assemble(ci: CallInfo) -> Type:
    """The target's type, its valid region joined with the window the source's valid part writes."""
    tgt, src = ci["target"].type, ci["source"].type
    offs = elements(ci, "offset")
    if len(offs) != len(tgt.shape):
        ci.fail(f"offset must have {len(tgt.shape)} elements, got {len(offs)}")
    fixpipe = src.memory_space == MemorySpace.Acc and tgt.dtype in FIXPIPE_TARGETS
    if src.dtype != tgt.dtype and not fixpipe:
        ci.fail(f"source dtype {src.dtype.name} must equal target dtype {tgt.dtype.name}")
    if not fixpipe and src.memory_space != MemorySpace.Acc:
        _check_insert(ci, tgt, src)
    if [const_value(d) for d in src.shape] != [1, 1]:  # TINSERT places one element anywhere
        _check_aligned_start(ci, tgt, "assemble at column {start}, or widen the source to start there")
    if len(src.shape) != len(tgt.shape):
        return view_of(tgt, list(tgt.shape), valid_shape(tgt))
    check_window(ci, tgt, offs, valid_shape(src), "writes", "target", clamp=None)
    return view_of(tgt, list(tgt.shape), written_valid(ci, tgt, offs, valid_shape(src)))


define("tile.assemble", [tile("target", effect=RW), tile("source"), shape("offset")], _assemble, placement=KERNEL,
       memory=VIEW)


def _concat(ci: CallInfo) -> Type:
    """``[M, Na + Nb]`` in Vec, valid in ``[rows, valid Na + valid Nb]``: TCONCAT (include/pto/cpu/TConcat.hpp)
    writes ``rhs``'s valid columns right after ``lhs``'s, on the rows both have valid (the same number)."""
    a, b = ci["lhs"].type, ci["rhs"].type
    dims = concat_dims(ci, a, b)
    (ra, ca), (rb, cb) = valid_shape(a), valid_shape(b)
    if not dim_equal(ra, rb):
        ci.fail(f"requires equal valid rows, got {format_dims([ra])} and {format_dims([rb])}")
    return tile_type(dims, a.dtype, [ra, dim_add(ca, cb)])


define("tile.concat", [tile("lhs"), tile("rhs")], _concat, placement=VECTOR, memory=mem((Vec,), (Vec,), out=Vec))


def _set_validshape(ci: CallInfo) -> Type:
    """The same tile with valid region ``[valid_rows, valid_cols]``."""
    t = ci["tile"].type
    return view_of(t, list(t.shape), set_valid(ci, t))


define("tile.set_validshape", [tile("tile"), index_p("valid_rows"), index_p("valid_cols")], _set_validshape,
       placement=KERNEL, memory=VIEW, view=True)


def _fillpad(ci: CallInfo) -> Type:
    """Same shape and dtype, the padding filled (fully valid); the type carries ``pad_value``, which
    pto-isa's TFILLPAD reads from its destination's tile type."""
    check_pad(ci)
    t = ci["tile"].type
    return view_of(t, list(t.shape), None, ci.kw("pad_value"))


def _fillpad_expand(ci: CallInfo) -> Type:
    """The static larger ``shape``, the padding filled; the type carries ``pad_value``."""
    check_pad(ci)
    t = ci["tile"].type
    return view_of(t, expand_dims(ci, t), None, ci.kw("pad_value"), keep_layout=False)


PAD = kw("pad_value", K.PadValueKw(allow_null=False), PadValue.zero)
# TFILLPAD is a vector instruction: Vec in, Vec out.
FILL_MEM = mem((Vec,), out=Vec)
define("tile.fillpad", [tile("tile")], _fillpad, placement=KERNEL, memory=FILL_MEM, kwargs=[PAD])
define("tile.fillpad_inplace", [tile("tile", effect=RW)], _fillpad, placement=KERNEL, memory=FILL_MEM, kwargs=[PAD])
define("tile.fillpad_expand", [tile("tile"), shape("shape")], _fillpad_expand, placement=KERNEL, memory=FILL_MEM,
       kwargs=[PAD])


# ---------------------------------------------------------------- gather / scatter / sort


# a2a3 TGather.hpp (index form): b16/b32 data, b32 indices, tmp of the indices' dtype; it addresses
# every operand as row-major rows (the CPU model follows each tile's layout instead).
GATHER_DATA = (D.FP32, D.INT32, D.UINT32, D.FP16, D.BF16, D.INT16, D.UINT16)
GATHER_INDEX = (D.INT32, D.UINT32)


def check_row_major(ci: CallInfo, *names: str) -> None:
    """Each named tile operand is row-major."""
    for name in names:
        if ci[name].type.get_effective_tile_view().blayout != TileLayout.row_major:
            ci.fail(f"'{name}' must be a row-major tile")


def _gather(ci: CallInfo) -> Type:
    """Elements of ``src`` at flat row-major indices over its whole static shape: the indices' shape
    and valid region, the src dtype."""
    src, idx, tmp = ci["src"].type, ci["indices"].type, ci["tmp"].type
    check_dtype(ci, "'src'", src.dtype, GATHER_DATA)
    check_dtype(ci, "'indices'", idx.dtype, GATHER_INDEX)
    if tmp.dtype != idx.dtype:
        ci.fail(f"'tmp' dtype {tmp.dtype.name} must equal the indices dtype {idx.dtype.name}")
    check_same_shape(ci, "tmp", "indices")
    if not dims_equal(valid_shape(tmp), valid_shape(idx)):
        ci.fail(f"'tmp' valid region {format_dims(valid_shape(tmp))} must equal the indices' "
                f"{format_dims(valid_shape(idx))} (a2a3 TGATHER asserts it)")
    check_row_major(ci, "src", "indices", "tmp")
    return tile_type(list(idx.shape), src.dtype, valid_shape(idx))


define("tile.gather", [tile("src"), tile("indices"), tile("tmp", effect=SCRATCH)], _gather, placement=VECTOR,
       memory=mem((Vec,), (Vec,), (Vec,), out=Vec))


# a2a3 TGatherB.hpp: 1/2/4-byte elements (MScatter.hpp too), 32-bit byte offsets, whole 256-byte
# repeats of 8 blocks per row (a row's last repeat is written in full, so a part of one would differ).
BYTE_DATA = (D.FP32, D.INT32, D.UINT32, D.FP16, D.BF16, D.INT16, D.UINT16, D.INT8, D.UINT8)
GATHERB_OFFSET = (D.UINT32, D.INT32)
BLOCKS_PER_REPEAT = 8


def _gatherb(ci: CallInfo) -> Type:
    """One 32-byte block of ``src`` per offset: the offsets' rows, each offset column widened to a
    block of ``output_dtype`` (or the src dtype) elements; valid region likewise."""
    src, off = ci["src"].type, ci["offset"].type
    dtype = ci.kw("output_dtype") or src.dtype
    check_dtype(ci, "'src'", src.dtype, BYTE_DATA)
    check_dtype(ci, "output", dtype, BYTE_DATA)
    check_dtype(ci, "'offset'", off.dtype, GATHERB_OFFSET)
    check_row_major(ci, "src", "offset")
    for what, cols in (("columns", off.shape[-1]), ("valid columns", valid_shape(off)[-1])):
        if const_value(cols) is None or const_value(cols) % BLOCKS_PER_REPEAT:
            ci.fail(f"'offset' {what} must be a static multiple of {BLOCKS_PER_REPEAT} (a2a3 TGATHERB gathers whole "
                    f"repeats of {BLOCKS_PER_REPEAT} blocks per row), got {format_dims([cols])}")
    per_block = block_elements(dtype)
    valid = valid_shape(off)
    return tile_type([off.shape[0], index(const_value(off.shape[1]) * per_block)], dtype,
                     [valid[0], index(const_value(valid[1]) * per_block)])


define("tile.gatherb", [tile("src"), tile("offset")], _gatherb, placement=VECTOR,
       memory=mem((Vec,), (Vec,), out=Vec), kwargs=[OUT_DTYPE])


def _gather_mask(ci: CallInfo) -> Type:
    """Columns selected by a fixed mask pattern."""
    t = ci["src"].type
    check_row_major(ci, "src")
    check_full_cols(ci, "src")
    return tile_type(mask_dims(ci, t), mask_gather_dtype(ci, t), [valid_shape(t)[0], mask_dims(ci, t)[1]])


def check_full_cols(ci: CallInfo, *names: str) -> None:
    """pto-isa's mask TGATHER/TSCATTER pack the kept columns of every row back to back: each named
    tile must be valid over its whole width (a partial valid region would shift the rows)."""
    for name in names:
        t = ci[name].type
        if not dim_equal(valid_shape(t)[-1], t.shape[-1]):
            ci.fail(f"'{name}' must be valid over all its {format_dims(t.shape[-1:])} columns for a mask pattern, "
                    f"got valid region {format_dims(valid_shape(t))}", hint="fillpad the tile to its full width first")


define("tile.gather_mask", [tile("src")], _gather_mask, placement=VECTOR, memory=mem((Vec,), out=Vec),
       kwargs=[MASK, OUT_DTYPE], signature=("src", "mask_pattern", "*", "output_dtype"))


def _gather_compare(ci: CallInfo) -> Type:
    """Indices comparing true against ``kvalue`` plus per-row counts: a 2-tuple of Vec tiles."""

    def vec_tile(dims: list[Expr], dtype: DataType) -> TileType:
        return tile_type(dims, dtype, space=MemorySpace.Vec)

    return compare_result(ci, ci["src"].type, vec_tile)


define("tile.gather_compare", [tile("src"), scalar("kvalue", pair="src"), tile("tmp", effect=SCRATCH)],
       _gather_compare, placement=VECTOR, memory=mem((Vec,), (), (Vec,)), kwargs=COMPARE_KWARGS)


def _mgather(ci: CallInfo) -> Type:
    """Rows (``coalesce='row'``) or elements of a GM tensor picked by an index tile or GM index tensor,
    in ``target_memory`` (Mat: the boxed NZ view). Checks follow pto-isa's a2a3 MGather.hpp."""
    src, idx = ci["mem"].type, ci["idx"].type
    check_int(ci, "'idx'", idx.dtype)
    check_dtype(ci, "'idx'", idx.dtype, GATHER_INDEX)
    check_dtype(ci, "'mem'", src.dtype, BYTE_DATA)
    space = ci.kw("target_memory")
    if space not in (MemorySpace.Vec, MemorySpace.Mat):
        ci.fail(f"target_memory must be Vec or Mat, got {space.name}")
    if ci.kw("coalesce") == "row":
        dims = _row_gather_dims(ci, src, idx)
    else:
        if len(idx.shape) != 2:
            ci.fail(f"an element gather takes a 2-D 'idx' (the result's shape), got {format_dims(idx.shape)}")
        dims = list(idx.shape)
    _check_mgather_tile(ci, dims, src.dtype, space)
    valid = elements(ci, "valid_shape") if ci["valid_shape"] is not None else None
    return tile_type(dims, src.dtype, valid, space=space)


def _row_gather_dims(ci: CallInfo, src: Type, idx: Type) -> list[Expr]:
    """``[rows, mem cols]``: one row per index of a 1-D or ``[1, R]`` / ``[R, 1]`` index."""
    if len(idx.shape) > 2 or (len(idx.shape) == 2 and 1 not in [const_value(d) for d in idx.shape]):
        ci.fail(f"a row gather takes one index per row: 'idx' must be 1-D, [1, R] or [R, 1], got "
                f"{format_dims(idx.shape)}")
    count = product(list(idx.shape))
    if count is None:
        ci.fail(f"row gathers need a static index count, got {format_dims(idx.shape)}")
    return [index(count), src.shape[-1]]


def _check_mgather_tile(ci: CallInfo, dims: list[Expr], dtype: DataType, space: MemorySpace) -> None:
    """An NZ Mat destination is whole fractals: 16-row multiples of 32-byte rows (a2a3 MGATHER GM->L1)."""
    if space != MemorySpace.Mat:
        return
    rows, cols = (const_value(d) for d in dims)
    per_block = block_elements(dtype)
    if (cols is not None and cols % per_block) or (rows is not None and rows % 16):
        ci.fail(f"an NZ Mat destination needs a multiple of 16 rows of whole 32-byte blocks ({per_block} "
                f"{dtype.name} elements), got {format_dims(dims)}")


define("tile.mgather",
       [tensor("mem"), Param("idx", (TENSOR, TILE)),
        Param("scratch", (TENSOR, TILE), effect=SCRATCH, optional=True), shape("valid_shape", optional=True)],
       _mgather, placement=VECTOR, memory=mem((), (Vec,), (Vec,), out=DEFERRED, by_target=True),
       kwargs=[kw("coalesce", K.StrKw(("row", "elem"), indexed=True), "row"),
               kw("gather_oob", K.StrKw(("undefined", "clamp", "wrap", "zero"), indexed=True), "undefined",
                  keyword_only=True),
               kw("target_memory", K.EnumKw(MemorySpace), MemorySpace.Vec, keyword_only=True)],
       signature=("mem", "idx", "coalesce", "*", "gather_oob", "target_memory", "scratch", "valid_shape"))


# a2a3 TScatter.hpp: these data dtypes, with indices of the data's width (two bytes for 8-bit data).
SCATTER_INDEX = {
    **dict.fromkeys((D.FP32, D.INT32, D.UINT32), (D.INT32, D.UINT32)),
    **dict.fromkeys((D.FP16, D.BF16, D.INT16, D.UINT16, D.INT8, D.UINT8), (D.INT16, D.UINT16)),
}


def _scatter(ci: CallInfo) -> Type:
    """A zeroed ``dst`` with ``src`` elements written at flat row-major ``indexes`` over its whole
    static shape, over the indexes' valid region (a2a3 TSCATTER zeroes the tile first)."""
    dst, src, idx = ci["dst"].type, ci["src"].type, ci["indexes"].type
    check_int(ci, "'indexes'", idx.dtype)
    check_dtype(ci, "'dst'", dst.dtype, SCATTER_INDEX)
    if src.dtype != dst.dtype:
        ci.fail(f"src dtype {src.dtype.name} must equal dst dtype {dst.dtype.name}")
    check_dtype(ci, f"'indexes' (for {dst.dtype.name} data)", idx.dtype, SCATTER_INDEX[dst.dtype])
    check_same_shape(ci, "indexes", "src")
    if len(src.shape) != len(dst.shape):
        ci.fail(f"'src' {format_dims(src.shape)} must have the rank of 'dst' {format_dims(dst.shape)}")
    if not dims_equal(valid_shape(src), valid_shape(idx)):
        ci.fail(f"'src' valid region {format_dims(valid_shape(src))} must equal the indexes' "
                f"{format_dims(valid_shape(idx))}")
    check_row_major(ci, "dst", "src", "indexes")
    return view_of(dst, list(dst.shape), None)


def check_same_shape(ci: CallInfo, a: str, b: str) -> None:
    """One index per element: ``a`` and ``b`` have equal shapes."""
    sa, sb = list(ci[a].type.shape), list(ci[b].type.shape)
    if not dims_equal(sa, sb):
        ci.fail(f"'{a}' {format_dims(sa)} must have the shape of '{b}' {format_dims(sb)}")


def _scatter_mask(ci: CallInfo) -> Type:
    """``dst`` with ``src`` columns spread by the mask pattern."""
    dst, src = ci["dst"].type, ci["src"].type
    check_mask_scatter(ci, src, dst, "src")
    check_row_major(ci, "dst", "src")
    if not dims_equal(valid_shape(src), list(src.shape)) or not dims_equal(valid_shape(dst), list(dst.shape)):
        ci.fail("a mask scatter writes the whole 'dst': 'dst' and 'src' must be valid over their whole shapes")
    return view_of(dst, list(dst.shape), None)


def _mscatter(ci: CallInfo) -> Type:
    """The output tensor's type, ``src`` elements written at flat row-major ``idx`` over the whole
    tensor (pto-isa MSCATTER's Coalesce::Elem; dtypes, 32-bit indices and row-major tiles as MScatter.hpp)."""
    src, idx, out = ci["src"].type, ci["idx"].type, ci["output_tensor"].type
    check_dtype(ci, "'src'", src.dtype, BYTE_DATA)
    check_dtype(ci, "'idx'", idx.dtype, GATHER_INDEX)
    if src.dtype != out.dtype:
        ci.fail(f"src dtype {src.dtype.name} must equal the output tensor dtype {out.dtype.name}")
    check_same_shape(ci, "idx", "src")
    if not dims_equal(valid_shape(src), valid_shape(idx)):
        ci.fail(f"'src' valid region {format_dims(valid_shape(src))} must equal the idx's "
                f"{format_dims(valid_shape(idx))}")
    check_row_major(ci, "src", "idx")
    return out


def _scatter_update(ci: CallInfo) -> Type:
    """``input`` with rows of ``src`` written at the rows named by ``index``."""
    t, src = ci["input"].type, ci["src"].type
    check_int(ci, "'index'", ci["index"].type.dtype)
    if src.dtype != t.dtype:
        ci.fail(f"src dtype {src.dtype.name} must equal input dtype {t.dtype.name}")
    return view_of(t, list(t.shape), None)


SCATTER_MEM = mem((Vec,), (Vec,), (Vec,), out=Vec)
define("tile.scatter", [tile("dst", effect=RW), tile("src"), tile("indexes")], _scatter, placement=VECTOR,
       memory=SCATTER_MEM)
define("tile.scatter_mask", [tile("dst", effect=W), tile("src")], _scatter_mask, placement=VECTOR,
       memory=mem((Vec,), (Vec,), out=Vec), kwargs=[MASK], signature=("dst", "src", "mask_pattern"))
define("tile.mscatter", [tile("src"), tile("idx"), tensor("output_tensor", effect=W)], _mscatter, placement=VECTOR,
       memory=mem((Vec,), (Vec,)))
define("tile.scatter_update", [tile("input"), tile("index"), tile("src")], _scatter_update, placement=VECTOR,
       memory=SCATTER_MEM, kwargs=[kw("dim", K.INT, -2)])


def _gather_row(ci: CallInfo) -> Type:
    """The destination tile's type, with a block of rows copied from ``src`` into it."""
    dst = ci["dst"].type
    check_gather_row(ci, dst)
    return dst


define("tile.gather_row", [tile("dst", effect=W), Param("src", ("tensor", TILE)), *GATHER_ROW_PARAMS],
       _gather_row, placement=KERNEL, memory=mem((), (), out=INHERIT), kwargs=[kw("transpose", K.BOOL, False)],
       signature=("dst", "src", "dst_offset", "src_offset", "shapes", "transpose", "*", "valid_shape"))


def _sort32(ci: CallInfo) -> Type:
    """Sort each 32-element block, emitting (score, index) structs; the valid region is the
    source's, in structs (a2a3's TSORT32 drops a partial block, so valid columns are whole blocks)."""
    src, idx = ci["src"].type, ci["idx"].type
    dims = sort32_dims(ci, src, idx)
    rows, cols = valid_shape(src)
    if not dims_equal(valid_shape(idx), [rows, cols]):
        ci.fail(f"'idx' valid region {format_dims(valid_shape(idx))} must equal the valid region of 'src' "
                f"{format_dims([rows, cols])}")
    n = const_value(cols)
    if n is None or n % SORT_BLOCK:
        ci.fail(f"the valid columns must be a static multiple of {SORT_BLOCK}, got {format_dims([cols])}")
    return tile_type(dims, src.dtype, [rows, index(n * sort_struct_width(src.dtype))])


def _mrgsort1(ci: CallInfo) -> Type:
    """Merge each group of four sorted blocks of ``block_len`` elements: same type."""
    src = ci["src0"].type
    check_mrgsort1(ci, src, valid_shape(src)[-1])
    return tile_type(list(src.shape), src.dtype, valid_shape(src))


def _mrgsort2(ci: CallInfo) -> Type:
    """Merge 2-4 sorted lists through a scratch tile: columns add up."""
    names = [n for n in ("src0", "src1", "src2", "src3") if ci[n] is not None]
    check_rank(ci, "src0", rank=2)
    return tile_type(merged_dims(ci, names), ci["src0"].type.dtype)


define("tile.sort32", [tile("src"), tile("idx")], _sort32, placement=VECTOR, memory=mem((Vec,), (Vec,), out=Vec))
define("tile.mrgsort_format1", [tile("src0")], _mrgsort1, placement=VECTOR, memory=mem((Vec,), out=Vec),
       kwargs=[kw("block_len", K.INT, keyword_only=True)])
define("tile.mrgsort_format2",
       [tile("src0"), tile("src1"), tile("src2", optional=True), tile("src3", optional=True),
        tile("tmp", effect=SCRATCH)],
       _mrgsort2, placement=VECTOR, memory=mem((Vec,), (Vec,), (Vec,), (Vec,), (Vec,), out=Vec),
       kwargs=[kw("exhausted", K.BOOL, False, keyword_only=True)],
       signature=("src0", "src1", "tmp", "src2", "src3", "*", "exhausted"))
