"""Programs: the functions of a ``@pl.program`` class plus the external functions they call."""

from __future__ import annotations

from pypto import ir
from pypto.ir import Span

from .diagnostics import InvalidOperationError, ParserSyntaxError
from .functions import Signature, parse_function


class ProgramContext:
    """What the bodies of a program's functions can call: its functions (by signature) and the
    external ``@pl.function`` s they use (each added to the program once, named by ``.name``)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.signatures: dict[str, Signature] = {}
        self.externals: dict[str, ir.Function] = {}

    def add_signature(self, sig: Signature, span: Span) -> None:
        """Record a function of the program; a second function of the same name is an error."""
        if sig.name in self.signatures:
            raise ParserSyntaxError(
                f"function '{sig.name}' is defined twice",
                span,
                "give each function of a program its own name",
            )
        self.signatures[sig.name] = sig

    def signature(self, name: str) -> Signature | None:
        """The signature of the program function ``name``."""
        return self.signatures.get(name)

    def use_external(self, func: ir.Function, span: Span) -> None:
        """Record a call of the external function ``func``; name clashes are errors."""
        if func.name in self.signatures:
            raise InvalidOperationError(
                f"external function '{func.name}' clashes with the function '{func.name}' of program '{self.name}'",
                span,
                "rename one of them",
            )
        known = self.externals.get(func.name)
        if known is not None and known is not func:
            raise InvalidOperationError(
                f"two different external functions are both named '{func.name}'",
                span,
                "external functions are added to the program by name; rename one of them",
            )
        self.externals[func.name] = func

    def build(self, span: Span) -> ir.Program:
        """Parse every body and build the program."""
        functions = [parse_function(sig) for sig in self.signatures.values()]
        functions.extend(self.externals.values())
        return ir.Program(functions, self.name, span)
