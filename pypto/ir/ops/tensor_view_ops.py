"""Tensor shape/view/movement, gather/scatter/sort and cross-core tensor ops (docs/ops.md#tensor-ops)."""

from __future__ import annotations

from typing import Callable

from ..datatype import DataType
from ..enums import AtomicType, MaskPattern, MemorySpace, PadValue, TensorLayout
from ..expr import Expr
from ..op_registry import CallInfo
from ..type_base import PtrType, TupleType, Type
from ..types import TensorType, TensorView
from . import kwtypes as K
from .common import (
    ATOMIC_ADD_DTYPES,
    check_window,
    check_dtype,
    check_int,
    check_rank,
    const_value,
    dims_equal,
    dim_add,
    elements,
    format_dims,
    index,
    product,
    tensor_type,
    valid_shape,
)
from .decl import TENSOR_LEVEL, EVERYWHERE, W, define, index as index_p, kw, scalar, shape, tensor
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
    split_dims,
    swapped,
    transpose_axes,
    transposed_view,
    written_valid,
)

D = DataType


def _slice(ci: CallInfo) -> Type:
    """A window of the tensor: ``shape`` minus dropped axes (a lower-rank ``shape`` covers the trailing axes);
    valid = requested ∩ source valid."""
    t = ci["tensor"].type
    dims, valid = slice_result(ci, t, ci.kw("clamp"))
    pad = ci.kw("pad_value")
    if pad is None and t.tensor_view is not None:
        pad = t.tensor_view.pad  # a window keeps its source's padding
    return tensor_type(dims, t.dtype, valid, pad=pad)


define("tensor.slice",
       [tensor("tensor"), shape("shape"), shape("offset"), shape("valid_shape", optional=True, fill_empty=True),
        shape("drop_dims", optional=True)],
       _slice, placement=TENSOR_LEVEL,
       kwargs=[kw("pad_value", K.PadValueKw(allow_null=True), None, always=False),
               kw("clamp", K.BOOL, False, always=False)],
       lint=pad_without_effect, canonical=full_rank_window)


def _reshape(ci: CallInfo) -> Type:
    """Same elements in a new shape; the valid region is carried when representable."""
    t = ci["tensor"].type
    dims = elements(ci, "shape")
    given = elements(ci, "valid_shape") if ci["valid_shape"] is not None else None
    valid = given if given else reshape_valid(ci, t, dims, drop=True)
    return tensor_type(dims, t.dtype, valid, pad=t.tensor_view.pad if t.tensor_view is not None else None)


define("tensor.reshape", [tensor("tensor"), shape("shape"), shape("valid_shape", optional=True)], _reshape,
       placement=TENSOR_LEVEL)


def _transpose(ci: CallInfo) -> Type:
    """The two axes swapped, as a strided view (swapped strides; DN when the last two axes swap)."""
    t = ci["tensor"].type
    a1, a2 = transpose_axes(ci, len(t.shape))
    given = elements(ci, "valid_shape") if ci["valid_shape"] is not None else []
    return transposed_view(t, swapped(list(t.shape), a1, a2), a1, a2, given)


define("tensor.transpose", [tensor("tensor"), index_p("axis1"), index_p("axis2"),
                            shape("valid_shape", optional=True)], _transpose, placement=TENSOR_LEVEL)


def _view(ci: CallInfo) -> Type:
    """Zero-copy reinterpretation with a new shape and/or an ND/DN layout tag."""
    t = ci["tensor"].type
    layout = ci.kw("layout")
    if ci["shape"] is None and layout is None:
        ci.fail("needs a shape or a layout")
    if layout == TensorLayout.NZ:
        ci.fail("the NZ layout cannot be a tensor view")
    dims = elements(ci, "shape") if ci["shape"] is not None else list(t.shape)
    old, new = product(list(t.shape)), product(dims)
    if old is not None and new is not None and old != new:
        ci.fail(f"cannot view tensor of size {old} as shape {format_dims(dims)} (size {new})")
    valid = elements(ci, "valid_shape") if ci["valid_shape"] is not None else None
    return tensor_type(dims, t.dtype, valid, layout=layout if layout is not None else TensorLayout.ND)


