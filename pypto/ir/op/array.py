"""``ir.op.array``: builders of the ``array.*`` ops (ops.md §8)."""

from .builder import populate

__all__ = populate(globals(), "array")
