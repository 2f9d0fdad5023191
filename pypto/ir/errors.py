"""Exception classes shared by the whole compiler, and the one renderer of their diagnostics.

Every error pypto raises on bad input derives from :class:`PyptoError`. The IR-construction errors
also derive from the builtin ``TypeError`` / ``ValueError`` so that code written against the
reference API (which raises those) keeps working. An error with a source span (parser, pass,
codegen, interpreter) renders through :func:`render_diagnostic` (``PyptoError.format_error``)::

    PassError: UnrollLoops: pl.unroll needs a constant stop
      --> b16.py:9:9
      |
    9 |         for i in pl.unroll(n):
      |         ^^^^^^^^^^^^^^^^^^^^^^
      = hint: give pl.unroll int literals or closure ints
"""

from __future__ import annotations

from .span import Span, source_lines_of


class PyptoError(Exception):
    """Base class of every error raised by pypto on bad input.

    A subclass that locates the error sets ``span`` (and may set ``message``, ``hint``, ``note``
    and ``source_lines``); :meth:`format_error` then renders it with the source line and a caret.
    """

    message: str | None = None
    span: Span | None = None
    hint: str | None = None
    note: str | None = None
    # The lines of the file the span refers to, when not readable from disk (parsed text).
    source_lines: list[str] | None = None
    line_offset = 0

    def format_error(self) -> str:
        """The diagnostic: ``Class: message``, `` --> file:line:col``, source line, caret and hint
        when the error has a span, else ``error: <text>``."""
        span = self.span
        if self.message is None or span is None or not span.is_valid():
            return f"error: {Exception.__str__(self)}"
        lines = self.source_lines if self.source_lines is not None else source_lines_of(span)
        return render_diagnostic(type(self).__name__, self.message, span, self.hint, self.note, lines, self.line_offset)


class InternalError(PyptoError):
    """A failure inside pypto itself (a bug, not bad input); the original exception is its ``__cause__``.

    The pass runner turns any non-pypto exception a pass raises into this class, so code catching
    :class:`PyptoError` (``pypto.Error``) sees every failure.
    """


class IRTypeError(PyptoError, TypeError):
    """An IR node was built with an argument of the wrong kind."""


class IRValueError(PyptoError, ValueError):
    """An IR node was built with an argument of the right kind but a bad value."""


class ImmutableNodeError(PyptoError, AttributeError):
    """A field of an IR node or type was assigned or deleted: nodes never change (build a changed
    copy with ``ir.replace(node, field=value)``)."""


class VerificationError(PyptoError):
    """A program broke the grammar or an invariant of a dialect (raised at a pass boundary).

    ``violations`` lists each broken rule with its dialect, rule name, printed node and span.
    """

    def __init__(self, message: str, violations: list | None = None) -> None:
        super().__init__(message)
        self.violations = list(violations or [])


class NoEffectWarning(UserWarning):
    """An argument the user gave has no effect (e.g. a slice's ``pad_value`` on a fully valid window)."""


class OpError(Exception):
    """Raised by an op's or a scalar expression's semantics (``pypto.ir.scalar_eval``, the
    interpreter's op table); the interpreter adds the op name and the statement span."""


def _char_index(line: str, byte_column: int) -> int:
    """Spans count columns in UTF-8 bytes (as Python's ``ast`` does); the caret needs characters."""
    if line.isascii():
        return byte_column
    return len(line.encode()[:byte_column].decode(errors="ignore"))


def _caret_line(text: str, span: Span) -> tuple[str, str]:
    """The source line and the caret marker under the span's columns."""
    line = text.rstrip("\n").replace("\t", " ")
    start = _char_index(line, max(span.begin_column - 1, 0))
    if span.end_line == span.begin_line and span.end_column > span.begin_column:
        end = _char_index(line, span.end_column - 1)
    else:
        end = len(line.rstrip())
    width = max(end - start, 1)
    if len(line) > _MAX_SHOWN:
        return _window(line, start, width)
    return line, " " * start + "^" * width


# Longer source lines (a generated 100,000-term sum) are shown as a window around the caret.
_MAX_SHOWN = 200
_LEAD = 40


def _window(line: str, start: int, width: int) -> tuple[str, str]:
    """``_MAX_SHOWN`` characters of ``line`` from a little before ``start``, cut ends marked ``...``."""
    lo = max(0, min(start - _LEAD, len(line) - _MAX_SHOWN))
    hi = lo + _MAX_SHOWN
    head = "..." if lo > 0 else ""
    tail = "..." if hi < len(line) else ""
    shown = line[lo:hi]
    caret = " " * (len(head) + start - lo) + "^" * min(width, hi - start)
    return head + shown + tail, caret


def render_diagnostic(
    kind: str | None,
    message: str,
    span: Span,
    hint: str | None,
    note: str | None,
    source_lines: list[str] | None,
    line_offset: int = 0,
) -> str:
    """Format ``kind: message`` (``message`` without a kind) followed by `` --> file:line:col``, the
    source line and caret.

    ``source_lines`` are the lines of the file the span refers to; ``line_offset`` is the line
    number of ``source_lines[0]`` minus one (0 when the lines are the whole file).
    """
    out = [f"{kind}: {message}" if kind else message]
    gutter = str(span.begin_line) if span.begin_line > 0 else ""
    # The arrow, the bars and the hint's "=" stand in the column after the line number, however wide it is.
    pad = " " * max(len(gutter), 1)
    if gutter:
        out.append(f"{pad} --> {span.filename}:{span.begin_line}:{span.begin_column}")
        index = span.begin_line - 1 - line_offset
        if source_lines is not None and 0 <= index < len(source_lines):
            line, caret = _caret_line(source_lines[index], span)
            out.append(f"{pad} |")
            out.append(f"{gutter} | {line}")
            out.append(f"{pad} | {caret}")
    if hint:
        out.append(f"{pad} = hint: {hint}")
    if note:
        out.append(f"{pad} = note: {note}")
    return "\n".join(out)
