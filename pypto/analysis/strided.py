"""Which tile ops read a strided tile (a window whose rows are a wider buffer's pitch apart) in place.

Ops whose pto-isa instruction reads a tile operand with its own row pitch, on the CPU model
(pto/cpu: a separate template type per operand, offsets from each operand's Cols) as on a2a3 (per
operand repeat strides); tests/sim/test_slice_views.py runs each on a strided slice. Not here:
TADD, TABS, TADDC/TSUBC, TADDSC/TSUBSC, TEXPANDS and TFILLPAD take one Tile type for every operand
on the CPU model; the column reductions need the source's Cols to equal the result's.
CanonicalizeTileSlice copies a strided slice that anything else reads; TileSlicesPitched checks it.
"""

from __future__ import annotations

STRIDED_READERS = frozenset(
    {"tile.slice", "tile.store", "tile.move", "tile.cast"}
    | {f"tile.{op}" for op in ("exp", "neg", "sqrt", "rsqrt", "recip", "log", "relu")}
    | {f"tile.{op}" for op in ("sub", "mul", "div", "maximum", "minimum")}
    | {f"tile.{op}s" for op in ("add", "sub", "mul", "div", "maximum", "minimum")}
    | {f"tile.row_{op}" for op in ("sum", "max", "min")}
    | {f"tile.{kind}_expand_{op}" for kind in ("row", "col") for op in ("add", "sub", "mul", "div", "max", "min")}
)
