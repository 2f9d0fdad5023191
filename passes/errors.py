"""Errors raised by passes, the pass manager and the plugin registry."""

from __future__ import annotations

# One error class for pass and dialect plugins (dialect plugins are discovered in languages/).
from pypto.languages.plugins import PluginError  # noqa: F401

from pypto.ir.errors import PyptoError
from pypto.ir.span import Span


class PassError(PyptoError):
    """A pass cannot transform its input (e.g. a recursive inline function). ``span`` locates it."""

    def __init__(self, pass_name: str, message: str, span: Span | None = None) -> None:
        self.pass_name = pass_name
        self.span = span if span is not None else Span.unknown()
        where = f" at {self.span}" if self.span.is_valid() else ""
        super().__init__(f"{pass_name}: {message}{where}")


class PassOrderError(PyptoError):
    """A pipeline puts a pass where its source dialect or required properties do not hold."""

