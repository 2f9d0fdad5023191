"""DataType <-> numpy mapping, scalar normalisation and tolerances."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from pypto.interp.tolerance import tolerance
from pypto.ir.numpy_dtypes import datatype_of, normalize_scalar, numpy_dtype
from pypto.interp.errors import OpError
from pypto.ir import DataType as D

EXPECTED = {
    D.BOOL: np.bool_,
    D.INT4: ml_dtypes.int4,
    D.INT8: np.int8,
    D.INT16: np.int16,
    D.INT32: np.int32,
    D.INT64: np.int64,
    D.INDEX: np.int64,
    D.UINT4: ml_dtypes.uint4,
    D.UINT8: np.uint8,
    D.UINT16: np.uint16,
    D.UINT32: np.uint32,
    D.UINT64: np.uint64,
    D.FP4: ml_dtypes.float4_e2m1fn,
    D.FP8E4M3FN: ml_dtypes.float8_e4m3fn,
    D.FP8E5M2: ml_dtypes.float8_e5m2,
    D.FP8E8M0: ml_dtypes.float8_e8m0fnu,
    D.FP16: np.float16,
    D.FP32: np.float32,
    D.BF16: ml_dtypes.bfloat16,
}


@pytest.mark.parametrize("dtype", list(EXPECTED), ids=str)
def test_numpy_dtype(dtype: D) -> None:
    assert numpy_dtype(dtype) == np.dtype(EXPECTED[dtype])


@pytest.mark.parametrize("dtype", [D.HF4, D.HF8], ids=str)
def test_unsupported_dtype_is_an_error(dtype: D) -> None:
    with pytest.raises(OpError, match=f"unsupported dtype {dtype}: no exact numpy/ml_dtypes equivalent"):
        numpy_dtype(dtype)


def test_datatype_of_prefers_int64_over_index() -> None:
    assert datatype_of(np.dtype(np.int64)) == D.INT64
    assert datatype_of(np.dtype(ml_dtypes.bfloat16)) == D.BF16


@pytest.mark.parametrize(
    ("value", "dtype", "expected"),
    [
        (128, D.INT8, -128),
        (-129, D.INT8, 127),
        (2**63, D.INDEX, -(2**63)),
        (-1, D.UINT8, 255),
        (300, D.UINT8, 44),
        (8, D.INT4, -8),
        (3.9, D.INT32, 3),
        (-3.9, D.INT32, -3),
        (0.1, D.FP32, float(np.float32(0.1))),
        (0.1, D.FP16, float(np.float16(0.1))),
        (1.0 / 3.0, D.BF16, float(np.asarray(1.0 / 3.0).astype(ml_dtypes.bfloat16))),
        (2, D.BOOL, True),
        (0, D.BOOL, False),
    ],
)
def test_normalize_scalar(value: object, dtype: D, expected: object) -> None:
    got = normalize_scalar(value, dtype)
    assert got == expected
    assert type(got) is type(expected)


def test_normalize_non_finite_to_int_fails() -> None:
    with pytest.raises(OpError, match="cannot convert inf to int32"):
        normalize_scalar(float("inf"), D.INT32)


def test_tolerance() -> None:
    assert tolerance(D.FP32) == (1e-5, 1e-5)
    assert tolerance(D.BF16) == (3e-2, 1e-2)
    assert tolerance(D.INT32) == (0.0, 0.0)
