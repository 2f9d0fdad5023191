"""placed: every kernel tile is at most 2-D and sits in a known memory space.

Entered by InferTileMemorySpace, which gives each kernel tile its memory space
(``TileType.memory_space`` becomes a required field in kernels) and moves operands into the spaces
their ops read. The tile-stage passes before it establish the rest of what ``placed`` guarantees:
ElideTensorCarries (KernelTensorCarriesElided), FlattenTileNdTo2D (TileOps2D), LegalizeTileCast
(TileCastsNative), CanonicalizeTileSlice (TileSlicesPitched). ResolveBackendOpLayouts,
ExpandMixedKernel and NormalizeReturnOrder run here.
"""

from __future__ import annotations

from .invariants import (
    AccToGmStoreValid,
    KernelTensorCarriesElided,
    TileCastsNative,
    TileMemoryInferred,
    TileOps2D,
    TileSlicesPitched,
)
from .tiled import tiled

placed = tiled.extend(
    "placed",
    "kernel tiles are <=2-D, each in a memory space its ops accept",
    guarantees={
        TileOps2D,
        KernelTensorCarriesElided,
        TileCastsNative,
        TileSlicesPitched,
        TileMemoryInferred,
        AccToGmStoreValid,
    },
)
