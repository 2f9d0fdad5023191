"""``ir.op.array``: builders of the ``array.*`` ops (docs/ops.md#array-ops)."""

from .builder import populate

__all__ = populate(globals(), "array")
