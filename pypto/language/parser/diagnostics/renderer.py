"""``ErrorRenderer`` and ``concise_error_message``: the established names for rendering a pypto error.

A thin layer over the diagnostic text every :class:`~.exceptions.ParserError` renders itself
(``err.format_error()``, :mod:`.render`): :class:`ErrorRenderer` returns that text, optionally with
ANSI colours (the kind in red, the gutter in blue, the caret in red); :func:`concise_error_message`
is the one-line form. Other pypto errors render as their message::

    print(ErrorRenderer(use_color=False).render(err))
"""

from __future__ import annotations

import re

from .exceptions import ParserError

_RED, _BLUE, _BOLD, _RESET = "\033[31m", "\033[34m", "\033[1m", "\033[0m"
_GUTTER = re.compile(r"^(\s*\d*\s\|)(.*)$")


class ErrorRenderer:
    """Renders an error as the full diagnostic (``use_color=True`` adds ANSI colours)."""

    def __init__(self, use_color: bool = False) -> None:
        self.use_color = use_color

    def render(self, err: BaseException) -> str:
        """The diagnostic text of ``err``: kind, message, location, source line with caret, hint."""
        text = err.format_error() if isinstance(err, ParserError) else f"{type(err).__name__}: {err}"
        return self._colour(text) if self.use_color else text

    def _colour(self, text: str) -> str:
        lines = text.split("\n")
        kind, sep, rest = lines[0].partition(": ")
        lines[0] = f"{_BOLD}{_RED}{kind}{_RESET}{sep}{_BOLD}{rest}{_RESET}"
        for i, line in enumerate(lines[1:], start=1):
            m = _GUTTER.match(line)
            if m is None:
                continue
            body = m.group(2)
            if body.strip() and set(body.strip()) == {"^"}:
                body = f"{_RED}{body}{_RESET}"
            lines[i] = f"{_BLUE}{m.group(1)}{_RESET}{body}"
        return "\n".join(lines)


def concise_error_message(err: BaseException) -> str:
    """One line: ``Kind: message (file:line:col)`` (the location only when it is known)."""
    if isinstance(err, ParserError):
        loc = err.location
        where = f" ({loc.filename}:{loc.begin_line}:{loc.begin_column})" if loc.begin_line > 0 else ""
        return f"{type(err).__name__}: {err.message}{where}"
    first = str(err).split("\n", 1)[0]
    return f"{type(err).__name__}: {first}"


__all__ = ["ErrorRenderer", "concise_error_message"]
