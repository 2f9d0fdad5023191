"""Element data types (``DataType``), keyed by a one-byte code as in the reference API."""

from __future__ import annotations

from typing import ClassVar

# name -> (code, bits, text, C type)
_TABLE: dict[str, tuple[int, int, str, str]] = {
    "BOOL": (0x00, 1, "bool", "bool"),
    "INT4": (0x10, 4, "int4", "unknown"),
    "INT8": (0x11, 8, "int8", "int8_t"),
    "INT16": (0x12, 16, "int16", "int16_t"),
    "INT32": (0x13, 32, "int32", "int32_t"),
    "INT64": (0x14, 64, "int64", "int64_t"),
    "INDEX": (0x15, 64, "index", "int64_t"),
    "UINT4": (0x20, 4, "uint4", "unknown"),
    "UINT8": (0x21, 8, "uint8", "uint8_t"),
    "UINT16": (0x22, 16, "uint16", "uint16_t"),
    "UINT32": (0x23, 32, "uint32", "uint32_t"),
    "UINT64": (0x24, 64, "uint64", "uint64_t"),
    "FP4": (0x30, 4, "fp4", "unknown"),
    "FP8E4M3FN": (0x31, 8, "fp8e4m3fn", "unknown"),
    "FP8E5M2": (0x32, 8, "fp8e5m2", "unknown"),
    "FP16": (0x33, 16, "fp16", "half"),
    "FP32": (0x34, 32, "fp32", "float"),
    "FP8E8M0": (0x36, 8, "fp8e8m0", "unknown"),
    "BF16": (0x40, 16, "bfloat16", "bfloat16_t"),
    "HF4": (0x41, 4, "hf4", "unknown"),
    "HF8": (0x42, 8, "hf8", "unknown"),
    "TASK_ID": (0x50, 64, "task_id", "unknown"),
}


class DataType:
    """An element type. Instances are interned: one object per code (construction, copies and
    pickles all return it), so equality is object identity (``object.__eq__``, no Python call: the
    compiler compares dtypes everywhere); the hash is by code."""

    __slots__ = ("_code", "_name", "_bits", "_text", "_ctype")
    _by_code: ClassVar[dict[int, DataType]] = {}
    _by_name: ClassVar[dict[str, DataType]] = {}

    BOOL: ClassVar[DataType]
    INT4: ClassVar[DataType]
    INT8: ClassVar[DataType]
    INT16: ClassVar[DataType]
    INT32: ClassVar[DataType]
    INT64: ClassVar[DataType]
    INDEX: ClassVar[DataType]
    UINT4: ClassVar[DataType]
    UINT8: ClassVar[DataType]
    UINT16: ClassVar[DataType]
    UINT32: ClassVar[DataType]
    UINT64: ClassVar[DataType]
    FP4: ClassVar[DataType]
    FP8E4M3FN: ClassVar[DataType]
    FP8E5M2: ClassVar[DataType]
    FP16: ClassVar[DataType]
    FP32: ClassVar[DataType]
    FP8E8M0: ClassVar[DataType]
    BF16: ClassVar[DataType]
    HF4: ClassVar[DataType]
    HF8: ClassVar[DataType]
    TASK_ID: ClassVar[DataType]
    DEFAULT_CONST_INT: ClassVar[DataType]
    DEFAULT_CONST_FLOAT: ClassVar[DataType]

    def __new__(cls, code: int | DataType) -> DataType:
        if isinstance(code, DataType):
            return code
        if isinstance(code, bool) or not isinstance(code, int):
            raise TypeError(f"DataType code must be an int, got {type(code).__name__}")
        try:
            return cls._by_code[code]
        except KeyError:
            raise ValueError(f"Unknown DataType code 0x{code:02x}") from None

    @classmethod
    def _make(cls, name: str, code: int, bits: int, text: str, ctype: str) -> DataType:
        self = object.__new__(cls)
        self._code, self._name, self._bits, self._text, self._ctype = code, name, bits, text, ctype
        cls._by_code[code] = self
        cls._by_name[name] = self
        return self

    @classmethod
    def from_name(cls, name: str) -> DataType:
        """The member named ``name`` (upper-case member name, e.g. ``"FP32"``)."""
        try:
            return cls._by_name[name]
        except KeyError:
            raise ValueError(f"Unknown DataType name '{name}'") from None

    @classmethod
    def all(cls) -> list[DataType]:
        """Every member, in code order."""
        return [cls._by_code[c] for c in sorted(cls._by_code)]

    @property
    def name(self) -> str:
        """The upper-case member name (``FP32``), as printed after the DSL prefix."""
        return self._name

    def code(self) -> int:
        return self._code

    def get_bit(self) -> int:
        return self._bits

    def get_byte(self) -> int:
        return (self._bits + 7) // 8

    def to_string(self) -> str:
        return self._text

    def to_c_type_string(self) -> str:
        return self._ctype

    def is_float(self) -> bool:
        return 0x30 <= self._code <= 0x4F

    def is_signed_int(self) -> bool:
        return 0x10 <= self._code <= 0x1F

    def is_unsigned_int(self) -> bool:
        return 0x20 <= self._code <= 0x2F

    def is_int(self) -> bool:
        return self.is_signed_int() or self.is_unsigned_int()

    def is_bool(self) -> bool:
        return self._code == 0x00

    def is_task_id(self) -> bool:
        return self._code == 0x50

    def __hash__(self) -> int:
        return hash(("DataType", self._code))

    def __str__(self) -> str:
        return self._text

    def __repr__(self) -> str:
        return self._text

    def __reduce__(self) -> tuple:
        return (DataType, (self._code,))

    def __copy__(self) -> DataType:
        return self

    def __deepcopy__(self, memo: dict) -> DataType:
        return self


for _name, (_code, _bits, _text, _ctype) in _TABLE.items():
    setattr(DataType, _name, DataType._make(_name, _code, _bits, _text, _ctype))
DataType.DEFAULT_CONST_INT = DataType.INT64
DataType.DEFAULT_CONST_FLOAT = DataType.FP32