define("tensor.view", [tensor("tensor"), shape("shape", optional=True), shape("valid_shape", optional=True)],
       _view, placement=TENSOR_LEVEL, kwargs=[kw("layout", K.EnumKw(TensorLayout), None, always=False,
                                                 keyword_only=True)])


def _reinterpret_view(ci: CallInfo) -> Type:
    """Same bytes as another dtype: the last (ND) or penultimate (DN) axis scales by the width ratio,
    and with it the view's valid extent and strides; the layout is kept."""
    t = ci["tensor"].type
    layout = t.tensor_view.layout if t.tensor_view is not None else TensorLayout.ND
    if layout == TensorLayout.NZ:
        ci.fail("an NZ tensor cannot be reinterpreted: its bytes are fractal blocks, not rows")
    dn = layout == TensorLayout.DN
    dims = reinterpret_dims(ci, t, dn)
    valid, strides, pad = reinterpret_view(ci, t, dn, dims)
    out = tensor_type(dims, ci.kw("dtype"), valid or None, layout if ci["shape"] is None else TensorLayout.ND, pad)
    if not strides:
        return out
    kept = out.tensor_view.valid_shape if out.tensor_view is not None else []
    return TensorType(out.shape, out.dtype, None, TensorView(stride=strides, layout=layout, valid_shape=kept, pad=pad))


define("tensor.reinterpret_view", [tensor("tensor"), shape("shape", optional=True)], _reinterpret_view,
       placement=TENSOR_LEVEL, kwargs=[kw("dtype", K.DTYPE)], signature=("tensor", "dtype", "*", "shape"))


def _concat(ci: CallInfo) -> Type:
    """``[M, Na + Nb]``."""
    a, b = ci["lhs"].type, ci["rhs"].type
    return tensor_type(concat_dims(ci, a, b), a.dtype)


define("tensor.concat", [tensor("lhs"), tensor("rhs")], _concat, placement=TENSOR_LEVEL)


def check_atomic(ci: CallInfo, dtype: DataType) -> None:
    if ci.kw("atomic") == AtomicType.Add:
        check_dtype(ci, "atomic Add", dtype, ATOMIC_ADD_DTYPES)


def _assemble(ci: CallInfo) -> Type:
    """The target's type, its valid region joined with the window the source's valid part writes. A source
    of another dtype is cast to the target's on the way, as ``tensor.cast`` with its default mode ('round')."""
    tgt, src = ci["target"].type, ci["source"].type
    offs = elements(ci, "offset")
    if len(offs) != len(tgt.shape) or len(src.shape) != len(tgt.shape):
        ci.fail(f"target {format_dims(tgt.shape)}, source {format_dims(src.shape)} and offset "
                f"{format_dims(offs)} must have equal ranks")
    if src.dtype != tgt.dtype and not all(d.is_float() or d.is_int() for d in (src.dtype, tgt.dtype)):
        ci.fail(f"a {src.dtype.name} source cannot be cast to the {tgt.dtype.name} target")
    check_atomic(ci, tgt.dtype)
    written = valid_shape(src)
    check_window(ci, tgt, offs, written, "writes", "target", clamp=None)
    return tensor_type(list(tgt.shape), tgt.dtype, written_valid(ci, tgt, offs, written))


ATOMIC = kw("atomic", K.EnumKw(AtomicType, as_int=True), 0, always=False, keyword_only=True)
define("tensor.assemble", [tensor("target", effect=W), tensor("source"), shape("offset")], _assemble,
       placement=TENSOR_LEVEL, kwargs=[ATOMIC])


def _fillpad(ci: CallInfo) -> Type:
    """Same shape and dtype, padding beyond the valid region filled (fully valid)."""
    check_pad(ci)
    t = ci["tensor"].type
    return tensor_type(list(t.shape), t.dtype)


def _fillpad_expand(ci: CallInfo) -> Type:
    """The static ``shape`` (>= the source), padding filled."""
    check_pad(ci)
    t = ci["tensor"].type
    return tensor_type(expand_dims(ci, t), t.dtype)


