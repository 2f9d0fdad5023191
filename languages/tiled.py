"""tiled: kernel bodies are tile ops on at most 2-D tiles, every tile in a known memory space.

Entered after ConvertTensorToTileOps, ElideTensorCarries, FlattenTileNdTo2D and InferTileMemorySpace (with the
tile-stage helpers between them).
"""

from __future__ import annotations

from .invariants import AccToGmStoreValid, IncoreTileOps, KernelTensorCarriesElided, TileMemoryInferred, TileOps2D
from .outlined import outlined

tiled = outlined.extend(
    "tiled",
    "kernel bodies are tile ops on <=2-D tiles, each with a memory space",
    guarantees={IncoreTileOps, TileOps2D, TileMemoryInferred, AccToGmStoreValid, KernelTensorCarriesElided},
)
