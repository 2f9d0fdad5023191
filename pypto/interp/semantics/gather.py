"""Index-driven data movement: ``tensor.gather``/``scatter``, ``*.scatter_update``, ``tile.gather``/``gatherb``,
``tile.scatter``/``mscatter``, and the mask-pattern forms ``gather_mask``/``scatter_mask``.

``gather(input, index, dim=-1)`` picks ``input`` elements along ``dim`` (``out[i][j] =
input[i][index[i][j]]`` for ``dim=-1``); ``scatter(input, index, src, dim=-1)`` is its inverse on a
copy of ``input``; ``scatter_update(input, index, src, dim=-2)`` overwrites the rows of ``input``
named by ``index`` with the rows of ``src``. The tile forms follow pto-isa's a2a3 kernels: an index
is a flat row-major element offset into the whole static tile (``mscatter``: the whole tensor), a
``gatherb`` offset a byte offset of a 32-byte block in it. Indices out of range are errors (the
hardware would read or write whatever memory lies there). A mask pattern (``MaskPattern`` 1-7, pto-isa's
``MaskSelect``) keeps the columns ``c`` with ``c % 2 == 0`` (P0101), ``c % 2 == 1`` (P1010), ``c % 4 == 0 .. 3``
(P0001, P0010, P0100, P1000) or all of them (P1111): ``gather_mask`` packs the kept columns of each row
(an ``output_dtype`` of the same width reinterprets the bits, as TGATHER's BitCastOrCast);
``scatter_mask`` is its inverse into a zeroed ``dst``. ``tile.mgather`` reads a GM tensor as pto-isa's CPU
MGATHER: whole rows (``coalesce='row'``, one index per row) or flat elements (``'elem'``), an index taken as
an unsigned offset (a negative one is huge) that ``gather_oob`` clamps to the last, wraps modulo the extent
or turns into zeros; ``'undefined'`` makes an index out of range an error.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pypto.ir.datatype import DataType
from pypto.ir.enums import MemorySpace
from pypto.ir.ops.common import BLOCK_BYTES, block_elements

from pypto.ir.numpy_dtypes import numpy_dtype
from ..errors import OpError
from ..values import ArrayValue, TensorValue, TileValue
from .common import cast_data, like, read, result_dtype, result_space
from .table import OpContext, register


def _indices(index: ArrayValue, extent: int) -> np.ndarray:
    idx = read(index, "index").astype(np.int64)
    if idx.size and (idx.min() < 0 or idx.max() >= extent):
        raise OpError(f"index values must lie in [0, {extent}), got [{idx.min()}, {idx.max()}]")
    return idx


@register("tensor.gather")
def _gather(ctx: OpContext, src: ArrayValue, index: ArrayValue) -> ArrayValue:
    data = read(src, "input")
    dim = int(ctx.kwarg("dim", -1))
    idx = _indices(index, data.shape[dim])
    try:
        out = np.take_along_axis(data, idx, axis=dim)
    except (ValueError, IndexError) as e:
        raise OpError(f"index shape {list(idx.shape)} does not fit input shape {list(data.shape)}") from e
    return like(ctx, src, out, src.dtype, tuple(out.shape))


@register("tensor.scatter")
def _scatter(ctx: OpContext, dst: ArrayValue, index: ArrayValue, src: ArrayValue) -> ArrayValue:
    out = read(dst, "input").copy()
    dim = int(ctx.kwarg("dim", -1))
    idx = _indices(index, out.shape[dim])
    try:
        np.put_along_axis(out, idx, cast_data(read(src, "src"), dst.dtype), axis=dim)
    except (ValueError, IndexError) as e:
        raise OpError(f"index shape {list(idx.shape)} does not fit input shape {list(out.shape)}") from e
    return like(ctx, dst, out, dst.dtype)


@register("tensor.scatter_update", "tile.scatter_update")
def _scatter_update(ctx: OpContext, dst: ArrayValue, index: ArrayValue, src: ArrayValue) -> ArrayValue:
    out = read(dst, "input").copy()
    dim = int(ctx.kwarg("dim", -2))
    rows = np.moveaxis(out, dim, 0)
    idx = _indices(index, rows.shape[0]).reshape(-1)
    updates = np.moveaxis(cast_data(read(src, "src"), dst.dtype), dim, 0)
    if updates.shape[0] != idx.shape[0] or updates.shape[1:] != rows.shape[1:]:
        raise OpError(
            f"{idx.shape[0]} indices and src rows of shape {list(updates.shape)} do not fit input {list(out.shape)}"
        )
    rows[idx] = updates
    return like(ctx, dst, out, dst.dtype)


def _flat_indices(index: ArrayValue, extent: int, what: str, bound: str = "") -> np.ndarray:
    """The valid region of ``index`` as int64, each a flat offset in ``[0, extent)``; ``bound`` says
    what the limit is (default: the ``extent`` elements addressed)."""
    idx = read(index, what)[tuple(slice(0, v) for v in index.valid)].astype(np.int64)
    bad = np.argwhere((idx < 0) | (idx >= extent))
    if bad.size:
        at = tuple(int(i) for i in bad[0])
        raise OpError(f"{what}{list(at)} = {idx[at]} is outside {bound or f'the {extent} elements it addresses'}")
    return idx


@register("tile.gather")
def _tile_gather(ctx: OpContext, src: ArrayValue, indices: ArrayValue, tmp: ArrayValue) -> ArrayValue:
    """TGATHER: ``out[r, c] = src.flat[indices[r, c]]`` over the indices' valid region."""
    data = read(src, "src")
    idx = _flat_indices(indices, data.size, "indices")
    out = np.zeros(indices.data.shape, dtype=data.dtype)
    out[tuple(slice(0, v) for v in indices.valid)] = data.reshape(-1)[idx]
    return like(ctx, src, out, src.dtype, indices.valid)


