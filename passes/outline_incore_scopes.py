"""OutlineIncoreScopes: each ``pl.at(level=CORE_GROUP)`` scope becomes an InCore function and its
dispatch (docs/passes.md#outlineincorescopes)."""

from __future__ import annotations

from pypto.languages.invariants import AivSplitValid, SplitIncoreOrch
from pypto.languages.ssa import ssa

from pypto.analysis import function_index, walk
from pypto.ir.enums import FunctionType, SplitMode
from pypto.ir.function import Function
from pypto.ir.stmt import InCoreScopeStmt, SplitAivScopeStmt

from .outlining import Outliner
from pypto.transform.rewrite import Result, on

_KERNELS = (FunctionType.InCore, FunctionType.AIC, FunctionType.AIV)


class OutlineIncoreScopes(Outliner):
    """Outline each InCore scope of a non-kernel function into an ``InCore`` function.

    Live-ins become parameters (a captured tensor written inside becomes ``Out``, or ``InOut`` if
    also read), values read after the scope become param-explicit returns; ``split``,
    ``slot_num`` and split-aiv regions become function attrs; ``as tid``, ``deps=`` and
    ``allow_early_resolve`` make the dispatch a Submit, ``no_dep_args=`` marks arguments NoDep.
    An Opaque parent that outlined a scope becomes Orchestration (``tensor.dim`` of a parameter's
    dynamic axis folded onto its symbol)::

        before:  def main(self, x, out):
                     with pl.at(level=pl.Level.CORE_GROUP):
                         y = pl.add(x, x)
                         out__ssa_v0 = pl.assemble(out, y, [0, 0])
                     return out__ssa_v0

        after:   def main_incore_0(x, out: pl.Out[...]):        # InCore
                     y = pl.tensor.add(x, x)
                     out__ssa_v0 = pl.tensor.assemble(out, y, [0, 0])
                     return out
                 def main(self, x, out):                         # Orchestration
                     out__ssa_v0 = self.main_incore_0(x, out)
                     return out__ssa_v0
    """

    source = ssa
    target = ssa
    produces = frozenset({SplitIncoreOrch, AivSplitValid})
    orchestrates = True

    def applies(self, func: Function) -> bool:
        return func.func_type not in _KERNELS and function_index(func).has(InCoreScopeStmt)

    @on(InCoreScopeStmt)
    def _scope(self, node: InCoreScopeStmt) -> Result:
        name = self.hinted(node.name_hint) if node.name_hint else self.fresh(f"{self.parent}_incore")
        body = self.outline_body(node, name)
        attrs: dict[str, object] = {}
        if node.split is not SplitMode.NONE:
            attrs["split"] = node.split
        # The rewrite makes no split-aiv region: a function without one has none to walk for.
        regions = ([n for n in walk(body) if isinstance(n, SplitAivScopeStmt)]
                   if function_index(self.func).has(SplitAivScopeStmt) else [])
        if regions:
            if node.split is not SplitMode.NONE:
                raise self.error(
                    f"pl.split({node.split.name}) on a pl.at scope that also holds pl.split_aiv regions",
                    regions[0].span,
                    "split the vector work either automatically (pl.split) or by hand (pl.split_aiv), not both",
                )
            attrs["split_aiv"] = True
        if "slot_num" in node.attrs:
            attrs["slot_num"] = node.attrs["slot_num"]
        no_dep = list(node.attrs.get("no_dep_args", []))
        return self.outline(node, body, name, FunctionType.InCore, func_attrs=attrs, no_dep=no_dep)
