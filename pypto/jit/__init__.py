"""``@pl.jit``: kernels written as plain functions, specialised from their arguments, compiled once
per cache key and run on a2a3sim (docs/jit.md)."""

from .decorator import jit
from .function import JITFunction

__all__ = ["JITFunction", "jit"]
