"""Errors raised while interpreting a program."""

from __future__ import annotations

# OpError lives in pypto.ir.errors (the scalar semantics there raise it); the op semantics raise it too.
from pypto.ir.errors import OpError, PyptoError  # noqa: F401
from pypto.ir.span import Span


class InterpreterError(PyptoError):
    """A program failed at run time: out-of-bounds access, shape mismatch, unwritten output read, ...

    ``span`` is the span of the statement being executed (or of the function, for bad inputs).
    """

    def __init__(self, message: str, span: Span | None = None) -> None:
        self.message = message
        self.span = span if span is not None else Span.unknown()
        where = f"{self.span}: " if self.span.is_valid() else ""
        super().__init__(f"{where}{message}")