PAD = kw("pad_value", K.PadValueKw(allow_null=False), PadValue.zero)
define("tensor.fillpad", [tensor("tensor")], _fillpad, placement=TENSOR_LEVEL, kwargs=[PAD])
define("tensor.fillpad_expand", [tensor("tensor"), shape("shape")], _fillpad_expand, placement=TENSOR_LEVEL,
       kwargs=[PAD])


def _set_validshape(ci: CallInfo) -> Type:
    """Same tensor with valid region ``[valid_rows, valid_cols]``."""
    t = ci["tensor"].type
    return tensor_type(list(t.shape), t.dtype, set_valid(ci, t))


define("tensor.set_validshape", [tensor("tensor"), index_p("valid_rows"), index_p("valid_cols")], _set_validshape,
       placement=TENSOR_LEVEL)


# ---------------------------------------------------------------- gather / scatter / sort


def check_index_tensor(ci: CallInfo, name: str) -> None:
    check_int(ci, f"'{name}'", ci[name].type.dtype)


def _gather(ci: CallInfo) -> Type:
    """Elements of ``input`` along ``dim`` picked by ``index``: the index's shape, the input dtype."""
    t, idx = ci["input"].type, ci["index"].type
    check_rank(ci, "input", rank=2)
    check_rank(ci, "index", rank=2)
    check_index_tensor(ci, "index")
    if ci.kw("dim") not in (-1, 1):
        ci.fail(f"only dim=-1 is supported, got {ci.kw('dim')}")
    return tensor_type(list(idx.shape), t.dtype)


define("tensor.gather", [tensor("input"), tensor("index")], _gather, placement=TENSOR_LEVEL,
       kwargs=[kw("dim", K.INT, -1)])

MASK_STRIDE = {1: 2, 2: 2, 3: 4, 4: 4, 5: 4, 6: 4, 7: 1}


