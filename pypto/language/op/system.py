"""``pl.system``: synchronisation, barriers, task ids (docs/ops.md#system-ops) and the cross-core pipe ops (§7).

The cross-core functions (``tpush_to_aiv``, ``tpop_from_aic``, ... of IR namespace ``tile``) are
also here, as in the reference API; ``AUTO`` (-1) asks the planner to place a reserved buffer.
"""

from __future__ import annotations

from pypto.ir.op import system as _builders

from . import tile as _tile
from .binding import bind_module

AUTO = -1

__all__ = bind_module(globals(), _builders) + ["AUTO"]
for _name in ("tpush_to_aiv", "tpush_to_aic", "tpop_from_aic", "tpop_from_aiv"):
    globals()[_name] = getattr(_tile, _name)
    __all__.append(_name)
