"""pypto: a pure-Python nanopass compiler for the PyPTO tile language.

``import pypto.language as pl`` for the DSL; ``from pypto import ir, DataType, passes`` for the
compiler library.
"""

from . import ir
from .ir import DataType
from . import passes  # noqa: E402  (installed from the top-level passes/ folder)

__all__ = ["DataType", "ir", "passes"]
