"""C++ spellings of IR types for the CCE kernels (docs/codegen.md#cce): element types, ``Tile<...>``
and ``GlobalTensor<...>`` template types.

::

    c_type(DataType.FP16)                      # 'half'
    tile_template(vec_tile_type)               # 'Tile<TileType::Vec, float, 128, 128, BLayout::RowMajor, -1, -1>'
    global_template(DataType.FP32, [64, 128], [128, 1])
    # 'GlobalTensor<float, Shape<1, 1, 1, 64, 128>, Stride<8192, 8192, 8192, 128, 1>, Layout::ND>'

Valid extents are always dynamic (``-1, -1``): the tile object's constructor takes them, so one
template serves every valid region of a buffer shape, as in the assembler's output.
"""

from __future__ import annotations

from pypto.ir.datatype import DataType
from pypto.ir.enums import CompactMode, MemorySpace, PadValue, TileLayout
from pypto.ir.expr import ConstInt
from pypto.ir.span import Span
from pypto.ir.ops.common import BLOCK_BYTES, block_elements
from pypto.ir.types import TileType, buffer_dims, effective_view_layout

from .errors import no_rule

TARGET = "cce"

_TILE_TYPE = {
    MemorySpace.Vec: "TileType::Vec",
    MemorySpace.Mat: "TileType::Mat",
    MemorySpace.Left: "TileType::Left",
    MemorySpace.Right: "TileType::Right",
    MemorySpace.Acc: "TileType::Acc",
    MemorySpace.Bias: "TileType::Bias",
    MemorySpace.LeftScale: "TileType::ScaleLeft",
    MemorySpace.RightScale: "TileType::ScaleRight",
}
_BLAYOUT = {TileLayout.row_major: "BLayout::RowMajor", TileLayout.col_major: "BLayout::ColMajor"}
_SLAYOUT = {
    TileLayout.none_box: "SLayout::NoneBox",
    TileLayout.row_major: "SLayout::RowMajor",
    TileLayout.col_major: "SLayout::ColMajor",
}
_PAD = {PadValue.null: "PadValue::Null", PadValue.zero: "PadValue::Zero", PadValue.max: "PadValue::Max",
        PadValue.min: "PadValue::Min"}
# +-inf of the 16-bit floats as custom pad values (pto-isa's PadCustom: bit 32 set, the value's bits below):
# the CPU model's TFillPad takes +-inf from std::numeric_limits, which has none for half there, while
# the NPU's GetPadValue reads these bits as it reads PadValueMap's for Max/Min.
_HALF_INF_PAD = {
    (DataType.FP16, PadValue.max): 0x7C00, (DataType.FP16, PadValue.min): 0xFC00,
    (DataType.BF16, PadValue.max): 0x7F80, (DataType.BF16, PadValue.min): 0xFF80,
}
_CUSTOM_PAD_BASE = 1 << 32
_COMPACT = {CompactMode.null: "CompactMode::Null", CompactMode.normal: "CompactMode::Normal"}
# pto-isa's defaults of the trailing Tile template parameters (include/pto/common/pto_tile.hpp).
_TRAILING_DEFAULTS = ("SLayout::NoneBox", "512", "PadValue::Null", "CompactMode::Null")

# Outer GlobalTensor dims: pto-isa's GlobalTensor is 5-D.
GLOBAL_RANK = 5
# pto-isa's marker of a run-time extent in Shape<...> (include/pto/common/pto_tile.hpp).
DYNAMIC = -1


def c_type(dtype: DataType, span: Span | None = None) -> str:
    """The C++ element type of ``dtype`` (``float``, ``half``, ``int64_t``, ...)."""
    text = dtype.to_c_type_string()
    if text == "unknown":
        raise no_rule(f"element type {dtype.name}", TARGET, span, "pto-isa's CPU backend declares no C++ type for it")
    return text


def static_dims(dims: list, what: str, span: Span | None) -> list[int]:
    """The constant values of ``dims``; a dynamic one has no rule (template arguments are constants)."""
    out = []
    for d in dims:
        if not isinstance(d, ConstInt):
            raise no_rule(f"{what} with a dynamic extent", TARGET, span,
                          "pto-isa template arguments must be constants; dynamic shapes are a later issue")
        out.append(d.value)
    return out


def tile_template(t: TileType, span: Span | None = None) -> str:
    """``Tile<TileType::X, elem, rows, cols, BLayout, -1, -1[, SLayout, fractal, pad, compact]>``; the
    trailing parameters are printed up to the last one that differs from pto-isa's default."""
    space = t.memory_space
    if space not in _TILE_TYPE:
        raise no_rule(f"a tile in memory space {space.name if space else 'None'}", TARGET, span)
    shape = static_dims(buffer_dims(t), "a tile shape", span)
    if len(shape) == 1:
        shape = [1, shape[0]]
    if len(shape) != 2:
        raise no_rule(f"a rank-{len(shape)} tile", TARGET, span, "pto-isa tiles are 2-D")
    blayout, slayout, fractal, pad, compact = effective_view_layout(t)
    trailing = [_SLAYOUT[slayout], str(fractal), _pad(pad, t.dtype), _COMPACT[compact]]
    while trailing and trailing[-1] == _TRAILING_DEFAULTS[len(trailing) - 1]:
        trailing.pop()
    if blayout not in _BLAYOUT:
        raise no_rule(f"a tile with blayout {blayout.name}", TARGET, span)
    if slayout == TileLayout.none_box:
        _check_lines(t, shape, blayout, span)
    else:
        _check_boxes(t, shape, slayout, fractal, span)
    args = [_TILE_TYPE[space], c_type(t.dtype, span), str(shape[0]), str(shape[1]), _BLAYOUT[blayout], "-1", "-1"]
    return f"Tile<{', '.join(args + trailing)}>"




