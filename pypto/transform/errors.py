"""Errors raised by passes, the pass manager and the plugin registry."""

from __future__ import annotations

# One error class for pass and dialect plugins (dialect plugins are discovered in languages/).
from pypto.languages.plugins import PluginError  # noqa: F401

from pypto.ir.errors import PyptoError, render_diagnostic
from pypto.ir.span import Span, source_lines_of


class PassError(PyptoError):
    """A pass cannot transform its input (e.g. a recursive inline function). ``span`` locates it.

    ``str(err)`` and ``err.format_error()`` are the diagnostic, rendered like a parser error:
    ``PassError: Pass: message``, `` --> file:line:col``, the source line and caret (when the file or
    the parsed text is known) and the hint.
    """

    def __init__(self, pass_name: str, message: str, span: Span | None = None, hint: str | None = None) -> None:
        self.pass_name = pass_name
        self.span = span if span is not None else Span.unknown()
        self.message = f"{pass_name}: {message}"
        self.hint = hint
        super().__init__(self.message)

    def format_error(self) -> str:
        """The diagnostic (also ``str(err)``): message, location, source line with caret, hint."""
        lines = source_lines_of(self.span)
        return render_diagnostic(type(self).__name__, self.message, self.span, self.hint, None, lines)

    def __str__(self) -> str:
        return self.format_error()


class PassOrderError(PyptoError):
    """A pipeline puts a pass where its source dialect or required properties do not hold."""