def mask_dims(ci: CallInfo, src: Type) -> list:
    """Columns divided by the mask pattern's stride."""
    check_rank(ci, ci.entry.params[0].name, rank=2)
    stride = MASK_STRIDE[ci.kw("mask_pattern")]
    cols = const_value(src.shape[1])
    if cols is None or cols % stride:
        ci.fail(f"columns {format_dims([src.shape[1]])} must be a static multiple of the pattern stride {stride}")
    return [src.shape[0], index(cols // stride)]


def mask_gather_dtype(ci: CallInfo, src: Type) -> DataType:
    """The result dtype of a mask gather: ``output_dtype`` reinterprets the bits, so it has the source's width."""
    out = ci.kw("output_dtype") or src.dtype
    if out.get_bit() != src.dtype.get_bit():
        ci.fail(f"output_dtype {out.name} must have the {src.dtype.get_bit()}-bit width of the source dtype "
                f"{src.dtype.name} (the gather reinterprets the bits)")
    return out


def check_mask_scatter(ci: CallInfo, src: Type, dst: Type, src_name: str) -> None:
    """``src`` holds the masked columns of ``dst``: equal dtype and rows, ``dst`` columns / stride
    columns, 16- or 32-bit elements."""
    if src.dtype != dst.dtype:
        ci.fail(f"{src_name} dtype {src.dtype.name} must equal dst dtype {dst.dtype.name}")
    if src.dtype.get_bit() not in (16, 32):
        ci.fail(f"a mask scatter moves 16- or 32-bit elements, got {src.dtype.name}")
    check_rank(ci, "dst", rank=2)
    want = [dst.shape[0], mask_dims(ci, dst)[1]]
    if not dims_equal(list(src.shape), want):
        ci.fail(f"'{src_name}' {format_dims(src.shape)} must be {format_dims(want)}: the rows of 'dst' and its "
                f"columns kept by mask pattern {MaskPattern(ci.kw('mask_pattern')).name}")


def _gather_mask(ci: CallInfo) -> Type:
    """Columns selected by a fixed mask pattern (P0101 ... P1111)."""
    t = ci["input"].type
    return tensor_type(mask_dims(ci, t), mask_gather_dtype(ci, t))


MASK = kw("mask_pattern", K.EnumKw(MaskPattern, as_int=True))
OUT_DTYPE = kw("output_dtype", K.DTYPE, None, always=False)
define("tensor.gather_mask", [tensor("input")], _gather_mask, placement=TENSOR_LEVEL, kwargs=[MASK, OUT_DTYPE])

CMP_MODES = ("eq", "ne", "lt", "le", "gt", "ge")


def compare_result(ci: CallInfo, src: Type, make: Callable[..., Type]) -> Type:
    """``(indices [rows, out_cols] INT32, counts [rows, 1] count_dtype)`` of a gather-compare."""
    check_rank(ci, ci.entry.params[0].name, rank=2)
    if ci.kw("out_cols") <= 0:
        ci.fail(f"out_cols must be > 0, got {ci.kw('out_cols')}")
    rows = src.shape[0]
    count = ci.kw("count_dtype") or D.INT32
    check_int(ci, "count_dtype", count)
    return TupleType([make([rows, index(ci.kw("out_cols"))], D.INT32), make([rows, index(1)], count)])


def _gather_compare(ci: CallInfo) -> Type:
    """Indices of the elements comparing true against ``kvalue``, plus per-row counts (a 2-tuple)."""
    return compare_result(ci, ci["input"].type, tensor_type)


COMPARE_KWARGS = [kw("cmp_mode", K.StrKw(CMP_MODES), "eq", keyword_only=True),
                  kw("offset", K.INT, 0, keyword_only=True), kw("out_cols", K.IntKw(1), keyword_only=True),
                  kw("count_dtype", K.DTYPE, None, always=False, keyword_only=True)]
define("tensor.gather_compare", [tensor("input"), scalar("kvalue", pair="input")], _gather_compare,
       placement=TENSOR_LEVEL, kwargs=COMPARE_KWARGS)


def _scatter(ci: CallInfo) -> Type:
    """``input`` with the ``src`` elements written at ``index`` along ``dim``."""
    t, s = ci["input"].type, ci["src"].type
    check_index_tensor(ci, "index")
    if s.dtype != t.dtype:
        ci.fail(f"src dtype {s.dtype.name} must equal input dtype {t.dtype.name}")
    return tensor_type(list(t.shape), t.dtype)


define("tensor.scatter", [tensor("input"), tensor("index"), tensor("src")], _scatter, placement=TENSOR_LEVEL,
       kwargs=[kw("dim", K.INT, -1)])


def _scatter_mask(ci: CallInfo) -> Type:
    """``dst`` with ``input``'s columns spread by the mask pattern."""
    t, dst = ci["input"].type, ci["dst"].type
    check_mask_scatter(ci, t, dst, "input")
    return tensor_type(list(dst.shape), dst.dtype)


define("tensor.scatter_mask", [tensor("input"), tensor("dst", effect=W)], _scatter_mask, placement=TENSOR_LEVEL,
       kwargs=[MASK])


def _scatter_update(ci: CallInfo) -> Type:
    """``input`` with rows of ``src`` written at the rows named by ``index``."""
    t, s = ci["input"].type, ci["src"].type
    check_index_tensor(ci, "index")
    if s.dtype != t.dtype:
        ci.fail(f"src dtype {s.dtype.name} must equal input dtype {t.dtype.name}")
    if len(s.shape) != len(t.shape):
        ci.fail(f"src rank must equal input rank: {format_dims(s.shape)} vs {format_dims(t.shape)}")
    return tensor_type(list(t.shape), t.dtype)


define("tensor.scatter_update", [tensor("input"), tensor("index"), tensor("src")], _scatter_update,
       placement=TENSOR_LEVEL, kwargs=[kw("dim", K.INT, -2)])


def check_gather_row(ci: CallInfo, acc: Type) -> None:
    for name in ("dst_offset", "src_offset", "shapes"):
        n = len(elements(ci, name))
        if n != 2:
            ci.fail(f"'{name}' must have 2 elements, got {n}")
    if ci["src"].type.dtype != acc.dtype:
        ci.fail(f"src dtype {ci['src'].type.dtype.name} must equal the destination dtype {acc.dtype.name}")


def _gather_row(ci: CallInfo) -> Type:
    """The accumulator's type, with a block of rows copied from ``src`` into it."""
    acc = ci["acc"].type
    check_gather_row(ci, acc)
    return acc


GATHER_ROW_PARAMS = (shape("dst_offset"), shape("src_offset"), shape("shapes"),
                     shape("valid_shape", optional=True))
define("tensor.gather_row", [tensor("acc", effect=W), tensor("src"), *GATHER_ROW_PARAMS], _gather_row,
       placement=TENSOR_LEVEL, kwargs=[kw("transpose", K.BOOL, False)],
       signature=("acc", "src", "dst_offset", "src_offset", "shapes", "transpose", "*", "valid_shape"))


def _paged_gather(ci: CallInfo) -> Type:
    """``[max_indices, cols]`` (``[cols, max_indices]`` with is_trans) rows gathered through a block table."""
    src = ci["src"].type
    check_rank(ci, "src", rank=2)
    check_index_tensor(ci, "indices")
    check_index_tensor(ci, "block_table")
    rows = const_value(ci["max_indices"])
    if rows is None or rows <= 0:
        ci.fail("max_indices must be a positive constant")
    dims = [index(rows), src.shape[1]]
    return tensor_type(dims[::-1] if ci.kw("is_trans") else dims, src.dtype)


define("tensor.paged_gather",
       [tensor("src"), tensor("indices"), tensor("block_table"), index_p("block_size"), index_p("size"),
        index_p("max_indices")],
       _paged_gather, placement=TENSOR_LEVEL,
       kwargs=[kw("space", K.EnumKw(MemorySpace), MemorySpace.Mat, keyword_only=True),
               kw("col_off", K.INT, 0, keyword_only=True), kw("is_trans", K.BOOL, False, keyword_only=True),
               kw("is_b_matrix", K.BOOL, False, keyword_only=True)])


# pto-isa's a2a3 TSORT32/TMRGSORT (include/pto/npu/a2a3/TSort32.hpp, TMrgSort.hpp): half or float scores
# and uint32 indices, sorted into 8-byte (score, index) structs; TMRGSORT merges blocks of 64-element
# multiples, four at a time, on one row.
SORT_DTYPES = (DataType.FP16, DataType.FP32)
SORT_BLOCK = 32  # the elements TSORT32 sorts together
SORT_STRUCT_BYTES = 8
MRGSORT_BLOCK_LEN = 64
MRGSORT_MAX_REPEATS = 255


def sort_struct_width(dtype: DataType) -> int:
    """The elements of ``dtype`` one (score, index) struct takes: 2 for FP32, 4 for FP16."""
    return SORT_STRUCT_BYTES * 8 // dtype.get_bit()


def sort32_dims(ci: CallInfo, src: Type, idx: Type) -> list:
    """``[rows, cols * w]``: each 32-element block of a row sorted (descending, ties by index) into
    (score, index) structs of ``w`` elements (:func:`sort_struct_width`)."""
    check_rank(ci, "src", rank=2)
    check_dtype(ci, "'src'", src.dtype, SORT_DTYPES)
    if idx.dtype != DataType.UINT32:
        ci.fail(f"'idx' must hold UINT32 indices, got {idx.dtype.name}")
    if not dims_equal(list(idx.shape), list(src.shape)):
        ci.fail(f"'idx' {format_dims(idx.shape)} must have the shape of 'src' {format_dims(src.shape)}")
    cols = const_value(src.shape[1])
    if cols is None or cols % SORT_BLOCK:
        ci.fail(f"columns must be a static multiple of {SORT_BLOCK}, got {format_dims([src.shape[1]])}")
    return [src.shape[0], index(cols * sort_struct_width(src.dtype))]


def _sort32(ci: CallInfo) -> Type:
    """Sort each 32-element block, emitting (score, index) structs."""
    src = ci["src"].type
    return tensor_type(sort32_dims(ci, src, ci["idx"].type), src.dtype)


define("tensor.sort32", [tensor("src"), tensor("idx")], _sort32, placement=TENSOR_LEVEL)


def check_mrgsort1(ci: CallInfo, src: Type, valid_cols: Expr) -> None:
    """One row of (score, index) structs whose ``valid_cols`` are whole groups of four blocks of
    ``block_len`` elements (a multiple of 64), at most 255 groups: what TMRGSORT merges."""
    block = ci.kw("block_len")
    if block <= 0 or block % MRGSORT_BLOCK_LEN:
        ci.fail(f"block_len must be a positive multiple of {MRGSORT_BLOCK_LEN} elements, got {block}")
    check_rank(ci, "src0", rank=2)
    check_dtype(ci, "'src0'", src.dtype, SORT_DTYPES)
    if const_value(src.shape[0]) != 1:
        ci.fail(f"sorts one row: 'src0' must have 1 row, got {format_dims(src.shape)}")
    cols = const_value(valid_cols)
    group = 4 * block
    if cols is None or cols % group or not 0 < cols // group <= MRGSORT_MAX_REPEATS:
        ci.fail(f"the valid columns must be a static multiple of 4 * block_len = {group} (at most "
                f"{MRGSORT_MAX_REPEATS} groups), got {format_dims([valid_cols])}")


def _mrgsort1(ci: CallInfo) -> Type:
    """Merge each group of four sorted blocks of ``block_len`` elements: same type."""
    src = ci["src0"].type
    check_mrgsort1(ci, src, src.shape[-1])
    return tensor_type(list(src.shape), src.dtype)


define("tensor.mrgsort_format1", [tensor("src0")], _mrgsort1, placement=TENSOR_LEVEL,
       kwargs=[kw("block_len", K.INT, keyword_only=True)])


def merged_dims(ci: CallInfo, names: list[str]) -> list:
    """``[rows, sum of cols]`` of the merged lists."""
    first = ci[names[0]].type
    cols = first.shape[-1]
    for name in names[1:]:
        t = ci[name].type
        if t.dtype != first.dtype:
            ci.fail(f"'{name}' dtype {t.dtype.name} must equal {first.dtype.name}")
        cols = dim_add(cols, t.shape[-1])
    return list(first.shape[:-1]) + [cols]


def _mrgsort2(ci: CallInfo) -> Type:
    """Merge 2-4 sorted lists: columns add up."""
    names = [n for n in ("src0", "src1", "src2", "src3") if ci[n] is not None]
    return tensor_type(merged_dims(ci, names), ci["src0"].type.dtype)


define("tensor.mrgsort_format2",
       [tensor("src0"), tensor("src1"), tensor("src2", optional=True), tensor("src3", optional=True)],
       _mrgsort2, placement=TENSOR_LEVEL, kwargs=[kw("exhausted", K.BOOL, False, keyword_only=True)])


# ---------------------------------------------------------------- cross-core tensor forms and allocation

SPLIT = kw("split", K.IntKw(0, 4), keyword_only=True)
LANE_STRIDE = kw("lane_stride", K.INT, None, always=False, keyword_only=True)


def _aiv_shard(ci: CallInfo) -> Type:
    """This vector core's half: the split axis halved."""
    t = ci["tensor"].type
    return tensor_type(split_dims(ci, list(t.shape), gather=False), t.dtype)


def _aic_gather(ci: CallInfo) -> Type:
    """Both vector halves joined for the cube core: the split axis doubled."""
    t = ci["tensor"].type
    return tensor_type(split_dims(ci, list(t.shape), gather=True), t.dtype)


define("tensor.aiv_shard", [tensor("tensor")], _aiv_shard, placement=TENSOR_LEVEL, kwargs=[SPLIT, LANE_STRIDE])
define("tensor.aic_gather", [tensor("tensor")], _aic_gather, placement=TENSOR_LEVEL, kwargs=[SPLIT])


def alloc_rule(ci: CallInfo) -> Type:
    """``Ptr``: an allocation token of ``size`` bytes in ``memory_space``."""
    space = const_value(ci["memory_space"])
    if space is None or space not in {int(m) for m in MemorySpace}:
        ci.fail("memory_space must be a constant MemorySpace")
    check_int(ci, "'size'", ci["size"].type.dtype)
    return PtrType.get()


define("tensor.alloc", [index_p("memory_space"), index_p("size")], alloc_rule, placement=EVERYWHERE)
