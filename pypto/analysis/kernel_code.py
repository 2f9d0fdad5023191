"""Which calls run on a core: all of a kernel function's, and in other functions those inside the
scopes that are outlined into kernels (``pl.at``, ``pl.spmd``, ``pl.cluster``, ``pl.split_aiv``).

The one definition behind both refusals at compile start: ops only the orchestration prints are
refused in kernel code (``codegen/unsupported.py``), data-moving tensor ops outside it
(``codegen/orchestration_refused.py``). Hierarchy, communication-domain and runtime scopes
(``pl.scope``, ``pl.manual_scope``) run where their function runs.
"""

from __future__ import annotations

from pypto.ir.enums import KERNEL_FUNCTION_TYPES
from pypto.ir.expr import Call
from pypto.ir.function import Function
from pypto.ir.stmt import ClusterScopeStmt, InCoreScopeStmt, SplitAivScopeStmt, SpmdScopeStmt

from .index import function_index, walk

KERNEL_FUNCTIONS = KERNEL_FUNCTION_TYPES
KERNEL_SCOPES = (InCoreScopeStmt, SpmdScopeStmt, ClusterScopeStmt, SplitAivScopeStmt)


def placed_calls(func: Function) -> list[tuple[Call, bool]]:
    """Each call of ``func`` in the node index's pre-order (source order, a loop's initial values after its
    body), with whether it runs in a kernel."""
    # Read off the node index the boundary checks share, not a walk of every node and type of the body:
    # a scope's nodes are the ones right after it in the index's pre-order, as many as walk(scope) has.
    index = function_index(func)
    calls = index.of(Call)
    if func.func_type in KERNEL_FUNCTIONS:
        return [(call, True) for call in calls]
    ends: list[tuple[int, int]] = []  # [first, end) position ranges of the outermost kernel scopes
    for first in index.positions(*KERNEL_SCOPES):
        if not ends or first >= ends[-1][1]:  # a scope nested in the previous one is inside it already
            ends.append((first, first + len(walk(index.nodes[first]))))
    if not ends:
        return [(call, False) for call in calls]
    placed: list[tuple[Call, bool]] = []
    k = 0
    for call, at in zip(calls, index.positions(Call)):
        while k < len(ends) and ends[k][1] <= at:
            k += 1
        placed.append((call, k < len(ends) and ends[k][0] < at))
    return placed


__all__ = ["KERNEL_FUNCTIONS", "KERNEL_SCOPES", "placed_calls"]
