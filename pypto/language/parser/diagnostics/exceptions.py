"""Parser diagnostics: every error the DSL front end raises on bad input.

Each error carries a message, the :class:`~pypto.ir.Span` of the offending construct (``location``;
``span`` is the same place as a plain dict, as the established API has it) and an optional hint.
``str(err)`` renders the message with the source line and a caret under the offending range when
the source text is known (the parser attaches it before the error leaves).

Errors of reading DSL text also derive from the builtin class a Python program would raise there,
so code written against the established API catches them: :class:`ParserDefinitionError` is a
``ValueError``, :class:`PythonSyntaxError` a ``SyntaxError`` and :class:`ParserFileError` an ``OSError``.
"""

from __future__ import annotations

from pypto.ir import Span
from pypto.ir.errors import PyptoError

from .render import render_diagnostic


class ParserError(PyptoError):
    """Base of every DSL parse error: ``message``, ``location`` (a Span), ``span`` (that place as a
    dict: filename, begin_line, begin_column, end_line, end_column) and ``hint``."""

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
        self.location = span if span is not None else Span.unknown()
        self.hint = hint
        self.note = note
        self.source_lines = source_lines
        self.line_offset = 0
        super().__init__(message)

    @property  # type: ignore[override]  # PyptoError.span is a Span; the established parser API has a dict
    def span(self) -> dict[str, str | int]:
        """Where the error is: ``filename``, ``begin_line``, ``begin_column``, ``end_line``, ``end_column``."""
        loc = self.location
        return {
            "filename": loc.filename,
            "begin_line": loc.begin_line,
            "begin_column": loc.begin_column,
            "end_line": loc.end_line,
            "end_column": loc.end_column,
        }

    def attach_source(self, source_lines: list[str], line_offset: int = 0) -> None:
        """Remember the source text the span refers to (kept if one is already attached)."""
        if self.source_lines is None:
            self.source_lines = source_lines
            self.line_offset = line_offset

    def format_error(self) -> str:
        """The full diagnostic: class, message, location, source line with caret, hint and note."""
        return self._render(type(self).__name__)

    def __str__(self) -> str:
        """The diagnostic without the class name, which a traceback prints in front of it."""
        return self._render(None)

    def _render(self, kind: str | None) -> str:
        return render_diagnostic(
            kind, self.message, self.location, self.hint, self.note, self.source_lines, self.line_offset
        )


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


class ParserDefinitionError(ParserSyntaxError, ValueError):
    """DSL text defines no program or function, several programs, or a definition of the wrong kind."""


class PythonSyntaxError(ParserSyntaxError, SyntaxError):
    """DSL text is not valid Python."""

    # Python prints an uncaught SyntaxError as ``Kind: msg`` (its line fields stay unset, else it
    # shows the source line again): ``msg`` is the diagnostic after its ``Kind: ``.
    @property  # type: ignore[override]
    def msg(self) -> str:
        """The rendered diagnostic without its leading class name."""
        return self.format_error().partition(": ")[2]


class ParserFileError(ParserError, OSError):
    """A DSL file cannot be read: missing, a directory, unreadable or not UTF-8 text."""


class ParserWarning(UserWarning):
    """A non-fatal remark of the parser (e.g. a tile index promoted to 2-D)."""


__all__ = [
    "InvalidOperationError",
    "ParserDefinitionError",
    "ParserError",
    "ParserFileError",
    "ParserSyntaxError",
    "ParserTypeError",
    "ParserWarning",
    "PythonSyntaxError",
    "SSAViolationError",
    "UndefinedVariableError",
    "UnsupportedFeatureError",
]
