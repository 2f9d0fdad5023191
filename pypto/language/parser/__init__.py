"""The DSL parser: Python syntax (decorated functions or printed text) -> IR.

``parse`` / ``parse_program`` read DSL text without executing it; the decorators in
:mod:`pypto.language` use the same machinery on the source of decorated functions.
Diagnostics live in :mod:`pypto.language.parser.diagnostics`.
"""

from __future__ import annotations

from typing import Any

__all__ = ["loads", "loads_program", "parse", "parse_program"]


def __getattr__(name: str) -> Any:
    # Imported lazily: the parser imports the DSL constructs, which import the diagnostics here.
    if name in __all__:
        from . import text_parser

        return getattr(text_parser, name)
    raise AttributeError(f"module 'pypto.language.parser' has no attribute '{name}'")
