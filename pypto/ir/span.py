"""Source locations attached to every IR node."""

from __future__ import annotations

import functools
import linecache
from pathlib import PurePath
from typing import Self


class Span:
    """A source range ``filename:begin_line:begin_column`` (end fields -1 when unknown).

    Spans are ignored by structural equality and hashing.
    """

    __slots__ = ("filename", "begin_line", "begin_column", "end_line", "end_column")

    def __init__(
        self,
        filename: str,
        begin_line: int,
        begin_column: int,
        end_line: int = -1,
        end_column: int = -1,
    ) -> None:
        _set_filename(self, filename)
        _set_begin_line(self, begin_line)
        _set_begin_column(self, begin_column)
        _set_end_line(self, end_line)
        _set_end_column(self, end_column)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"Span is immutable; cannot set '{name}'")

    @staticmethod
    def unknown() -> Span:
        """The span of a node that has no source location."""
        return _UNKNOWN

    def is_valid(self) -> bool:
        """True when the begin position is known and the end position is consistent."""
        if self.begin_line <= 0 or (self.begin_column <= 0 and self.begin_column != -1):
            return False
        if self.end_line == -1:
            return True
        return self.end_line > 0 and (self.end_column > 0 or self.end_column == -1)

    @property
    def file_name(self) -> str:
        """The last component of ``filename`` (``kernel.py``), as printed in generated code."""
        return _last_component(self.filename)

    def to_string(self) -> str:
        """``filename:begin_line:begin_column``."""
        return f"{self.filename}:{self.begin_line}:{self.begin_column}"

    def __str__(self) -> str:
        return self.to_string()

    def __repr__(self) -> str:
        return self.to_string()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Span):
            return NotImplemented
        return (
            self.filename == other.filename
            and self.begin_line == other.begin_line
            and self.begin_column == other.begin_column
            and self.end_line == other.end_line
            and self.end_column == other.end_column
        )

    def __hash__(self) -> int:
        return hash((self.filename, self.begin_line, self.begin_column, self.end_line, self.end_column))

    def __reduce__(self) -> tuple:
        return (Span, (self.filename, self.begin_line, self.begin_column, self.end_line, self.end_column))


@functools.lru_cache(maxsize=256)
def _last_component(filename: str) -> str:
    return PurePath(filename).name  # a generated file prints it per line: parsed once per file


# The slots' own setters (``__setattr__`` refuses): half the cost of ``object.__setattr__``.
_set_filename = Span.__dict__["filename"].__set__
_set_begin_line = Span.__dict__["begin_line"].__set__
_set_begin_column = Span.__dict__["begin_column"].__set__
_set_end_line = Span.__dict__["end_line"].__set__
_set_end_column = Span.__dict__["end_column"].__set__

_UNKNOWN = Span("", -1, -1, -1, -1)


class SourceName(str):
    """The name of parsed DSL text that also carries the text's lines, so that an error raised later
    (by a pass, by codegen) on a span of it can show the source line and caret. It compares, hashes
    and prints as the plain name; a pickled or copied span keeps only the name."""

    __slots__ = ("lines",)
    lines: list[str]

    def __new__(cls, name: str, lines: list[str]) -> Self:
        self = super().__new__(cls, name)
        self.lines = lines
        return self

    def __reduce__(self) -> tuple:
        return (str, (str(self),))


def source_lines_of(span: Span) -> list[str] | None:
    """The lines of the text ``span`` points into: the parsed text its file name carries, else the file's
    lines as ``linecache`` reads them; None when neither is known."""
    carried = getattr(span.filename, "lines", None)
    if carried is not None:
        return carried
    return (linecache.getlines(span.filename) or None) if span.filename else None
