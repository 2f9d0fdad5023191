"""The error a code generator raises on a program it cannot print."""

from __future__ import annotations

from pypto.ir.errors import PyptoError, render_diagnostic
from pypto.ir.span import Span, source_lines_of


class CodegenError(PyptoError):
    """A node or op a target has no rule for (or cannot spell). ``span`` locates it in the source.

    ``err.format_error()`` renders like a parser diagnostic: the message, `` --> file:line:col``, the
    source line with a caret when the file is readable, and the hint (``str(err)`` is the same without
    the class name, which a traceback prints in front of it)::

        CodegenError: no rule for tile.sin in pto
           --> kernels.py:12:13
           |
        12 |         y = pl.tile.sin(x)
           |             ^^^^^^^^^^^^^^
           = hint: the pto op table has no entry for 'tile.sin'
    """

    def __init__(self, message: str, span: Span | None = None, hint: str | None = None) -> None:
        self.message = message
        self.span = span if span is not None else Span.unknown()
        self.hint = hint
        super().__init__(message)

    def __str__(self) -> str:
        lines = source_lines_of(self.span) if self.span.is_valid() else None
        return render_diagnostic(None, self.message, self.span, self.hint, None, lines)


def no_rule(what: str, target: str, span: Span | None = None, hint: str | None = None) -> CodegenError:
    """The "no rule for <what> in <target>" error (``what`` is a node kind or an op name)."""
    return CodegenError(f"no rule for {what} in {target}", span, hint)