def _pad(pad: PadValue, dtype: DataType) -> str:
    """The Tile's PadValue argument."""
    bits = _HALF_INF_PAD.get((dtype, pad))
    return _PAD[pad] if bits is None else f"PadValue({_CUSTOM_PAD_BASE | bits:#x}ULL)"


def _check_lines(t: TileType, shape: list[int], blayout: TileLayout, span: Span | None) -> None:
    """No rule for a plain (NoneBox) tile whose rows (columns, when col-major) are not whole 32-byte
    blocks: pto-isa's Tile static_asserts it."""
    row_major = blayout == TileLayout.row_major
    line = shape[1] if row_major else shape[0]
    per_block = block_elements(t.dtype)
    if line % per_block:
        axis, other = ("rows", "columns") if row_major else ("columns", "rows")  # lines, and the axis to pad
        wide = -(-line // per_block) * per_block
        padded = [shape[0], wide] if row_major else [wide, shape[1]]
        raise no_rule(
            f"a {blayout.name} {t.dtype.name} tile of shape {shape}: its {axis} are {line} elements, not a whole "
            f"number of {BLOCK_BYTES}-byte blocks ({per_block} {t.dtype.name} elements)", TARGET, span,
            f"pad its {other} to a multiple of {per_block} (shape {padded}) and mark the used part with valid_shape"
            + ("" if row_major else ", or keep it row-major"))


# pto-isa's TileConfig: accumulator (1024-byte) and MX (32-byte) fractals, 16-element box sides, MX
# boxes 16 x 2 (or 2 x 16, inner col-major).
_FRACTAL_C, _FRACTAL_MX, _BOX_SIDE, _MX_SHORT = 1024, 32, 16, 2


def _check_boxes(t: TileType, shape: list[int], slayout: TileLayout, fractal: int, span: Span | None) -> None:
    """No rule for a boxed (fractal) tile that is not a whole number of boxes: pto-isa's Tile
    static_asserts ``Cols % InnerCols == 0`` and, off Vec and MX and for more than one row,
    ``Rows % InnerRows == 0`` (``getInnerRow``/``getInnerCol``: a 1024-byte box is 16 x 16; a 512-byte
    one is 16 rows of 32 bytes, or 32 bytes of 16 columns when its inner layout is col-major)."""
    per_block = block_elements(t.dtype)
    inner_row_major = slayout == TileLayout.row_major
    if fractal == _FRACTAL_C:
        box = (_BOX_SIDE, _BOX_SIDE)
    elif fractal == _FRACTAL_MX:
        box = (_BOX_SIDE, _MX_SHORT) if inner_row_major else (_MX_SHORT, _BOX_SIDE)
    else:
        box = (_BOX_SIDE, per_block) if inner_row_major else (per_block, _BOX_SIDE)
    rows_free = t.memory_space is MemorySpace.Vec or fractal == _FRACTAL_MX or shape[0] == 1
    if shape[1] % box[1] or (not rows_free and shape[0] % box[0]):
        padded = [shape[0] if rows_free else -(-shape[0] // box[0]) * box[0], -(-shape[1] // box[1]) * box[1]]
        raise no_rule(
            f"a {shape} {t.dtype.name} tile in {box[0]} x {box[1]} boxes ({t.memory_space.name}, fractal {fractal}): "
            "not a whole number of boxes", TARGET, span,
            f"pad the tile to shape {padded} and mark the used part with valid_shape")


def global_template(dtype: DataType, sizes: list[int], strides: list[int], span: Span | None = None,
                    volume: int | None = None) -> str:
    """``GlobalTensor<elem, Shape<...>, Stride<...>, Layout::ND>`` of a window ``sizes`` with element
    ``strides`` (``DYNAMIC`` (-1) for a run-time one), padded to 5-D with unit outer dims (see
    :func:`global_strides`)."""
    if len(sizes) > GLOBAL_RANK:
        raise no_rule(f"a rank-{len(sizes)} tensor window", TARGET, span, "pto-isa global tensors have at most 5 dims")
    shape = [1] * (GLOBAL_RANK - len(sizes)) + sizes
    stride = global_strides(sizes, strides, volume)
    return (f"GlobalTensor<{c_type(dtype, span)}, Shape<{', '.join(map(str, shape))}>, "
            f"Stride<{', '.join(map(str, stride))}>, Layout::ND>")


def global_strides(sizes: list[int], strides: list, volume: int | None = None) -> list:
    """``strides`` padded to 5-D: the unit outer dims' stride is the window's element count, or ``volume``
    when a size is ``DYNAMIC`` (a bound, as the unit dims are only ever indexed by 0)."""
    if volume is None:
        volume = 1
        for s in sizes:
            volume *= s
    return [volume] * (GLOBAL_RANK - len(sizes)) + strides
