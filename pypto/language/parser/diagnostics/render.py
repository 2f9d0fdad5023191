"""The parser's name for the shared diagnostic renderer (it lives beside the error classes)."""

from __future__ import annotations

from pypto.ir.errors import render_diagnostic

__all__ = ["render_diagnostic"]
