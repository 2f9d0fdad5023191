"""A third-party pass and dialect, registered through the ``pypto.passes`` and ``pypto.dialects``
entry-point groups.

``MarkVisited`` runs in the ``ssa`` dialect right after ConvertToSSA and stamps every function
with ``attrs["visited_by"]``, which the printer shows as ``pl.func_attr``. The ``visited`` dialect
is ``ssa`` plus the guarantee that every function carries the stamp (a required attribute).
"""

from __future__ import annotations

from pypto.languages import ssa
from pypto.languages.invariants import Invariant
from pypto.languages.invariants.grammar import Attr
from pypto.passes import FunctionPass

from pypto import ir

TAG = "pypto-demo-plugin"

Visited = Invariant.declared(
    "Visited",
    "every function carries attrs['visited_by']",
    Attr(
        of=ir.Function,
        key="visited_by",
        equals=TAG,
        code="NOT_VISITED",
        message="function '{func}' has no visited_by stamp",
    ),
)

visited = ssa.extend("visited", "ssa, every function stamped by the demo plugin", guarantees={Visited})


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
