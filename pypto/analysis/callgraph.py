"""Callees and the call graph of a program."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TypeVar

from pypto.ir.expr import Call, Expr, GlobalVar, Submit
from pypto.ir.function import Function, Program
from pypto.util import IdentityCache

from .index import function_index


def callee(program: Program, expr: Expr) -> Function | None:
    """The program function a Call/Submit invokes, or None for op calls."""
    if isinstance(expr, (Call, Submit)) and isinstance(expr.op, GlobalVar):
        return function_named(program, expr.op.name)
    return None


def function_named(program: Program, name: str) -> Function | None:
    """``program.get_function(name)``, from a table made once per program: that method builds a
    GlobalVar key per lookup, and an orchestration or an emitter asks once per call."""
    by_name = _BY_NAME.get(program)
    if by_name is None:
        by_name = _BY_NAME.put(program, {f.name: f for f in program.functions.values()})
    return by_name.get(name)


# Each program's functions by name (programs are immutable).
_BY_NAME: IdentityCache[Program, dict[str, Function]] = IdentityCache(1_000)

T = TypeVar("T")
# The callees whose bodies are being analysed for a call of them, by id (see through_callee).
_FOLLOWING: set[int] = set()


def through_callee(target: Function, analyse: Callable[[], T], default: T) -> T:
    """``analyse()``, an analysis of ``target``'s body made for a call of it, or ``default`` when one of
    ``target`` is already being made further up: in a recursive program (NoRecursion reports it) an
    analysis following calls into their callees would go round the cycle until Python's stack ran out."""
    key = id(target)
    if key in _FOLLOWING:
        return default
    _FOLLOWING.add(key)
    try:
        return analyse()
    finally:
        _FOLLOWING.discard(key)


def names_functions(func: Function) -> bool:
    """True when a program function is named anywhere in ``func``: one that names none calls none
    (most kernels), told from its node classes alone."""
    return function_index(func).has(GlobalVar)


def function_calls(func: Function) -> list[Call | Submit]:
    """The calls and submits of program functions in ``func``, in the node index's order."""
    if not names_functions(func):  # most kernels: nothing to look at
        return []
    return [c for c in function_index(func).of(Call, Submit) if isinstance(c.op, GlobalVar)]


def calls_functions(func: Function) -> bool:
    """True when ``func`` calls (or submits) a program function, not only ops."""
    # No GlobalVar anywhere (most kernels): settled without looking at the calls.
    return names_functions(func) and any(isinstance(c.op, GlobalVar) for c in function_index(func).of(Call, Submit))


def op_name(expr: Expr) -> str | None:
    """The name of an op call (``tile.add``), or None for function calls and non-calls."""
    if isinstance(expr, (Call, Submit)) and not isinstance(expr.op, GlobalVar):
        return expr.op.name
    return None


def call_graph(program: Program, keep: Callable[[Function], bool] = lambda f: True) -> dict[str, list[str]]:
    """For each function ``keep`` selects, the sorted names of the selected functions it calls."""
    chosen = {f.name for f in program.functions.values() if keep(f)}
    graph: dict[str, list[str]] = {}
    for f in program.functions.values():
        if f.name in chosen:
            calls = {c.op.name for c in function_calls(f)}
            graph[f.name] = sorted(calls & chosen)
    return graph


def find_cycle(graph: dict[str, list[str]]) -> list[str] | None:
    """A cycle of ``graph`` as a path ``[a, b, ..., a]`` (the first in name order), or None."""
    state: dict[str, int] = {}
    for root in sorted(graph):
        if root in state:
            continue
        path, todo = [], [(root, iter(graph[root]))]
        state[root] = 1
        path.append(root)
        while todo:
            name, succ = todo[-1]
            nxt = next(succ, None)
            if nxt is None:
                state[name] = 2
                todo.pop()
                path.pop()
            elif state.get(nxt) == 1:
                return path[path.index(nxt) :] + [nxt]
            elif nxt not in state:
                state[nxt] = 1
                path.append(nxt)
                todo.append((nxt, iter(graph[nxt])))
    return None


def recursion_message(cycle: list[str]) -> str:
    """Why a call closing ``cycle`` (``[f, ..., f]``, function names) is refused: the compile's
    NoRecursion check and the interpreter say the same."""
    through = "" if len(cycle) == 2 else " through other functions"
    return (f"'{cycle[0]}' calls itself{through} ({' -> '.join(cycle)}); a function cannot be recursive: kernels "
            "and orchestrations have no call stack, so repeat the work with a loop (pl.range) instead")


class CallGraph:
    """The functions of a program by name, with the names each one refers to and, on demand, the
    reverse. A reference is any GlobalVar node, not only a call's or a submit's op (:func:`call_graph`):
    the boundary checks that use it must see every function whose body a checker may read."""

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
