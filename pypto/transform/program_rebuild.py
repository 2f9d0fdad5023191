"""A program rebuilt with new versions of its functions, keeping its ``GlobalVar`` keys."""

from __future__ import annotations

import operator
from collections.abc import Sequence

from pypto.ir.function import Function, Program
from pypto.ir.parts import copy_parts

_NAME = operator.attrgetter("name")
_FUNCTION = {Function}


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
    if all(map(operator.is_, funcs, old.values())):  # C-level loops: a pass calls this once per program
        return program
    # (a pass's result that is not a Function goes to the constructor, which reports it)
    if set(map(type, funcs)) == _FUNCTION and list(map(_NAME, funcs)) == list(map(_NAME, old)):
        return copy_parts(program, {"functions": dict(zip(old, funcs))})
    return Program(list(funcs), program.name, program.span)

