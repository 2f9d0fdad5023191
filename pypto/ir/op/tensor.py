"""``ir.op.tensor``: builders of the ``tensor.*`` ops (docs/ops.md#tensor-ops), e.g. ``tensor.add(a, b)``."""

from .builder import dim_first_dispatcher, mrgsort_dispatcher, pick_scalar_forms, populate

__all__ = populate(globals(), "tensor")
pick_scalar_forms(globals(), ("add", "sub", "mul", "div", "and_", "or_", "shl", "shr"))
scatter_update = dim_first_dispatcher(globals()["scatter_update"])

# The established one-name spelling (not a builder of its own: it picks format 1 or 2).
mrgsort = mrgsort_dispatcher("tensor.mrgsort", globals()["mrgsort_format1"], globals()["mrgsort_format2"])
