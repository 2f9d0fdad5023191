"""Source text of DSL code: one ``ast.parse`` per file, spans, comments and definition lookup.

Decorated functions and classes are located in the syntax tree of their whole file, parsed once
and cached (keyed by the line list ``linecache`` holds for the file), so a file with hundreds of
kernels is parsed a single time.
"""

from __future__ import annotations

import ast
import io
import linecache
import sys
import tokenize
from types import FrameType
from typing import Any

from pypto.ir import Span
from pypto.ir.span import SourceName

from .diagnostics import ParserError, PythonSyntaxError

_DEF_NODES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)

_SYNTAX_HINT = "DSL code is read with Python's ast.parse: check brackets, colons, commas and indentation here"
_TOO_DEEP = "an expression in this statement is nested too deeply for Python's parser"
_SPLIT_HINT = "split the expression into several assignments: t = a + b + c, then y = t + d + e"
# Python's own nesting limits (messages of its SyntaxError) and what to write instead.
_NESTING_LIMITS = {
    "too many nested parentheses": ("this expression is nested too deeply for Python's parser", _SPLIT_HINT),
    "too many levels of indentation": (
        "the blocks are nested too deeply for Python's parser",
        "move the innermost blocks into a separate @pl.function or @pl.inline",
    ),
}
_LINE_ENDS = (tokenize.NEWLINE, tokenize.ENDMARKER)
_LAYOUT_TOKENS = (tokenize.NL, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT)


def _largest_statement(text: str, lines: list[str], filename: str) -> Span:
    """The span of the logical line of ``text`` with the most tokens (line 1 if it cannot be told)."""

    def column(pos: tuple[int, int]) -> int:  # tokenize counts characters, spans UTF-8 bytes
        return len(lines[pos[0] - 1][: pos[1]].encode()) + 1 if pos[0] <= len(lines) else 1

    best, most = Span(filename, 1, 1), 0
    count, start, end = 0, None, None
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type in _LINE_ENDS:
                if start is not None and end is not None and count > most:
                    most = count
                    best = Span(filename, start[0], column(start), end[0], column(end))
                count, start = 0, None
            elif tok.type not in _LAYOUT_TOKENS:
                count += 1
                start = start or tok.start
                end = tok.end
    except (tokenize.TokenError, SyntaxError):
        pass
    return best


class SourceFile:
    """The text of one file (or string) with its syntax tree and an index of its definitions."""

    __slots__ = ("_classes_by_name", "_defs_by_line", "filename", "lines", "tree")

    def __init__(self, filename: str, lines: list[str], tree: ast.Module) -> None:
        self.filename = filename
        self.lines = lines
        self.tree = tree
        self._defs_by_line: dict[int, ast.AST] | None = None
        self._classes_by_name: dict[str, list[ast.ClassDef]] | None = None

    @classmethod
    def from_text(cls, text: str, filename: str) -> SourceFile:
        """Parse ``text``; a Python syntax error becomes a PythonSyntaxError with its location."""
        lines = text.splitlines(keepends=True)
        try:
            tree = ast.parse(text, filename=filename)
        except SyntaxError as err:
            line = err.lineno or 1
            col = err.offset or 1
            span = Span(filename, line, col, err.end_lineno or line, err.end_offset or col + 1)
            message, hint = f"invalid Python syntax: {err.msg}", _SYNTAX_HINT
            if err.msg in _NESTING_LIMITS:
                what, hint = _NESTING_LIMITS[err.msg]
                message = f"{what} ({err.msg})"
            raise PythonSyntaxError(message, span, hint, source_lines=lines) from None
        except (RecursionError, MemoryError):
            # CPython gives no location when its parser runs out of stack: point at the statement
            # with the most tokens, where a long chain of operators is.
            raise PythonSyntaxError(
                _TOO_DEEP, _largest_statement(text, lines, filename), _SPLIT_HINT, source_lines=lines
            ) from None
        # Spans name the text with its lines: an error a pass raises later shows the line and caret.
        return cls(SourceName(filename, lines), lines, tree)

    def span(self, node: ast.AST) -> Span:
        """The span of ``node`` (1-based columns)."""
        return Span(
            self.filename,
            node.lineno,  # type: ignore[attr-defined]
            node.col_offset + 1,  # type: ignore[attr-defined]
            node.end_lineno or -1,  # type: ignore[attr-defined]
            (node.end_col_offset + 1) if node.end_col_offset is not None else -1,  # type: ignore[attr-defined]
        )

    def leading_comments(self, lineno: int, lower: int) -> list[str]:
        """``#`` comment lines directly above line ``lineno`` and below line ``lower`` (1-based)."""
        lines = self.lines
        i = lineno - 2
        found: list[str] = []
        while i >= lower and i < len(lines):
            text = lines[i].strip()
            if text.startswith("#"):
                body = text[1:]
                found.append(body.removeprefix(" "))
            elif text:
                break
            i -= 1
        found.reverse()
        return found

    def _index(self) -> None:
        defs: dict[int, ast.AST] = {}
        classes: dict[str, list[ast.ClassDef]] = {}
        for node in ast.walk(self.tree):
            if isinstance(node, _DEF_NODES):
                first = min([node.lineno] + [d.lineno for d in node.decorator_list])
                defs.setdefault(first, node)
                if isinstance(node, ast.ClassDef):
                    classes.setdefault(node.name, []).append(node)
        self._defs_by_line = defs
        self._classes_by_name = classes

    def function_at(self, first_line: int, name: str) -> ast.FunctionDef | None:
        """The function definition starting (decorators included) at ``first_line``."""
        if self._defs_by_line is None:
            self._index()
        node = self._defs_by_line.get(first_line)  # type: ignore[union-attr]
        if isinstance(node, ast.FunctionDef) and node.name == name:
            return node
        return None

    def class_named(self, name: str, inner_lines: list[int]) -> ast.ClassDef | None:
        """The innermost class ``name`` whose body contains all of ``inner_lines``."""
        if self._classes_by_name is None:
            self._index()
        best: ast.ClassDef | None = None
        for node in self._classes_by_name.get(name, []):  # type: ignore[union-attr]
            end = node.end_lineno or node.lineno
            inside = all(node.lineno <= ln <= end for ln in inner_lines)
            if inside and (best is None or node.lineno > best.lineno):
                best = node
        return best


