"""Callees and the call graph of a program."""

from __future__ import annotations

from collections.abc import Callable

from pypto.ir.expr import Call, Expr, GlobalVar, Submit
from pypto.ir.function import Function, Program
from pypto.util import IdentityCache

from .index import function_index


def callee(program: Program, expr: Expr) -> Function | None:
    """The program function a Call/Submit invokes, or None for op calls."""
    if isinstance(expr, (Call, Submit)) and isinstance(expr.op, GlobalVar):
        by_name = _BY_NAME.get(program)
        if by_name is None:  # program.get_function builds a GlobalVar key per lookup
            by_name = _BY_NAME.put(program, {f.name: f for f in program.functions.values()})
        return by_name.get(expr.op.name)
    return None


# Each program's functions by name (programs are immutable; an orchestration asks once per call).
_BY_NAME: IdentityCache[Program, dict[str, Function]] = IdentityCache(1_000)


def calls_functions(func: Function) -> bool:
    """True when ``func`` calls (or submits) a program function, not only ops."""
    index = function_index(func)
    # No GlobalVar anywhere (most kernels): settled without looking at the calls.
    return index.has(GlobalVar) and any(isinstance(call.op, GlobalVar) for call in index.of(Call, Submit))


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
            calls = {c.op.name for c in function_index(f).of(Call, Submit) if isinstance(c.op, GlobalVar)}
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
