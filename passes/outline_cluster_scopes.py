"""OutlineClusterScopes: ``pl.cluster()`` bodies become Group functions, ``pl.spmd`` scopes outside
clusters become Spmd functions; the launch spec goes on the dispatch (docs/passes.md#outlineclusterscopes)."""

from __future__ import annotations

from pypto.languages.invariants import ClusterOutlined
from pypto.languages.outlined import outlined
from pypto.languages.ssa import ssa

from pypto.analysis import function_index, walk
from pypto.ir.enums import FunctionType
from pypto.ir.expr import Call, GlobalVar, Submit
from pypto.ir.function import Function
from pypto.ir.stmt import ClusterScopeStmt, SpmdScopeStmt
from pypto.ir.transforms import flatten_to_stmts

from .outlining import Outliner
from pypto.transform.rewrite import Result, on

_IN_CLUSTER = "in_cluster"  # env fact: the statements are inside a pl.cluster() body


class OutlineClusterScopes(Outliner):
    """Outline clusters into ``Group`` functions and top-level spmd scopes into ``Spmd`` functions.

    The dispatch carries ``attrs["core_num"]`` (and ``sync_start`` when true), or is a Submit with
    those fields when the scope binds a TaskId or has deps / a predicate / early resolve. A cluster
    whose body is one spmd becomes a Group marked ``spmd_unwrapped``: the spmd body is the Group
    body and its launch spec moves to the Group's call::

        before:  for i in pl.spmd(4):                 after:  y = self.main_incore_0_spmd(x, out)   # attrs core_num=4
                     y = self.main_incore_0(x, out)   # def main_incore_0_spmd(self, x, out: pl.Out[...]):  # Spmd
                                                      #     y = self.main_incore_0(x, out); return out

    An Spmd function without a ``name_hint`` is named ``<kernel>_spmd`` after the one program
    function its body dispatches (``<parent>_spmd`` when it dispatches none or several), with
    ``<stem>_<n>_spmd`` for the first free ``n`` when that name is taken: the established API's
    synthesized spmd names end in ``_spmd``.
    """

    source = ssa
    target = outlined
    produces = frozenset({ClusterOutlined})
    orchestrates = True

    def applies(self, func: Function) -> bool:
        return func.func_type not in (FunctionType.Group, FunctionType.Spmd) and function_index(func).has(
            ClusterScopeStmt, SpmdScopeStmt)

    @on(ClusterScopeStmt)
    def _cluster(self, node: ClusterScopeStmt) -> Result:
        name = self.hinted(node.name_hint) if node.name_hint else self.fresh(f"{self.parent}_cluster")
        body = self.outline_body(node, name, {_IN_CLUSTER: True})
        inner = flatten_to_stmts(body)
        if len(inner) == 1 and isinstance(inner[0], SpmdScopeStmt):
            spmd = inner[0]
            return self.outline(node, spmd.body, name, FunctionType.Group, func_attrs={"spmd_unwrapped": True},
                                launch=_launch(spmd))
        return self.outline(node, body, name, FunctionType.Group)

    @on(SpmdScopeStmt)
    def _spmd(self, node: SpmdScopeStmt) -> Result:
        if self.env.get(_IN_CLUSTER):
            return self.children(node)
        name = self.hinted(node.name_hint) if node.name_hint else self._spmd_name(node)
        body = self.outline_body(node, name)
        return self.outline(node, body, name, FunctionType.Spmd, launch=_launch(node))

    def _spmd_name(self, node: SpmdScopeStmt) -> str:
        kernels = {n.op.name for n in walk(node.body) if isinstance(n, (Call, Submit)) and isinstance(n.op, GlobalVar)}
        stem = kernels.pop() if len(kernels) == 1 else self.parent
        name, n = f"{stem}_spmd", 0
        while not self.available(name):
            name, n = f"{stem}_{n}_spmd", n + 1
        return self.reserve(name)


def _launch(node: SpmdScopeStmt) -> dict[str, object]:
    return {"core_num": node.core_num, "sync_start": node.sync_start}
