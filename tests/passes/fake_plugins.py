"""Pass classes the plugin tests load through hand-made entry points."""

from __future__ import annotations

from pypto.languages import ssa, surface
from pypto.passes import FunctionPass

from pypto import ir


class _Identity(FunctionPass):
    def run_function(self, func: ir.Function, program: ir.Program) -> ir.Function:
        return func


class Tidy(_Identity):
    """A well-formed ssa -> ssa plugin placed after Simplify."""

    name = "Tidy"
    source = ssa
    target = ssa
    after = "Simplify"


class TidyAgain(Tidy):
    """Another distribution's pass that also calls itself Tidy."""


class Misnamed(_Identity):
    name = "SomethingElse"


class Shadow(_Identity):
    name = "Simplify"


class Both(_Identity):
    name = "Both"
    after = "Simplify"
    before = "ConvertToSSA"


class Lost(_Identity):
    name = "Lost"
    after = "NoSuchPass"


class Early(_Identity):
    """Expects ssa but asks to run right after InlineFunctions (still surface)."""

    name = "Early"
    source = ssa
    target = ssa
    after = "InlineFunctions"


class First(_Identity):
    name = "First"
    source = surface
    target = surface
    before = "InlineFunctions"


def not_a_pass() -> int:
    return 3
