"""What a ``@pl.jit`` call reads from its arguments: a tensor's shape and dtype (torch tensors and
numpy arrays; torch is never imported here), or a Python scalar to specialise on."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pypto.ir import DataType

# torch dtype (as ``str(t.dtype)``) -> DataType.
_TORCH = {
    "torch.float16": DataType.FP16, "torch.float32": DataType.FP32, "torch.bfloat16": DataType.BF16,
    "torch.int8": DataType.INT8, "torch.int16": DataType.INT16, "torch.int32": DataType.INT32,
    "torch.int64": DataType.INT64, "torch.uint8": DataType.UINT8, "torch.bool": DataType.BOOL,
    "torch.float8_e4m3fn": DataType.FP8E4M3FN, "torch.float8_e5m2": DataType.FP8E5M2,
    "torch.float8_e8m0fnu": DataType.FP8E8M0,
}
# numpy dtype name -> DataType (``bfloat16`` is ml_dtypes').
_NUMPY = {
    "float16": DataType.FP16, "float32": DataType.FP32, "bfloat16": DataType.BF16, "int8": DataType.INT8,
    "int16": DataType.INT16, "int32": DataType.INT32, "int64": DataType.INT64, "uint8": DataType.UINT8,
    "bool": DataType.BOOL,
}


@dataclass(frozen=True)
class TensorMeta:
    """A tensor argument as the specialisation sees it: ``shape`` (None for a dynamic dim), ``dtype``."""

    shape: tuple[int | None, ...]
    dtype: DataType


def is_torch_tensor(value: Any) -> bool:
    return type(value).__module__.split(".")[0] == "torch" and hasattr(value, "dtype") and hasattr(value, "shape")


def tensor_meta(value: Any, param: str) -> TensorMeta | None:
    """The metadata of a tensor argument, None when ``value`` is no tensor; TypeError for a tensor
    pypto cannot take (a dtype without a DSL type, a torch tensor off the CPU)."""
    if is_torch_tensor(value):
        name = str(value.dtype)
        if name == "torch.float4_e2m1fn_x2":
            raise TypeError(f"parameter '{param}': torch.float4_e2m1fn_x2 tensors are not supported by pypto")
        dtype = _TORCH.get(name)
        if dtype is None:
            raise TypeError(f"Unsupported torch dtype {name} for parameter '{param}'; use one of "
                            + ", ".join(sorted(_TORCH)))
        if value.device.type != "cpu":
            raise TypeError(f"parameter '{param}': the tensor is on {value.device}; pypto runs on the a2a3sim "
                            "simulator and takes CPU tensors (move it with .cpu())")
        return TensorMeta(tuple(int(d) for d in value.shape), dtype)
    if type(value).__module__ == "numpy" and hasattr(value, "dtype") and hasattr(value, "shape"):
        dtype = _NUMPY.get(value.dtype.name)
        if dtype is None:
            raise TypeError(f"Unsupported numpy dtype {value.dtype.name} for parameter '{param}'; use one of "
                            + ", ".join(sorted(_NUMPY)))
        return TensorMeta(tuple(int(d) for d in value.shape), dtype)
    return None
