"""The conversions the vector unit makes natively, per platform, and the shortest chain of them.

The native pairs are those of pto-isa's TCVT ("Supported Conversions", docs/isa/TCVT.md of the
pto-isa tree in shared/third_party, pinned commit cd4a3d3f), per platform. Each row lists a source
dtype's destinations in the order a chain prefers them (exact widenings first), which makes the
chosen chain deterministic when several are equally short. LegalizeTileCast splits a cast along
the chain, and the interpreter's ``tile.cast`` rounds at each of its steps.
"""

from __future__ import annotations

from collections import deque

from pypto.ir.datatype import DataType

D = DataType

# TCVT destinations per source dtype (docs/isa/TCVT.md, "A2A3 Destinations"). S4 is left out: no
# PyPTO tile holds int4 elements.
A2A3_CASTS: dict[DataType, tuple[DataType, ...]] = {
    D.FP32: (D.FP16, D.BF16, D.INT32, D.INT16, D.INT64),
    D.FP16: (D.FP32, D.INT32, D.INT16, D.INT8, D.UINT8),
    D.BF16: (D.FP32, D.INT32),
    D.INT16: (D.FP32, D.FP16),
    D.INT32: (D.FP32, D.INT64, D.INT16, D.FP16),
    D.INT64: (D.FP32, D.INT32),
    D.UINT8: (D.FP16,),
    D.INT8: (D.FP16,),
}

# "A5 Destinations": A5 adds the FP8/HiF8/FP4 conversions and more integer ones, drops INT32 -> FP16.
A5_CASTS: dict[DataType, tuple[DataType, ...]] = {
    D.FP32: (D.FP16, D.BF16, D.INT32, D.INT16, D.INT64, D.FP8E4M3FN, D.FP8E5M2, D.HF8),
    D.FP16: (D.FP32, D.INT32, D.INT16, D.INT8, D.UINT8, D.HF8),
    D.BF16: (D.FP32, D.INT32, D.FP16),
    D.INT16: (D.FP32, D.INT32, D.UINT32, D.FP16, D.UINT8),
    D.INT32: (D.FP32, D.INT64, D.INT16, D.UINT16, D.UINT8),
    D.INT64: (D.FP32, D.INT32),
    D.UINT8: (D.FP16, D.UINT16),
    D.INT8: (D.INT16, D.INT32, D.FP16),
    D.UINT32: (D.UINT16, D.INT16, D.UINT8),
    D.FP8E4M3FN: (D.FP32,),
    D.FP8E5M2: (D.FP32,),
    D.HF8: (D.FP32,),
}

NATIVE_CASTS = {"a2a3": A2A3_CASTS, "a5": A5_CASTS}


def cast_chain(src: DataType, dst: DataType, table: dict[DataType, tuple[DataType, ...]]) -> list[DataType] | None:
    """The dtypes after each step of the shortest native chain from ``src`` to ``dst`` (ending in
    ``dst``; ``[dst]`` for a native pair), or None when ``dst`` cannot be reached."""
    previous: dict[DataType, DataType | None] = {src: None}
    queue = deque([src])
    while queue:
        here = queue.popleft()
        if here == dst:
            chain = []
            while here != src:
                chain.append(here)
                here = previous[here]
            return chain[::-1]
        for nxt in table.get(here, ()):
            if nxt not in previous:
                previous[nxt] = here
                queue.append(nxt)
    return None
