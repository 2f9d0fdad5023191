"""CPU torch tensors as numpy arrays sharing their memory, bfloat16 included; torch is imported lazily.

``Tensor.numpy()`` refuses ``torch.bfloat16`` (numpy has no such type): such a tensor is viewed as
int16 and reinterpreted as ``ml_dtypes.bfloat16``, still sharing the tensor's memory.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pypto.ir.datatype import DataType
from pypto.ir.numpy_dtypes import numpy_dtype

# Tensor element type name -> pypto DataType: a torch dtype's name without ``torch.``, which is also the
# numpy (or ml_dtypes) dtype's name; the dtypes a call's tensor may have (simpler passes each of them).
TENSOR_DTYPES: dict[str, DataType] = {
    "float16": DataType.FP16,
    "float32": DataType.FP32,
    "bfloat16": DataType.BF16,
    "int8": DataType.INT8,
    "int16": DataType.INT16,
    "int32": DataType.INT32,
    "int64": DataType.INT64,
    "uint8": DataType.UINT8,
    "uint16": DataType.UINT16,
    "uint32": DataType.UINT32,
    "uint64": DataType.UINT64,
    "bool": DataType.BOOL,
    "float8_e4m3fn": DataType.FP8E4M3FN,
    "float8_e5m2": DataType.FP8E5M2,
    "float8_e8m0fnu": DataType.FP8E8M0,
}


def from_torch(value: object) -> bool:
    """Whether ``value``'s type is defined in torch (not in a package such as torchvision)."""
    return type(value).__module__.split(".")[0] == "torch"


def is_torch_tensor(value: object) -> bool:
    """Whether ``value`` is a torch tensor (without importing torch)."""
    return from_torch(value) and all(hasattr(value, a) for a in ("dtype", "shape", "numpy"))


def torch_datatype(dtype: Any) -> DataType:
    """The pypto ``DataType`` of a ``torch.dtype``; ``TypeError`` for one pypto has no tensors of."""
    name = str(dtype).removeprefix("torch.")
    if name not in TENSOR_DTYPES:
        raise TypeError(f"Unsupported torch dtype {dtype}")
    return TENSOR_DTYPES[name]


def torch_numpy(tensor: Any) -> np.ndarray:
    """A CPU torch tensor as a numpy array sharing its memory (bfloat16 as ``ml_dtypes.bfloat16``)."""
    import torch

    tensor = tensor.detach()
    if tensor.dtype == torch.bfloat16:
        return tensor.view(torch.int16).numpy().view(numpy_dtype(DataType.BF16))
    return tensor.numpy()


def torch_from_numpy(array: np.ndarray) -> Any:
    """A torch tensor sharing ``array``'s memory (a bfloat16 array becomes a ``torch.bfloat16`` tensor)."""
    import torch

    if array.dtype == numpy_dtype(DataType.BF16):
        return torch.from_numpy(array.view(np.int16)).view(torch.bfloat16)
    return torch.from_numpy(array)