def _scatter_flat(out: np.ndarray, dtype: DataType, index: ArrayValue, src: ArrayValue, what: str) -> np.ndarray:
    """Write ``src`` elements at the flat indices of ``index``'s valid region into ``out`` in row-major
    order (of duplicate indices the last write stays); returns the flat indices written."""
    idx = _flat_indices(index, out.size, what).reshape(-1)
    values = cast_data(read(src, "src")[tuple(slice(0, v) for v in index.valid)], dtype).reshape(-1)
    # np.unique keeps the first occurrence: search the reversed order to keep the last write.
    _, last = np.unique(idx[::-1], return_index=True)
    keep = idx.size - 1 - last
    out.flat[idx[keep]] = values[keep]
    return idx


@register("tile.scatter")
def _tile_scatter(ctx: OpContext, dst: ArrayValue, src: ArrayValue, indexes: ArrayValue) -> ArrayValue:
    """TSCATTER: a zeroed ``dst`` with ``dst.flat[indexes[i, j]] = src[i, j]`` over the indexes' valid region."""
    out = np.zeros(dst.data.shape, dtype=read(dst, "dst").dtype)
    _scatter_flat(out, dst.dtype, indexes, src, "indexes")
    return like(ctx, dst, out, dst.dtype, tuple(out.shape))


@register("tile.mscatter")
def _tile_mscatter(ctx: OpContext, src: ArrayValue, idx: ArrayValue, output: ArrayValue) -> ArrayValue:
    """MSCATTER (Coalesce::Elem): ``output.flat[idx[i, j]] = src[i, j]`` over idx's valid region, in place."""
    if not isinstance(output, TensorValue):
        raise OpError(f"mscatter target must be a tensor, got {type(output).__name__}")
    written = _scatter_flat(output.data, output.dtype, idx, src, "idx")
    output.mark_written(np.unravel_index(written, output.data.shape))
    return output


@register("tile.gatherb")
def _tile_gatherb(ctx: OpContext, src: ArrayValue, offset: ArrayValue) -> ArrayValue:
    """TGATHERB: block ``c`` of row ``r`` is the 32 bytes of ``src`` at byte ``offset[r, c]``."""
    src_bytes = np.ascontiguousarray(read(src, "src")).view(np.uint8).reshape(-1)
    offs = _flat_indices(offset, src_bytes.size - BLOCK_BYTES + 1, "offset",
                         f"[0, {src_bytes.size - BLOCK_BYTES}], where a {BLOCK_BYTES}-byte block of the "
                         f"{src_bytes.size}-byte src starts")
    unaligned = np.argwhere(offs % BLOCK_BYTES)
    if unaligned.size:
        at = tuple(int(i) for i in unaligned[0])
        raise OpError(f"offset{list(at)} = {offs[at]} is not a multiple of the {BLOCK_BYTES}-byte block")
    dtype = result_dtype(ctx, src.dtype)
    rows, blocks = offs.shape
    out = np.zeros((offset.data.shape[0], offset.data.shape[1] * BLOCK_BYTES), dtype=np.uint8)
    out[:rows, :blocks * BLOCK_BYTES] = src_bytes[offs[..., None] + np.arange(BLOCK_BYTES)].reshape(rows, -1)
    data = out.view(numpy_dtype(dtype))
    valid = (rows, blocks * block_elements(dtype))
    return like(ctx, src, data, dtype, valid)


