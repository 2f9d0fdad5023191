"""Errors raised by passes, the pass manager and the plugin registry."""

from __future__ import annotations

# One error class for pass and dialect plugins (dialect plugins are discovered in languages/).
from pypto.languages.plugins import PluginError  # noqa: F401

from pypto.ir.errors import PyptoError
from pypto.ir.span import Span


class PassError(PyptoError):
    """A pass cannot transform its input (e.g. a recursive inline function). ``span`` locates it.

    ``str(err)`` is one line (``Pass: message at file:line:col``); ``err.format_error()`` is the
    diagnostic the command line prints, rendered like a parser error (source line, caret, hint).
    """

    def __init__(self, pass_name: str, message: str, span: Span | None = None, hint: str | None = None) -> None:
        self.pass_name = pass_name
        self.span = span if span is not None else Span.unknown()
        self.message = f"{pass_name}: {message}"
        self.hint = hint
        where = f" at {self.span}" if self.span.is_valid() else ""
        super().__init__(f"{self.message}{where}")


class PassOrderError(PyptoError):
    """A pipeline puts a pass where its source dialect or required properties do not hold."""

