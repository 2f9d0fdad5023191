"""IR builders of the registered ops: ``ir.op.tensor``, ``ir.op.tile``, ``ir.op.system``, ``ir.op.array``.

Each function takes Exprs plus Python ints/floats/lists (normalised per docs/ops.md#arguments) and an optional
``span=`` (captured from the caller when omitted), and returns a typed ``Call``.
"""

from . import array, system, tensor, tile

__all__ = ["array", "system", "tensor", "tile"]
