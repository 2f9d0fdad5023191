"""A program rebuilt with new versions of its functions, keeping its ``GlobalVar`` keys."""

from __future__ import annotations

from collections.abc import Sequence

from pypto.ir.function import Function, Program
from pypto.ir.parts import copy_parts


def with_functions(program: Program, funcs: Sequence[Function]) -> Program:
    """``program`` with ``funcs``, one per function of ``program`` in its order (``program`` itself
    when each is the same object).

    When each new function keeps the name of the one it replaces, the program is a copy holding the
    old keys (sorted by name, each naming its function, as the constructor makes them): the
    constructor would build and validate a ``GlobalVar`` per function and sort them again. Otherwise
    the constructor builds the program.
    """
    old = program.functions
    if len(funcs) != len(old):
        raise ValueError(f"with_functions: {len(funcs)} functions for a program of {len(old)}")
    if all(a is b for a, b in zip(funcs, old.values())):
        return program
    # (a pass's result that is not a Function goes to the constructor, which reports it)
    if all(type(f) is Function and f.name == gv.name for f, gv in zip(funcs, old)):
        return copy_parts(program, {"functions": dict(zip(old, funcs))})
    return Program(list(funcs), program.name, program.span)

