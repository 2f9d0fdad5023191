"""A document of generated lines, each at an indentation depth.

Emitters write lines into a :class:`Doc`; ``indent()`` opens a nested level, ``block()`` writes a
header, an indented body and a closing line, and ``extend()`` splices a document rendered
separately (the PTO printer renders a function body first, then puts the constants it found in
front of it)::

    doc = Doc("  ")
    with doc.block("scf.for %i = %c0 to %c4 step %c1 {"):
        doc.line("pto.tadd ins(...) outs(...)")
    doc.render()   # 'scf.for ... {\\n  pto.tadd ins(...) outs(...)\\n}\\n'
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager


class Doc:
    """Lines of text with indentation depths; ``unit`` is the text of one level."""

    def __init__(self, unit: str = "  ") -> None:
        self.unit = unit
        self.lines: list[tuple[int, str]] = []
        self.depth = 0

    def line(self, text: str = "") -> None:
        """Append ``text`` at the current depth (an empty string is a blank line)."""
        self.lines.append((self.depth, text))

    @contextmanager
    def indent(self, levels: int = 1) -> Iterator[None]:
        """Lines written inside the ``with`` are ``levels`` deeper."""
        self.depth += levels
        try:
            yield
        finally:
            self.depth -= levels

    @contextmanager
    def block(self, head: str, tail: str = "}") -> Iterator[None]:
        """``head``, the lines written inside the ``with`` one level deeper, then ``tail``."""
        self.line(head)
        with self.indent():
            yield
        self.line(tail)

    def extend(self, other: Doc) -> None:
        """Append the lines of ``other``, its depth 0 placed at the current depth."""
        self.lines.extend((self.depth + depth, text) for depth, text in other.lines)

    def render(self) -> str:
        """The text: one line per entry, blank lines without indentation, a final newline."""
        unit = self.unit
        # A list, not a generator, for join; one f-string, not two concatenations, per line.
        return "".join([f"{unit * depth}{text}\n" if text else "\n" for depth, text in self.lines])

    def __len__(self) -> int:
        return len(self.lines)
