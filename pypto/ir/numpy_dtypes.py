"""Element types as numpy holds them: ``DataType`` <-> numpy dtype, and scalar normalisation.

Narrow floats and 4-bit integers come from ``ml_dtypes``. A DataType without an exact numpy or
``ml_dtypes`` equivalent (HF4, HF8) is rejected with an "unsupported dtype" error; values are never
silently widened to float32.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np

from pypto.ir.datatype import DataType

from .errors import OpError

_NUMPY: dict[DataType, np.dtype] = {
    DataType.BOOL: np.dtype(np.bool_),
    DataType.INT8: np.dtype(np.int8),
    DataType.INT16: np.dtype(np.int16),
    DataType.INT32: np.dtype(np.int32),
    DataType.INT64: np.dtype(np.int64),
    DataType.INDEX: np.dtype(np.int64),
    DataType.UINT8: np.dtype(np.uint8),
    DataType.UINT16: np.dtype(np.uint16),
    DataType.UINT32: np.dtype(np.uint32),
    DataType.UINT64: np.dtype(np.uint64),
    DataType.FP16: np.dtype(np.float16),
    DataType.FP32: np.dtype(np.float32),
    # Task ids are opaque integers.
    DataType.TASK_ID: np.dtype(np.int64),
}

# The dtypes ml_dtypes defines, by attribute name. Importing ml_dtypes takes about half a second,
# so it is imported when one of them is first needed, not by every compile.
_ML_DTYPES: dict[DataType, str] = {
    DataType.INT4: "int4",
    DataType.UINT4: "uint4",
    DataType.FP4: "float4_e2m1fn",
    DataType.FP8E4M3FN: "float8_e4m3fn",
    DataType.FP8E5M2: "float8_e5m2",
    DataType.FP8E8M0: "float8_e8m0fnu",
    DataType.BF16: "bfloat16",
}


@functools.cache
def _ml_dtype(dtype: DataType) -> np.dtype:
    import ml_dtypes

    return np.dtype(getattr(ml_dtypes, _ML_DTYPES[dtype]))


def numpy_dtype(dtype: DataType) -> np.dtype:
    """The numpy dtype holding values of ``dtype``; ``OpError`` if there is no exact equivalent."""
    found = _NUMPY.get(dtype)
    if found is not None:
        return found
    if dtype in _ML_DTYPES:
        return _ml_dtype(dtype)
    raise OpError(f"unsupported dtype {dtype}: no exact numpy/ml_dtypes equivalent")


def datatype_of(np_dtype: np.dtype) -> DataType:
    """The DataType of a numpy dtype (INT64 for int64; INDEX is never inferred)."""
    for dt, nd in _NUMPY.items():
        if nd == np_dtype and dt not in (DataType.INDEX, DataType.TASK_ID):
            return dt
    for dt in _ML_DTYPES:
        if _ml_dtype(dt) == np_dtype:
            return dt
    raise OpError(f"numpy dtype {np_dtype} has no pypto DataType")


def normalize_scalar(value: Any, dtype: DataType) -> Any:
    """A Python scalar holding ``value`` converted to ``dtype``.

    Integers wrap to the type's width (two's complement), floats are rounded to the type's precision,
    BOOL becomes ``bool``; float -> int conversion truncates toward zero.
    """
    if dtype.is_bool():
        return bool(value)
    if dtype.is_int() or dtype.is_task_id():
        if isinstance(value, float):
            if not math.isfinite(value):
                raise OpError(f"cannot convert {value} to {dtype}")
            value = int(value)
        value = int(value)
        bits = dtype.get_bit()
        if dtype.is_unsigned_int():
            return value & ((1 << bits) - 1)
        half = 1 << (bits - 1)
        if -half <= value < half:
            return value
        return ((value + half) & ((1 << bits) - 1)) - half
    if dtype == DataType.FP32 and isinstance(value, float):
        return float(np.float32(value))
    # Overflow rounds to inf, as the hardware does: not worth a warning.
    with np.errstate(over="ignore"):
        return float(np.asarray(float(value)).astype(numpy_dtype(dtype)).astype(np.float64))
