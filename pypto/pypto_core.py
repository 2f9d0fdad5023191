"""Alias module for code written against the reference's native module ``pypto.pypto_core``."""

from . import ir, passes
from .ir import DataType

__all__ = ["DataType", "ir", "passes"]
