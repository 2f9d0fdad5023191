"""Diagnostics of the DSL parser: the ``ParserError`` family and its rendering."""

from .exceptions import (
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
from .render import render_diagnostic
from .renderer import ErrorRenderer, concise_error_message

__all__ = [
    "ErrorRenderer",
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
    "concise_error_message",
    "render_diagnostic",
]
