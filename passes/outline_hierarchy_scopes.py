"""OutlineHierarchyScopes: each ``pl.at(level=HOST|CHIP|..., role=...)`` scope of an Opaque function
becomes an Opaque function tagged with the level and role (docs/passes.md#outlinehierarchyscopes)."""

from __future__ import annotations

from pypto.languages.invariants import HierarchyOutlined, OrchestrationReferencesResolved
from pypto.languages.ssa import ssa

from pypto.analysis import function_index
from pypto.ir.enums import FunctionType, Role
from pypto.ir.function import Function
from pypto.ir.stmt import HierarchyScopeStmt

from .outlining import Outliner
from pypto.transform.rewrite import Result, on

_ROLE_WORD = {Role.Orchestrator: "orch", Role.SubWorker: "worker"}


class OutlineHierarchyScopes(Outliner):
    """Outline each hierarchy scope of an Opaque function; inner scopes first, parent type kept.

    Named ``{parent}_{level}[_{role}]_{n}`` (or ``name_hint=``); parameters are the live-ins,
    returns the values read after the scope::

        before:  with pl.at(level=pl.Level.HOST, role=pl.Role.Orchestrator):     after:  y = self.main_host_orch_0(x)
                     y = pl.add(x, x)
        # @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
        # def main_host_orch_0(self, x): y = pl.tensor.add(x, x); return y
    """

    source = ssa
    target = ssa
    produces = frozenset({HierarchyOutlined, OrchestrationReferencesResolved})
    exports_stores = False

    def applies(self, func: Function) -> bool:
        return func.func_type is FunctionType.Opaque and function_index(func).has(HierarchyScopeStmt)

    @on(HierarchyScopeStmt)
    def _scope(self, node: HierarchyScopeStmt) -> Result:
        word = node.level.name.lower() + (f"_{_ROLE_WORD[node.role]}" if node.role is not None else "")
        name = self.hinted(node.name_hint) if node.name_hint else self.fresh(f"{self.parent}_{word}")
        body = self.outline_body(node, name)
        return self.outline(node, body, name, FunctionType.Opaque, level=node.level, role=node.role)
