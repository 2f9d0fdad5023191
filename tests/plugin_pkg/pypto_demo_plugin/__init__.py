"""A third-party pass registered through the ``pypto.passes`` entry-point group.

``MarkVisited`` runs in the ``ssa`` dialect right after ConvertToSSA and stamps every function
with ``attrs["visited_by"]``, which the printer shows as ``pl.func_attr``.
"""

from __future__ import annotations

from pypto.languages import ssa
from pypto.passes import FunctionPass

from pypto import ir

TAG = "pypto-demo-plugin"


class MarkVisited(FunctionPass):
    """Stamp each function with the plugin's name.

    before:  @pl.function                        after:  @pl.function
             def main(self, n):                          def main(self, n):
                 ...                                         pl.func_attr({"visited_by": 'pypto-demo-plugin'})
                                                             ...
    """

    name = "MarkVisited"
    source = ssa
    target = ssa
    after = "ConvertToSSA"

    def run_function(self, func: ir.Function, program: ir.Program) -> ir.Function:
        if func.attrs.get("visited_by") == TAG:
            return func
        return ir.replace(func, attrs={**func.attrs, "visited_by": TAG})
