"""Compile options of the established API that pypto accepts by name: the memory planner.

pypto plans on-chip memory with its own passes (``init_memref``, ``memory_reuse``,
``allocate_memory_addr``): that is the established ``PYPTO`` planner. ``DSA_RP`` and ``PTOAS``
hand planning to the external ptoas assembler, which pypto does not use.
"""

from __future__ import annotations

import enum

from pypto.ir.errors import PyptoError


class MemoryPlanner(enum.Enum):
    """Who plans on-chip memory: ``PYPTO`` (pypto's passes), ``DSA_RP`` or ``PTOAS`` (ptoas; not here)."""

    PYPTO = "PYPTO"
    DSA_RP = "DSA_RP"
    PTOAS = "PTOAS"


class UnsupportedOptionError(PyptoError, ValueError):
    """A compile option names something pypto cannot do."""


def memory_planner(value: object) -> MemoryPlanner:
    """``value`` (None, a :class:`MemoryPlanner`, or its name) as a planner pypto runs.

    ``UnsupportedOptionError`` for ``DSA_RP``/``PTOAS`` and for anything that names no planner.
    """
    if value is None:
        return MemoryPlanner.PYPTO
    name = getattr(value, "name", value)
    try:
        planner = MemoryPlanner(name)
    except ValueError:
        names = ", ".join(p.name for p in MemoryPlanner)
        raise UnsupportedOptionError(f"unknown memory_planner {value!r} (use one of {names})") from None
    if planner is not MemoryPlanner.PYPTO:
        raise UnsupportedOptionError(
            f"memory_planner={planner.name} hands memory planning to the ptoas assembler, which pypto does not use\n"
            "  hint: pass memory_planner=MemoryPlanner.PYPTO (or None): pypto plans memory with its own passes"
        )
    return planner
