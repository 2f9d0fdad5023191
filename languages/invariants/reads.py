"""What a per-function checker reads of the other functions of the program.

A cached check result of a function is reused while the function is the same object and what the
checker read elsewhere is unchanged. Checkers that read other functions' bodies declare which ones
with :class:`Bodies` (``Invariant.per_function(..., reads_bodies=Bodies(callees=True))``): the
result of a function is then reused while those functions are the same objects, so a change to an
unrelated function does not run the checker again.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from pypto.analysis.callgraph import CallGraph
from pypto.ir.enums import FunctionType
from pypto.ir.function import Function


@dataclass(frozen=True, eq=False)  # compared and hashed by identity: a declaration is one object
class Bodies:
    """The functions whose bodies a per-function checker reads when it checks a function ``f``
    (besides every function's signature: names, kinds and parameter directions).

    ``callees``: the functions ``f`` names, the functions they name, and so on. ``callers``: the
    functions that name ``f``. ``group_peers``: the Group functions that name ``f`` and the functions
    those name. ``of``: the kinds of ``f`` for which the checker reads them (empty: every kind); for
    the other kinds it reads signatures only.

    The listed set must hold every function whose body can change the result, and each listed
    function must be found again in a changed program: "the callers of f" is exact because a
    function that starts to call ``f`` joins the list.
    """

    callees: bool = False
    callers: bool = False
    group_peers: bool = False
    of: Collection[FunctionType] = frozenset()

    def __post_init__(self) -> None:
        object.__setattr__(self, "of", frozenset(self.of))  # a set given is kept as a frozenset (hashable)
        # What the declaration says, as a key: equal declarations read the same functions.
        object.__setattr__(self, "value", (self.callees, self.callers, self.group_peers, self.of))

    def read_for(self, func: Function, graph: CallGraph) -> list[Function]:
        """The functions of ``graph``'s program whose bodies a check of ``func`` reads, in a fixed
        order (the program and ``func`` decide it)."""
        if self.of and func.func_type not in self.of:
            return []
        found: dict[str, None] = {}
        if self.callees:
            graph.add_callees(func, found)
        if self.callers or self.group_peers:
            for name in graph.callers(func.name):
                caller = graph.functions[name]
                if self.callers:
                    found[name] = None
                if self.group_peers and caller.func_type is FunctionType.Group:
                    found[name] = None
                    found.update(dict.fromkeys(graph.callees(caller)))
        functions = graph.functions
        return [functions[name] for name in found if name in functions]
