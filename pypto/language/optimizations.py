"""``pl.optimizations``: the entries of ``optimizations=[...]`` under the established module name.

``pl.optimizations.split(pl.SplitMode.UP_DOWN)`` and ``pl.optimizations.cross_core_slot(slot_num=N)``
are the same parse-time constructs as ``pl.split`` / ``pl.cross_core_slot`` (:mod:`.scopes`).
"""

from .scopes import cross_core_slot, split

__all__ = ["cross_core_slot", "split"]
