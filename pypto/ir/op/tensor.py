"""``ir.op.tensor``: builders of the ``tensor.*`` ops (ops.md §4), e.g. ``tensor.add(a, b)``."""

from .builder import populate

__all__ = populate(globals(), "tensor")