# MaskPattern value -> (stride, kept column within each stride).
_MASK_COLUMNS = {1: (2, 0), 2: (2, 1), 3: (4, 0), 4: (4, 1), 5: (4, 2), 6: (4, 3), 7: (1, 0)}


def _mask_columns(ctx: OpContext, cols: int) -> np.ndarray:
    stride, first = _MASK_COLUMNS[int(ctx.kwarg("mask_pattern"))]
    return np.arange(first, cols, stride)


@register("tensor.gather_mask", "tile.gather_mask")
def _gather_mask(ctx: OpContext, src: ArrayValue) -> ArrayValue:
    """TGATHER with a mask pattern: the kept columns of each row, packed."""
    data = read(src, "src")
    out = data[:, _mask_columns(ctx, data.shape[1])]
    dtype = result_dtype(ctx, src.dtype)
    if dtype != src.dtype:
        out = np.ascontiguousarray(out).view(numpy_dtype(dtype))
    rows = src.valid[0]
    return like(ctx, src, out, dtype, (rows, len(_mask_columns(ctx, src.valid[1]))))


@register("tensor.scatter_mask")
def _scatter_mask(ctx: OpContext, src: ArrayValue, dst: ArrayValue) -> ArrayValue:
    return _scatter_masked(ctx, dst, src)


@register("tile.scatter_mask")
def _tile_scatter_mask(ctx: OpContext, dst: ArrayValue, src: ArrayValue) -> ArrayValue:
    return _scatter_masked(ctx, dst, src)


def _scatter_masked(ctx: OpContext, dst: ArrayValue, src: ArrayValue) -> ArrayValue:
    """TSCATTER with a mask pattern: a zeroed ``dst`` whose kept columns are ``src``'s columns in order."""
    out = np.zeros(dst.data.shape, dtype=numpy_dtype(dst.dtype))
    cols = _mask_columns(ctx, out.shape[1])
    out[:, cols] = cast_data(read(src, "src"), dst.dtype)[:, :len(cols)]
    return like(ctx, dst, out, dst.dtype, tuple(out.shape))


@register("tile.mgather")
def _mgather(ctx: OpContext, mem: ArrayValue, idx: ArrayValue, *rest: Any) -> ArrayValue:
    """MGATHER over the result's valid region (``valid_shape`` when given, else the whole tile)."""
    table = read(mem, "mem")
    row = ctx.kwarg("coalesce") == "row"
    raw = read(idx, "idx")
    # A row gather sees the table as rows of its last axis; an element gather sees it flat.
    source = table.reshape(-1, table.shape[-1]) if row else table.reshape(-1)
    shape = (raw.size, table.shape[-1]) if row else raw.shape
    valid = next((tuple(int(v) for v in r) for r in rest if isinstance(r, tuple)), shape)
    picked = raw.reshape(-1)[:valid[0]] if row else raw[:valid[0], :valid[1]]
    offsets = _oob(ctx, picked, source.shape[0], "rows" if row else "elements")
    inside = offsets < source.shape[0]
    values = source[np.where(inside, offsets, 0)]
    out = np.zeros(shape, dtype=table.dtype)
    out[:valid[0], :valid[1]] = np.where(inside[:, None], values[:, :valid[1]], 0) if row else \
        np.where(inside, values, 0)
    return TileValue(out, mem.dtype, valid, result_space(ctx, MemorySpace.Vec))


def _oob(ctx: OpContext, raw: np.ndarray, extent: int, what: str) -> np.ndarray:
    """Indices as the CPU model's ``size_t`` offsets after ``gather_oob``; ``extent`` and above read zero."""
    offsets = raw.astype(np.int64).astype(np.uint64)
    mode = ctx.kwarg("gather_oob")
    if mode == "clamp":
        return np.minimum(offsets, np.uint64(extent - 1))
    if mode == "wrap":
        return offsets % np.uint64(extent)
    if mode == "undefined" and offsets.size and offsets.max() >= extent:
        at = tuple(int(i) for i in np.argwhere(offsets >= extent)[0])
        raise OpError(f"idx{list(at)} = {raw[at]} is outside the {extent} {what} of 'mem' (gather_oob='undefined' "
                      "reads whatever lies there; pick 'clamp', 'wrap' or 'zero')")
    return offsets
