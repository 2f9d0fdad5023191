"""simpler's ``DataType`` spelling of each pypto dtype (task_interface/data_type.h): one table for
the orchestration C++ the code generator prints and the tensors the runner stages."""

from __future__ import annotations

from pypto.ir.datatype import DataType

SIMPLER_DTYPES: dict[DataType, str] = {
    DataType.FP32: "FLOAT32",
    DataType.FP16: "FLOAT16",
    DataType.BF16: "BFLOAT16",
    DataType.INT8: "INT8",
    DataType.INT16: "INT16",
    DataType.INT32: "INT32",
    DataType.INT64: "INT64",
    DataType.UINT8: "UINT8",
    DataType.UINT16: "UINT16",
    DataType.UINT32: "UINT32",
    DataType.UINT64: "UINT64",
    DataType.BOOL: "BOOL",
}
