"""Diagnostics of the DSL parser: the ``ParserError`` family and its rendering."""

from .exceptions import (
    InvalidOperationError,
    ParserError,
    ParserFileError,
    ParserSyntaxError,
    ParserTypeError,
    ParserWarning,
    SSAViolationError,
    UndefinedVariableError,
    UnsupportedFeatureError,
)
from .render import render_diagnostic

__all__ = [
    "InvalidOperationError",
    "ParserError",
    "ParserFileError",
    "ParserSyntaxError",
    "ParserTypeError",
    "ParserWarning",
    "SSAViolationError",
    "UndefinedVariableError",
    "UnsupportedFeatureError",
    "render_diagnostic",
]
