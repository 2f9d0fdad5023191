"""Which calls run on a core: all of a kernel function's, and in other functions those inside the
scopes that are outlined into kernels (``pl.at``, ``pl.spmd``, ``pl.cluster``, ``pl.split_aiv``).

The one definition behind both refusals at compile start: ops only the orchestration prints are
refused in kernel code (``codegen/unsupported.py``), data-moving tensor ops outside it
(``codegen/orchestration_refused.py``). Hierarchy, communication-domain and runtime scopes
(``pl.scope``, ``pl.manual_scope``) run where their function runs.
"""

from __future__ import annotations

from collections.abc import Iterator

from pypto.ir.enums import FunctionType
from pypto.ir.expr import Call
from pypto.ir.function import Function
from pypto.ir.stmt import ClusterScopeStmt, InCoreScopeStmt, SplitAivScopeStmt, SpmdScopeStmt
from pypto.ir.traversal import iter_children

KERNEL_FUNCTIONS = frozenset({FunctionType.InCore, FunctionType.AIC, FunctionType.AIV})
KERNEL_SCOPES = (InCoreScopeStmt, SpmdScopeStmt, ClusterScopeStmt, SplitAivScopeStmt)


def placed_calls(func: Function) -> Iterator[tuple[Call, bool]]:
    """Each call of ``func`` in source order, with whether it runs in a kernel."""
    stack: list[tuple[object, bool]] = [(func.body, func.func_type in KERNEL_FUNCTIONS)]
    while stack:
        node, inside = stack.pop()
        inside = inside or isinstance(node, KERNEL_SCOPES)
        if isinstance(node, Call):
            yield node, inside
        stack.extend((child, inside) for child in reversed(list(iter_children(node))))


__all__ = ["KERNEL_FUNCTIONS", "KERNEL_SCOPES", "placed_calls"]
