"""``ir.op.tensor``: builders of the ``tensor.*`` ops (docs/ops.md#tensor-ops), e.g. ``tensor.add(a, b)``."""

from .builder import pick_scalar_forms, populate

__all__ = populate(globals(), "tensor")
pick_scalar_forms(globals(), ("add", "sub", "mul", "div"))
