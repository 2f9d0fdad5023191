"""``pypto.ir.pass_manager``: the established module path of the pass manager (a re-export).

The pass manager lives in :mod:`pypto.pipeline.manager` (with the pipeline of
:mod:`pypto.pipeline.default`); code written as ``from pypto.ir.pass_manager import PassManager,
OptimizationStrategy`` gets the same classes. ``pypto.ir`` offers these names too
(``ir.PassManager.get_strategy(ir.OptimizationStrategy.Default)``). The passes build on
``pypto.ir``, so the names are looked up on first use.
"""

from typing import Any

__all__ = ["OptimizationStrategy", "PassDumpLevel", "PassManager", "VerificationLevel"]


def __getattr__(name: str) -> Any:
    if name == "VerificationLevel":
        from pypto.transform.context import VerifyLevel

        return VerifyLevel
    if name in ("PassManager", "PassDumpLevel"):
        from pypto.pipeline import manager

        return getattr(manager, name)
    if name == "OptimizationStrategy":
        from pypto.pipeline.default import OptimizationStrategy

        return OptimizationStrategy
    raise AttributeError(f"module 'pypto.ir.pass_manager' has no attribute '{name}'")
