"""Leaf text: float literals, quoted strings, dtype and enum names (no IR traversal here)."""

from __future__ import annotations

import math
from enum import Enum

from ..datatype import DataType
from ..enums import ArgDirection, MemorySpace

# Cast rounding modes by their stored int code (kwarg ``mode``).
CAST_MODES: tuple[str, ...] = ("none", "rint", "round", "floor", "ceil", "trunc", "odd")

# ``pl.<name>`` used for an enum class whose DSL alias differs from its class name.
_ENUM_ALIAS: dict[type, str] = {MemorySpace: "Mem"}

_ADIR_NAMES: dict[ArgDirection, str] = {
    ArgDirection.Input: "input",
    ArgDirection.Output: "output",
    ArgDirection.InOut: "inout",
    ArgDirection.OutputExisting: "output_existing",
    ArgDirection.NoDep: "no_dep",
    ArgDirection.Scalar: "scalar",
}


# Texts of the non-zero, non-nan values printed so far (a program repeats few constants).
_FLOAT_TEXTS: dict[float, str] = {}
_FLOAT_TEXTS_MAX = 4096


def format_float(value: float) -> str:
    """C ``%.17g`` of the double, plus ``.0`` when the text would read as an integer.

    ``1.0``, ``0.5``, ``0.10000000000000001``, ``6.2771141529083252e-07``; nan/inf verbatim.
    """
    # 0.0 and -0.0 are one dict key but print differently; a nan never equals a stored key.
    if value:
        text = _FLOAT_TEXTS.get(value)
        if text is not None:
            return text
    if math.isnan(value) or math.isinf(value):
        return "%.17g" % value
    text = "%.17g" % value
    if "." not in text and "e" not in text:
        text += ".0"
    if value and len(_FLOAT_TEXTS) < _FLOAT_TEXTS_MAX:
        _FLOAT_TEXTS[value] = text
    return text


def float_is_negative(value: float) -> bool:
    """True when the printed literal starts with ``-`` (so it binds like a unary minus)."""
    return not math.isnan(value) and math.copysign(1.0, value) < 0


def dq(text: str) -> str:
    """A double-quoted Python string literal."""
    if '"' in text or "\\" in text or "\n" in text:
        return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'
    return '"' + text + '"'


def sq(text: str) -> str:
    """A single-quoted Python string literal (the form raw string kwargs print in)."""
    return repr(text)


def dtype_text(prefix: str, dtype: DataType) -> str:
    """``pl.FP32``."""
    return f"{prefix}.{dtype.name}"


def enum_text(prefix: str, value: Enum) -> str:
    """``pl.Mem.Vec``, ``pl.TileLayout.row_major``, ``pl.adir.input``, ``pl.Level.CHIP`` ..."""
    cls = type(value)
    if cls is ArgDirection:
        return f"{prefix}.adir.{_ADIR_NAMES[value]}"
    return f"{prefix}.{_ENUM_ALIAS.get(cls, cls.__name__)}.{value.name}"