_FILE_CACHE: dict[str, tuple[int, SourceFile]] = {}


def frame_span(frame: FrameType | None) -> Span:
    """The line a Python frame is executing (user code calling a DSL API at Python level)."""
    if frame is None:
        return Span.unknown()
    return Span(frame.f_code.co_filename, frame.f_lineno, 1)


def file_of(filename: str, module_globals: dict[str, Any] | None, line: int = -1) -> SourceFile:
    """The parsed file ``filename`` (cached while ``linecache`` keeps the same text); ``line`` is
    where the definition being parsed starts (for the error when the text is not available)."""
    lines = linecache.getlines(filename, module_globals)
    if not lines:
        raise ParserError(
            f"cannot parse a DSL function defined in {filename}: its source code is not available",
            Span(filename, line, 1) if line > 0 else Span.unknown(),
            "define @pl.function / @pl.program in a file, or use pl.parse(text) for source strings",
        )
    cached = _FILE_CACHE.get(filename)
    if cached is not None and cached[0] == id(lines):
        return cached[1]
    source = SourceFile.from_text("".join(lines), filename)
    source.lines = lines
    _FILE_CACHE[filename] = (id(lines), source)
    return source


def locate_function(func: Any) -> tuple[SourceFile, ast.FunctionDef]:
    """The file and ``def`` node of a Python function."""
    code = func.__code__
    source = file_of(code.co_filename, func.__globals__, code.co_firstlineno)
    node = source.function_at(code.co_firstlineno, func.__name__)
    if node is None:
        raise ParserError(
            f"cannot find the source of function '{func.__name__}' in {code.co_filename}",
            Span(code.co_filename, code.co_firstlineno, 1),
            "the file changed after it was imported, or the function was created dynamically; re-import it "
            "or use pl.parse(text)",
        )
    return source, node


def locate_class(cls: type, methods: list[Any], site: Span) -> tuple[SourceFile, ast.ClassDef]:
    """The file and ``class`` node of a Python class, found by name and the lines of ``methods``
    (Python functions defined in its body); ``site`` is where the class is decorated (for errors)."""
    line = -1
    if methods:
        filename = methods[0].__code__.co_filename
        module_globals = methods[0].__globals__
        line = methods[0].__code__.co_firstlineno
    else:
        module = sys.modules.get(cls.__module__)
        filename = getattr(module, "__file__", None)
        module_globals = getattr(module, "__dict__", None)
    if filename is None:
        raise ParserError(
            f"cannot parse class '{cls.__name__}': its source code is not available",
            site,
            "define @pl.program classes in a file, or use pl.parse_program(text) for source strings",
        )
    source = file_of(filename, module_globals, line)
    node = source.class_named(cls.__name__, [m.__code__.co_firstlineno for m in methods])
    if node is None:
        raise ParserError(
            f"cannot find the source of class '{cls.__name__}' in {filename}",
            Span(filename, line, 1) if line > 0 else site,
            "the file changed after it was imported, or the class was created dynamically; re-import it "
            "or use pl.parse_program(text)",
        )
    return source, node
