"""tiled: kernel bodies compute with tile ops.

Entered by ConvertTensorToTileOps, which turns every tensor op with a tile counterpart in a kernel
into loads, tile ops and stores. The tile-stage passes after it stay here; ElideTensorCarries,
FlattenTileNdTo2D, LegalizeTileCast and CanonicalizeTileSlice establish, inside the dialect, what
``placed`` then guarantees.
"""

from __future__ import annotations

from .invariants import IncoreTileOps
from .outlined import outlined

tiled = outlined.extend(
    "tiled",
    "kernel bodies compute with tile ops; tensors are only loaded from and stored to",
    guarantees={IncoreTileOps},
)
