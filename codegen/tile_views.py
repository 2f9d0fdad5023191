"""The effective tile view of a tile type, computed once per type object for every emitter.

``TileType.get_effective_tile_view`` builds a new ``TileView`` model on each call for a tile with
the implicit view; the emitters ask for it several times per tile (declaration, transfers, sizes).
"""

from __future__ import annotations

from pypto.ir.types import TileType, TileView

# id(type) -> (type, view): the type is held so that its id is not reused while the entry lives.
_VIEWS: dict[int, tuple[TileType, TileView]] = {}
_LIMIT = 4096


def effective_view(tile: TileType) -> TileView:
    """``tile.get_effective_tile_view()`` (shared: callers must not change it)."""
    hit = _VIEWS.get(id(tile))
    if hit is not None and hit[0] is tile:
        return hit[1]
    if len(_VIEWS) >= _LIMIT:
        _VIEWS.clear()
    view = tile.get_effective_tile_view()
    _VIEWS[id(tile)] = (tile, view)
    return view
