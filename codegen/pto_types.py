"""PTO-ISA MLIR spellings of types (docs/codegen.md#pto-types): element types, memory spaces, tile buffers
and tensor views::

    mlir_dtype(DataType.FP32)                  # 'f32'
    tile_buf(TileType([64, 64], FP32, ...))    # '!pto.tile_buf<loc=vec, dtype=f32, rows=64, cols=64, ...>'
    partition_view([64, None], FP32)           # '!pto.partition_tensor_view<64x?xf32>'
"""

from __future__ import annotations

from pypto.ir.datatype import DataType
from pypto.ir.enums import CompactMode, MemorySpace, TensorLayout
from pypto.ir.expr import ConstInt, Expr
from pypto.ir.span import Span
from pypto.ir.types import TileType, buffer_dims, effective_view_layout

from .errors import no_rule

TARGET = "pto"

_DTYPES = {
    "FP32": "f32", "FP16": "f16", "BF16": "bf16", "INT8": "i8", "UINT8": "ui8", "INT16": "i16",
    "UINT16": "ui16", "INT32": "i32", "UINT32": "ui32", "INT64": "i64", "UINT64": "ui64", "INDEX": "index",
    "BOOL": "i1", "FP8E4M3FN": "f8E4M3FN", "FP8E5M2": "f8E5M2", "FP8E8M0": "!pto.f8E8M0", "HF8": "!pto.hif8",
    "FP4": "!pto.f4E2M1x2",
}

SPACES = {
    MemorySpace.DDR: "gm", MemorySpace.Vec: "vec", MemorySpace.Mat: "mat", MemorySpace.Left: "left",
    MemorySpace.Right: "right", MemorySpace.Acc: "acc", MemorySpace.Bias: "bias",
    MemorySpace.LeftScale: "scaling", MemorySpace.RightScale: "scaling",
}

LAYOUTS = {
    TensorLayout.ND: "nd", TensorLayout.DN: "dn", TensorLayout.NZ: "nz", TensorLayout.MX_A_ZZ: "mx_a_zz",
    TensorLayout.MX_B_NN: "mx_b_nn",
}


def mlir_dtype(dtype: DataType, span: Span | None = None) -> str:
    """The MLIR element type of ``dtype``; one without a spelling (INT4, TASK_ID) has no rule."""
    text = _DTYPES.get(dtype.name)
    if text is None:
        raise no_rule(f"dtype {dtype.name}", TARGET, span, "PTO-ISA has no element type for it")
    return text


def signless(dtype: DataType, span: Span | None = None) -> str:
    """The signless integer type arith works on (``ui32`` -> ``i32``); other types unchanged."""
    text = mlir_dtype(dtype, span)
    return text[1:] if dtype.is_unsigned_int() else text


def static_dim(dim: Expr) -> int | None:
    """The value of a constant dimension, None for a dynamic one."""
    return dim.value if isinstance(dim, ConstInt) else None


def physical_dims(tile: TileType, span: Span | None) -> tuple[int, int]:
    """``(rows, cols)`` of a tile buffer: the 2-D physical shape (a 1-D tile ``[N]`` is ``1 x N``; a
    strided view's lines are as long as its stride)."""
    dims = [static_dim(d) for d in buffer_dims(tile)]
    if len(dims) == 1:
        dims = [1, *dims]
    if len(dims) != 2 or None in dims:
        shape = ", ".join(str(d) if d is not None else "?" for d in dims)
        raise no_rule(f"a tile of shape [{shape}]", TARGET, span,
                      "a PTO tile buffer has a static 1-D or 2-D physical shape")
    return dims[0], dims[1]


def tile_buf(tile: TileType, span: Span | None = None, valid: tuple[int | None, int | None] | None = None,
             dims: tuple[int, int] | None = None) -> str:
    """The ``!pto.tile_buf<...>`` type of a tile; ``valid`` gives static ``v_row``/``v_col`` (subview
    results), otherwise both are ``?`` (the valid extent is an operand of ``pto.alloc_tile``);
    ``dims`` replaces the physical shape (a window of the tile)."""
    space = tile.memory_space
    if space not in SPACES or space is MemorySpace.DDR:
        raise no_rule(f"a tile in memory space {space}", TARGET, span, "tile buffers live in an on-chip space")
    rows, cols = physical_dims(tile, span) if dims is None else dims
    blayout, slayout, fractal, pad, compact = effective_view_layout(tile)
    v_row, v_col = ("?", "?") if valid is None else tuple("?" if v is None else str(v) for v in valid)
    text = (f"!pto.tile_buf<loc={SPACES[space]}, dtype={mlir_dtype(tile.dtype, span)}, rows={rows}, cols={cols}, "
            f"v_row={v_row}, v_col={v_col}, blayout={blayout.name}, slayout={slayout.name}, "
            f"fractal={fractal}, pad={int(pad)}")
    if compact == CompactMode.normal:
        text += ", compact=1"
    return text + ">"


def tensor_view(rank: int, dtype: DataType, span: Span | None = None) -> str:
    """``!pto.tensor_view<?x?xf32>``: every dimension dynamic."""
    return f"!pto.tensor_view<{'?x' * rank}{mlir_dtype(dtype, span)}>"


def partition_view(dims: list[int | None], dtype: DataType, span: Span | None = None) -> str:
    """``!pto.partition_tensor_view<64x?xf32>``: static window dims, ``?`` for a dynamic extent."""
    shape = "".join(f"{'?' if d is None else d}x" for d in dims)
    return f"!pto.partition_tensor_view<{shape}{mlir_dtype(dtype, span)}>"
