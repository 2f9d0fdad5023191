"""The default pipeline and the pass manager that runs pipelines.

It sits above :mod:`pypto.passes` (the default pipeline lists the passes; the manager names them
in its hints), which re-exports these names on first use.

* :mod:`.default`: ``OptimizationStrategy``, ``front_passes``, ``lowering_passes``,
  ``builtin_passes``, ``default_passes`` (built-in passes plus installed plugins);
* :mod:`.manager`: ``PassManager``, ``PassDumpLevel``, ``check_order``.
"""

from .default import OptimizationStrategy, builtin_passes, default_passes, front_passes, lowering_passes
from .manager import PassDumpLevel, PassManager, check_order

__all__ = [
    "OptimizationStrategy",
    "PassDumpLevel",
    "PassManager",
    "builtin_passes",
    "check_order",
    "default_passes",
    "front_passes",
    "lowering_passes",
]
