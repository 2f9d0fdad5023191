"""Sorting into (score, index) structs: ``sort32`` and ``mrgsort_format1``, as a2a3's TSORT32/TMRGSORT.

A struct is 8 bytes: the score, zero bytes up to byte 4 (FP16 only), then the uint32 index; a row
of FP32 structs is ``[s0, i0, s1, i1, ...]`` viewed as FP32, a row of FP16 ones takes four
elements per struct. ``sort32`` sorts each 32-element block of a row by descending score (equal
scores by ascending index); ``mrgsort_format1`` merges each group of four consecutive sorted blocks
of ``block_len`` elements, taking the lowest block on equal scores. Elements past the valid region
are zero (the hardware leaves them as they were).
"""

from __future__ import annotations

import numpy as np

from pypto.ir.ops.tensor_view_ops import SORT_BLOCK, SORT_STRUCT_BYTES, sort_struct_width

from ..values import ArrayValue
from .common import like, read
from .table import OpContext, register

def _structs(scores: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """``(n, 8)`` bytes: each score, zero padding to byte 4, then its uint32 index (little-endian)."""
    out = np.zeros((scores.size, SORT_STRUCT_BYTES), dtype=np.uint8)
    size = scores.dtype.itemsize
    out[:, :size] = np.ascontiguousarray(scores).view(np.uint8).reshape(-1, size)
    out[:, 4:] = np.ascontiguousarray(indices.astype("<u4")).view(np.uint8).reshape(-1, 4)
    return out


@register("tile.sort32", "tensor.sort32")
def _sort32(ctx: OpContext, src: ArrayValue, idx: ArrayValue) -> ArrayValue:
    data = read(src, "src")
    indices = read(idx, "idx").astype(np.uint32)
    rows, cols = src.valid
    w = sort_struct_width(src.dtype)
    out = np.zeros((data.shape[0], data.shape[1] * w), dtype=data.dtype)
    for r in range(rows):
        for start in range(0, cols, SORT_BLOCK):  # the type rule asks for whole blocks
            scores, ids = data[r, start:start + SORT_BLOCK], indices[r, start:start + SORT_BLOCK]
            order = np.lexsort((ids, -scores.astype(np.float64)))  # score descending, then index ascending
            structs = _structs(scores[order], ids[order])
            out[r, start * w:(start + SORT_BLOCK) * w] = structs.view(data.dtype).reshape(-1)
    return like(ctx, src, out, src.dtype, (rows, cols * w))


def _merge(blocks: list[np.ndarray], dtype: np.dtype) -> np.ndarray:
    """The structs of ``blocks`` (each ``(n, 8)`` bytes) merged head by head: the highest score next,
    the lowest block on equal scores."""
    size = dtype.itemsize
    scores = [b[:, :size].copy().view(dtype).reshape(-1).astype(np.float64) for b in blocks]
    heads = [0] * len(blocks)
    merged = []
    for _ in range(sum(len(b) for b in blocks)):
        pick = -1
        for k, s in enumerate(scores):
            if heads[k] < len(s) and (pick < 0 or s[heads[k]] > scores[pick][heads[pick]]):
                pick = k
        merged.append(blocks[pick][heads[pick]])
        heads[pick] += 1
    return np.stack(merged)


@register("tile.mrgsort_format1", "tensor.mrgsort_format1")
def _mrgsort1(ctx: OpContext, src: ArrayValue) -> ArrayValue:
    data = read(src, "src0")
    block = int(ctx.kwarg("block_len"))
    cols = src.valid[-1]
    out = np.zeros_like(data)
    row = np.ascontiguousarray(data[0, :cols]).view(np.uint8).reshape(-1, SORT_STRUCT_BYTES)
    w = sort_struct_width(src.dtype)
    per_block = block // w
    for g in range(0, len(row), 4 * per_block):
        merged = _merge([row[g + k * per_block:g + (k + 1) * per_block] for k in range(4)], data.dtype)
        out[0, g * w:(g + len(merged)) * w] = merged.view(data.dtype).reshape(-1)
    return like(ctx, src, out, src.dtype)
