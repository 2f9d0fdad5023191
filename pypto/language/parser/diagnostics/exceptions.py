"""Parser diagnostics: every error the DSL front end raises on bad input.

Each error carries a message, the :class:`~pypto.ir.Span` of the offending construct and an
optional hint. ``str(err)`` renders the message with the source line and a caret under the
offending range when the source text is known (the parser attaches it before the error leaves).
"""

from __future__ import annotations

from pypto.ir import Span
from pypto.ir.errors import PyptoError

from .render import render_diagnostic


class ParserError(PyptoError):
    """Base of every DSL parse error: ``message``, ``span`` (file, line, column) and ``hint``."""

    kind = "error"

    def __init__(
        self,
        message: str,
        span: Span | None = None,
        hint: str | None = None,
        note: str | None = None,
        source_lines: list[str] | None = None,
    ) -> None:
        self.message = message
        self.span = span if span is not None else Span.unknown()
        self.hint = hint
        self.note = note
        self.source_lines = source_lines
        self.line_offset = 0
        super().__init__(message)

    def attach_source(self, source_lines: list[str], line_offset: int = 0) -> None:
        """Remember the source text the span refers to (kept if one is already attached)."""
        if self.source_lines is None:
            self.source_lines = source_lines
            self.line_offset = line_offset

    def format_error(self) -> str:
        """The full diagnostic: class, message, location, source line with caret, hint and note."""
        return render_diagnostic(
            type(self).__name__,
            self.message,
            self.span,
            self.hint,
            self.note,
            self.source_lines,
            self.line_offset,
        )

    def __str__(self) -> str:
        return self.format_error()


class ParserSyntaxError(ParserError):
    """A construct is written in a form the DSL does not accept."""


class ParserTypeError(ParserError):
    """A value has the wrong kind or type for where it is used."""


class UnsupportedFeatureError(ParserError):
    """Valid Python that the DSL deliberately does not support."""


class InvalidOperationError(ParserError):
    """An operation was given values it cannot work with (rejected by the op layer)."""


class UndefinedVariableError(ParserError):
    """A name is neither a DSL variable nor a closure / module value."""


class SSAViolationError(ParserError):
    """A variable is assigned twice in a function declared ``strict_ssa=True``."""


class ParserFileError(ParserError):
    """A DSL file cannot be read: missing, a directory, unreadable or not UTF-8 text."""


class ParserWarning(UserWarning):
    """A non-fatal remark of the parser (e.g. a tile index promoted to 2-D)."""


__all__ = [
    "InvalidOperationError",
    "ParserError",
    "ParserFileError",
    "ParserSyntaxError",
    "ParserTypeError",
    "ParserWarning",
    "SSAViolationError",
    "UndefinedVariableError",
    "UnsupportedFeatureError",
]
