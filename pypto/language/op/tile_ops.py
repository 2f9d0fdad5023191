"""``pypto.language.op.tile_ops``: the established module name of ``pl.tile`` (same functions)."""

from . import tile as _tile

globals().update({name: getattr(_tile, name) for name in _tile.__all__})

__all__ = list(_tile.__all__)  # noqa: PLE0605 - the tile op names
