"""The DSL parser: Python syntax (decorated functions or printed text) -> IR.

``parse`` / ``parse_program`` read DSL text without executing it; the decorators in
:mod:`pypto.language` use the same machinery on the source of decorated functions.
Diagnostics live in :mod:`pypto.language.parser.diagnostics`; their classes are exported here too.
"""

from __future__ import annotations

from typing import Any

from .diagnostics import (
    InvalidOperationError,
    ParserDefinitionError,
    ParserError,
    ParserFileError,
    ParserSyntaxError,
    ParserTypeError,
    ParserWarning,
    PythonSyntaxError,
    SSAViolationError,
    UndefinedVariableError,
    UnsupportedFeatureError,
)

_TEXT_PARSER = ("loads", "loads_program", "parse", "parse_program")

__all__ = [
    "InvalidOperationError",
    "ParserDefinitionError",
    "ParserError",
    "ParserFileError",
    "ParserSyntaxError",
    "ParserTypeError",
    "ParserWarning",
    "PythonSyntaxError",
    "SSAViolationError",
    "UndefinedVariableError",
    "UnsupportedFeatureError",
    "loads",
    "loads_program",
    "parse",
    "parse_program",
]


def __getattr__(name: str) -> Any:
    # Imported lazily: the parser imports the DSL constructs, which import the diagnostics here.
    if name in _TEXT_PARSER:
        from . import text_parser

        return getattr(text_parser, name)
    raise AttributeError(f"module 'pypto.language.parser' has no attribute '{name}'")
