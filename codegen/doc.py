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

from types import TracebackType


class Doc:
    """Lines of text with indentation depths; ``unit`` is the text of one level."""

    def __init__(self, unit: str = "  ", depth: int = 0) -> None:
        self.unit = unit
        # Each line with its indentation (a blank line empty): render is then one join, not a
        # formatting step per line, and most lines are written once and extended once or twice.
        self.lines: list[str] = []
        # ``depth``: where the lines start, for a document written to be spliced into another at
        # that depth (its lines are then copied as they are, not indented again)
        self.base = depth
        self.depth = depth
        self._prefix = unit * depth

    def line(self, text: str = "") -> None:
        """Append ``text`` at the current depth (an empty string is a blank line)."""
        self.lines.append(self._prefix + text if text else "")

    def indent(self, levels: int = 1) -> _Indent:
        """Lines written inside the ``with`` are ``levels`` deeper."""
        return _Indent(self, levels, None)

    def block(self, head: str, tail: str = "}") -> _Indent:
        """``head``, the lines written inside the ``with`` one level deeper, then ``tail``."""
        self.line(head)
        return _Indent(self, 1, tail)

    def extend(self, other: Doc) -> None:
        """Append the lines of ``other`` (written with the same indentation unit), its starting depth
        placed at the current depth."""
        if other.unit != self.unit:
            raise ValueError(f"cannot extend a document indented by {self.unit!r} with one indented by {other.unit!r}")
        if other.base > self.depth:
            raise ValueError(f"cannot extend a document at depth {self.depth} with one that starts at depth {other.base}")
        prefix = self.unit * (self.depth - other.base)
        if prefix:
            self.lines.extend([prefix + text if text else text for text in other.lines])
        else:
            self.lines.extend(other.lines)

    def render(self) -> str:
        """The text: one line per entry, blank lines without indentation, a final newline."""
        return "\n".join(self.lines) + "\n" if self.lines else ""

    def _shift(self, levels: int) -> None:
        self.depth += levels
        self._prefix = self.unit * self.depth

    def __len__(self) -> int:
        return len(self.lines)


class _Indent:
    """The ``with`` of :meth:`Doc.indent` and :meth:`Doc.block` (a class: a generator-based context
    manager cost more than the lines it indents); ``tail`` is written when the block ends normally."""

    __slots__ = ("doc", "levels", "tail")

    def __init__(self, doc: Doc, levels: int, tail: str | None) -> None:
        self.doc, self.levels, self.tail = doc, levels, tail

    def __enter__(self) -> None:
        self.doc._shift(self.levels)

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        doc = self.doc
        doc._shift(-self.levels)
        if kind is None and self.tail is not None:
            doc.line(self.tail)
