"""What the generators read of a tile's effective view, without building the view.

``TileType.get_effective_tile_view()`` makes a ``TileView`` node (a validated model) the first time
it is asked of a tile type without a stored view, and the final program of a compile has fresh
types: the generators asked it of every tile. These give the same facts from the stored view, or
from the implicit layout when there is none.
"""

from __future__ import annotations

from collections.abc import Sequence

from pypto.ir.enums import CompactMode, PadValue, TileLayout
from pypto.ir.expr import Expr
from pypto.ir.types import TileType, TileView, effective_layout

# The fields an implicit view leaves at their defaults.
_PLAIN = TileView()


def valid_shape(tile: TileType) -> Sequence[Expr]:
    """``tile.get_effective_tile_view().valid_shape``: the stored view's valid shape, else the shape."""
    view = tile.tile_view
    return view.valid_shape if view is not None and view.valid_shape else tile.shape


def view_layout(tile: TileType) -> tuple[TileLayout, TileLayout, int, PadValue, CompactMode]:
    """``(blayout, slayout, fractal, pad, compact)`` of ``tile.get_effective_tile_view()``."""
    view = tile.tile_view
    if view is None:
        return (*effective_layout(tile), _PLAIN.pad, _PLAIN.compact)
    return view.blayout, view.slayout, view.fractal, view.pad, view.compact
