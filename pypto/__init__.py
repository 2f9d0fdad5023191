"""pypto: a pure-Python nanopass compiler for the PyPTO tile language.

``import pypto.language as pl`` for the DSL; ``from pypto import ir, DataType, passes`` for the
compiler library.

``pypto.Error`` is the established name of :class:`~pypto.ir.errors.PyptoError`, the base of every
error pypto raises; ``pypto.InternalError`` (also a ``pypto.Error``) is a failure inside pypto.
"""

from . import ir
from .ir import DataType
from .ir.errors import InternalError, PyptoError
from . import passes  # noqa: E402  (installed from the top-level passes/ folder)

# The established API's spelling of our base error class (the same class, not a subclass).
Error = PyptoError

__all__ = ["DataType", "Error", "InternalError", "ir", "passes"]
