"""Errors raised by passes, the pass manager and the plugin registry."""

from __future__ import annotations

# One error class for pass and dialect plugins (dialect plugins are discovered in languages/).
from pypto.languages.plugins import PluginError  # noqa: F401

from pypto.ir.errors import PyptoError, render_diagnostic
from pypto.ir.span import Span, source_lines_of


class PassError(PyptoError):
    """A pass cannot transform its input (e.g. a recursive inline function). ``span`` locates it.

    ``err.format_error()`` is the diagnostic, rendered like a parser error: ``PassError: Pass: message``,
    `` --> file:line:col``, the source line and caret (when the file or the parsed text is known) and
    the hint; ``str(err)`` is the same without the class name, which a traceback prints in front of it.
    """

    def __init__(self, pass_name: str, message: str, span: Span | None = None, hint: str | None = None) -> None:
        self.pass_name = pass_name
        self.span = span if span is not None else Span.unknown()
        self.message = f"{pass_name}: {message}"
        self.hint = hint
        super().__init__(self.message)

    def format_error(self) -> str:
        """The diagnostic: class name, message, location, source line with caret, hint."""
        return self._render(type(self).__name__)

    def __str__(self) -> str:
        return self._render(None)

    def _render(self, kind: str | None) -> str:
        return render_diagnostic(kind, self.message, self.span, self.hint, None, source_lines_of(self.span))


class PassOrderError(PyptoError):
    """A pipeline puts a pass where its source dialect or required properties do not hold."""

