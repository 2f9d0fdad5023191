"""Keyword-attribute kinds: how each kind of op keyword is checked and stored (docs/ops.md#arguments).

``convert`` raises ``TypeError`` for a value of the wrong Python type and ``ValueError`` for a bad
value; the registry prefixes the message with the op and keyword names.
"""

from __future__ import annotations

import enum
import math
from typing import Any

from ..datatype import DataType
from ..enums import PadValue
from ..op_registry import KwType


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


class BoolKw(KwType):
    """A strict ``bool``."""


    def convert(self, value: Any) -> Any:
        if not isinstance(value, bool):
            raise TypeError(f"expects bool, got {type(value).__name__}")
        return value


class IntKw(KwType):
    """A strict ``int`` (IntEnum members are stored as their int), optionally range-checked."""


    def __init__(self, lo: int | None = None, hi: int | None = None) -> None:
        self.lo, self.hi = lo, hi

    def convert(self, value: Any) -> Any:
        if not _is_int(value):
            raise TypeError(f"expects int, got {type(value).__name__}")
        value = int(value)
        if (self.lo is not None and value < self.lo) or (self.hi is not None and value > self.hi):
            lo = "-inf" if self.lo is None else self.lo
            hi = "inf" if self.hi is None else self.hi
            raise ValueError(f"must be in [{lo}, {hi}], got {value}")
        return value


class FloatKw(KwType):
    """A number stored as ``float``."""


    def convert(self, value: Any) -> Any:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise TypeError(f"expects a number, got {type(value).__name__}")
        return float(value)


class StrKw(KwType):
    """A ``str``, optionally one of ``choices``; ``indexed``: an int ``i`` names ``choices[i]`` (the
    value of pto-isa's enum, as in ``coalesce=1`` for ``'elem'``)."""


    def __init__(self, choices: tuple[str, ...] | None = None, indexed: bool = False) -> None:
        self.choices = choices
        self.indexed = indexed

    def convert(self, value: Any) -> Any:
        if self.indexed and _is_int(value) and self.choices is not None:
            if not 0 <= int(value) < len(self.choices):
                raise ValueError(f"must be one of {', '.join(repr(c) for c in self.choices)} or its number "
                                 f"0-{len(self.choices) - 1}, got {value}")
            return self.choices[int(value)]
        if not isinstance(value, str):
            raise TypeError(f"expects str, got {type(value).__name__}")
        if self.choices is not None and value not in self.choices:
            raise ValueError(f"must be one of {', '.join(repr(c) for c in self.choices)}, got {value!r}")
        return value


class DTypeKw(KwType):
    """A ``DataType`` (a raw int code is accepted, as in the reference API)."""


    def convert(self, value: Any) -> Any:
        if isinstance(value, DataType):
            return value
        if _is_int(value):
            return DataType(int(value))
        raise TypeError(f"expects a DataType, got {type(value).__name__}")


class EnumKw(KwType):
    """An enum member, given as the member, its name or its int value.

    ``as_int`` stores the int value (PipeType, AtomicType, SplitMode); otherwise the member.
    """

    def __init__(self, enum_cls: type[enum.IntEnum], as_int: bool = False) -> None:
        self.enum_cls = enum_cls
        self.as_int = as_int

    def convert(self, value: Any) -> Any:
        cls = self.enum_cls
        if isinstance(value, cls):
            member = value
        elif isinstance(value, str):
            if value not in cls.__members__:
                names = ", ".join(cls.__members__)
                raise ValueError(f"must be a {cls.__name__} name ({names}), got {value!r}")
            member = cls.__members__[value]
        elif _is_int(value) and not isinstance(value, enum.Enum):
            try:
                member = cls(value)
            except ValueError:
                raise ValueError(f"is not a valid {cls.__name__} value: {value}") from None
        else:
            raise TypeError(f"expects a {cls.__name__}, got {type(value).__name__}")
        return int(member) if self.as_int else member


CAST_MODES = ("none", "rint", "round", "floor", "ceil", "trunc", "odd")


class CastModeKw(KwType):
    """Cast rounding mode: a name (``'round'``) or its int code; stored as the int."""


    def convert(self, value: Any) -> Any:
        if isinstance(value, str):
            if value not in CAST_MODES:
                raise ValueError(f"must be one of {', '.join(CAST_MODES)}, got {value!r}")
            return CAST_MODES.index(value)
        if _is_int(value):
            if not 0 <= value < len(CAST_MODES):
                raise ValueError(f"must be a cast mode code 0..{len(CAST_MODES) - 1}, got {value}")
            return int(value)
        raise TypeError(f"expects str or int, got {type(value).__name__}")


class PadValueKw(KwType):
    """A ``PadValue``; numeric sugar ``0`` -> zero, ``inf`` -> max, ``-inf`` -> min."""


    def __init__(self, allow_null: bool) -> None:
        self.allow_null = allow_null

    def convert(self, value: Any) -> Any:
        if isinstance(value, PadValue):
            member = value
        elif isinstance(value, bool) or not isinstance(value, (int, float)):
            raise TypeError(f"expects a PadValue, 0, math.inf or -math.inf, got {type(value).__name__}")
        elif value == 0:
            member = PadValue.zero
        elif value == math.inf:
            member = PadValue.max
        elif value == -math.inf:
            member = PadValue.min
        else:
            raise ValueError(f"numeric pad values are 0, math.inf and -math.inf, got {value}")
        if member == PadValue.null and not self.allow_null:
            raise ValueError("must not be PadValue.null")
        return member


BOOL = BoolKw()
INT = IntKw()
FLOAT = FloatKw()
STR = StrKw()
DTYPE = DTypeKw()
CAST_MODE = CastModeKw()
