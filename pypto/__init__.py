"""pypto: a pure-Python nanopass compiler for the PyPTO tile language.

``import pypto.language as pl`` for the DSL; ``from pypto import ir, DataType, passes`` for the
compiler library. The subpackages load on first use, so that ``pypto --help`` and ``import
pypto.language`` do not pay for the whole pass pipeline.

``pypto.Error`` is the established name of :class:`~pypto.ir.errors.PyptoError`, the base of every
error pypto raises; ``pypto.InternalError`` (also a ``pypto.Error``) is a failure inside pypto.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["DataType", "Error", "InternalError", "ir", "passes"]


def __getattr__(name: str) -> Any:
    if name in ("ir", "passes"):  # passes is installed from the top-level passes/ folder
        return importlib.import_module(f"{__name__}.{name}")
    if name == "DataType":
        return importlib.import_module(f"{__name__}.ir").DataType
    if name == "Error":  # the established API's spelling of our base error class (the same class)
        return importlib.import_module(f"{__name__}.ir.errors").PyptoError
    if name == "InternalError":
        return importlib.import_module(f"{__name__}.ir.errors").InternalError
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
