"""``pl.array``: on-core arrays (docs/ops.md#array-ops): ``create``, ``get_element``, ``update_element``."""

from pypto.ir.op import array as _builders

from .binding import bind_module

__all__ = bind_module(globals(), _builders)
