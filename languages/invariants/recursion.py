"""NoRecursion: no function calls itself, directly or through other functions.

Kernels and orchestrations have no call stack: a kernel call is inlined into a task, an orchestration
call submits tasks, so a recursive program has no meaning to lower (and would not terminate).
Inline functions are left to InlineFunctions, which names their cycles; a cycle through an Inline
function into another function is reported at that function.
"""

from __future__ import annotations

from collections import deque

from pypto.analysis.callgraph import function_calls, function_named, names_functions, recursion_message
from pypto.ir.enums import FunctionType
from pypto.ir.function import Function, Program

from .base import Invariant, Reporter
from .reads import Bodies


def _path(program: Program, start: str, target: str) -> list[str] | None:
    """The shortest call path ``[start, ..., target]`` from function ``start`` to ``target``, or None."""
    parents: dict[str, str | None] = {start: None}
    todo = deque([start])
    while todo:
        name = todo.popleft()
        func = function_named(program, name)
        for call in function_calls(func) if func is not None else ():
            callee = call.op.name
            if callee == target:
                path = [target, name]
                while parents[path[-1]] is not None:
                    path.append(parents[path[-1]])
                return path[::-1]
            if callee not in parents:
                parents[callee] = name
                todo.append(callee)
    return None


def _reaches(program: Program, starts: set[str], target: str) -> bool:
    """True when function ``target`` is one of ``starts`` or called from one, through any calls."""
    seen = set(starts)
    todo = list(seen)
    while todo:
        name = todo.pop()
        if name == target:
            return True
        func = function_named(program, name)
        for call in function_calls(func) if func is not None else ():
            if call.op.name not in seen:
                seen.add(call.op.name)
                todo.append(call.op.name)
    return False


def _calls_nothing(func: Function) -> bool:
    """NoRecursion's idle test: an Inline function (see the module), or one naming no function."""
    return func.func_type is FunctionType.Inline or not names_functions(func)


def _check_recursion(func: Function, program: Program, report: Reporter) -> None:
    if _calls_nothing(func):
        return
    calls = function_calls(func)
    # One search from all the callees settles most functions (an orchestration calls many kernels);
    # the shortest path is looked for call by call only in a function on a cycle.
    if not calls or not _reaches(program, {call.op.name for call in calls}, func.name):
        return
    for call in calls:
        callee = call.op.name
        rest = [func.name] if callee == func.name else _path(program, callee, func.name)
        if rest is None:
            continue
        path = [func.name, *rest]
        report.error("RECURSIVE_CALL", recursion_message(path), call)
        return  # one report per function: the first call that closes a cycle


NoRecursion = Invariant.per_function(
    "NoRecursion",
    "no function calls itself, directly or through other functions (Inline functions: see InlineFunctions)",
    _check_recursion,
    reads_bodies=Bodies(callees=True),  # the calls of its callees, through theirs
    idle_if=_calls_nothing,
)
