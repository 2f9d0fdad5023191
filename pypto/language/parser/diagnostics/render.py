"""Rendering of a diagnostic: the message, its location, the source line and a caret."""

from __future__ import annotations

from pypto.ir import Span


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
    kind: str,
    message: str,
    span: Span,
    hint: str | None,
    note: str | None,
    source_lines: list[str] | None,
    line_offset: int = 0,
) -> str:
    """Format ``kind: message`` followed by `` --> file:line:col``, the source line and caret.

    ``source_lines`` are the lines of the file the span refers to; ``line_offset`` is the line
    number of ``source_lines[0]`` minus one (0 when the lines are the whole file).
    """
    out = [f"{kind}: {message}"]
    if span.begin_line > 0:
        out.append(f"  --> {span.filename}:{span.begin_line}:{span.begin_column}")
        index = span.begin_line - 1 - line_offset
        if source_lines is not None and 0 <= index < len(source_lines):
            line, caret = _caret_line(source_lines[index], span)
            gutter = str(span.begin_line)
            pad = " " * len(gutter)
            out.append(f"{pad} |")
            out.append(f"{gutter} | {line}")
            out.append(f"{pad} | {caret}")
    if hint:
        out.append(f"  = hint: {hint}")
    if note:
        out.append(f"  = note: {note}")
    return "\n".join(out)
