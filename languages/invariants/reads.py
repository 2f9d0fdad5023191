"""What a per-function checker reads of the other functions of the program, and who calls whom.

A cached check result of a function is reused while the function is the same object and what the
checker read elsewhere is unchanged. Checkers that read other functions' bodies declare which ones
with :class:`Bodies` (``Invariant.per_function(..., reads_bodies=Bodies(callees=True))``): the
result of a function is then reused while those functions are the same objects, so a change to an
unrelated function does not run the checker again.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass

from pypto.analysis import function_index
from pypto.ir.enums import FunctionType
from pypto.ir.expr import GlobalVar
from pypto.ir.function import Function
from pypto.util import IdentityCache


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


class CallGraph:
    """The functions of a program by name, with the names each one refers to (its GlobalVar
    nodes: the functions it calls or submits) and, on demand, the reverse."""

    def __init__(self, functions: Iterable[Function]) -> None:
        self.functions: dict[str, Function] = {f.name: f for f in functions}
        self._callers: dict[str, list[str]] | None = None

    def callees(self, func: Function) -> tuple[str, ...]:
        """The names of the functions ``func`` refers to, each once (cached per function object)."""
        hit = _CALLEES.entries.get(id(func))
        if hit is not None:
            return hit[1]
        index = function_index(func)
        names = tuple(dict.fromkeys(g.name for g in index.of(GlobalVar))) if index.has(GlobalVar) else ()
        return _CALLEES.put(func, names)

    def add_callees(self, func: Function, found: dict[str, None]) -> None:
        """Add to ``found`` the functions ``func`` refers to, transitively."""
        stack = [func]
        while stack:
            for name in self.callees(stack.pop()):
                if name not in found:
                    found[name] = None
                    callee = self.functions.get(name)
                    if callee is not None:
                        stack.append(callee)

    def callers(self, name: str) -> list[str]:
        """The functions that refer to ``name``, in program order."""
        if self._callers is None:
            self._callers = {}
            for func in self.functions.values():
                for callee in self.callees(func):
                    self._callers.setdefault(callee, []).append(func.name)
        return self._callers.get(name, [])


# CallGraph.callees by function object.
_CALLEES: IdentityCache[Function, tuple[str, ...]] = IdentityCache(20_000)


def clear_call_names() -> None:
    """Forget the cached callee names."""
    _CALLEES.clear()
