"""The default pipeline: the implemented passes in spec order, plus installed plugin passes.

Only the front of spec/passes.md §3 is implemented so far (passes 1-7, surface -> ssa); later
passes extend ``builtin_passes`` in order.
"""

from __future__ import annotations

import enum

from .base import Pass
from .convert_to_ssa import ConvertToSSA
from .ctrl_flow_transform import CtrlFlowTransform
from .flatten_call_expr import FlattenCallExpr
from .inline_functions import InlineFunctions
from .normalize_stmt_structure import NormalizeStmtStructure
from .plugins import discover, insert
from .simplify import Simplify
from .unroll_loops import UnrollLoops


class OptimizationStrategy(enum.Enum):
    """Which pipeline ``PassManager.get_strategy`` builds."""

    Default = "Default"


def builtin_passes() -> list[Pass]:
    """Fresh instances of the built-in passes, in pipeline order."""
    return [
        InlineFunctions(),
        UnrollLoops(),
        CtrlFlowTransform(),
        ConvertToSSA(),
        Simplify(),
        NormalizeStmtStructure(),
        FlattenCallExpr(),
    ]


def default_passes(strategy: OptimizationStrategy = OptimizationStrategy.Default, plugins: bool = True) -> list[Pass]:
    """The pipeline of ``strategy``, with the installed plugin passes inserted at their positions."""
    OptimizationStrategy(strategy)
    passes = builtin_passes()
    if not plugins:
        return passes
    return insert(passes, discover(builtin=[p.name for p in passes]).values())
