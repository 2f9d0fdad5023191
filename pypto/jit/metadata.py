"""What a ``@pl.jit`` call reads from its arguments: a tensor's shape and dtype (torch tensors and
numpy arrays; torch is never imported here), or a Python scalar to specialise on."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pypto.ir import DataType
from pypto.runtime.host_arrays import TENSOR_DTYPES, is_torch_tensor


@dataclass(frozen=True)
class TensorMeta:
    """A tensor argument as the specialisation sees it: ``shape`` (None for a dynamic dim), ``dtype``."""

    shape: tuple[int | None, ...]
    dtype: DataType


def tensor_meta(value: Any, param: str) -> TensorMeta | None:
    """The metadata of a tensor argument, None when ``value`` is no tensor; TypeError for a tensor
    pypto cannot take (a dtype without a DSL type, a torch tensor off the CPU)."""
    if is_torch_tensor(value):
        name = str(value.dtype)
        if name == "torch.float4_e2m1fn_x2":
            raise TypeError(f"parameter '{param}': torch.float4_e2m1fn_x2 tensors are not supported by pypto")
        dtype = TENSOR_DTYPES.get(name.removeprefix("torch."))
        if dtype is None:
            raise TypeError(f"Unsupported torch dtype {name} for parameter '{param}'; use one of "
                            + ", ".join(f"torch.{n}" for n in sorted(TENSOR_DTYPES)))
        if value.device.type != "cpu":
            raise TypeError(f"parameter '{param}': the tensor is on {value.device}; pypto runs on the a2a3sim "
                            "simulator and takes CPU tensors (move it with .cpu())")
        return TensorMeta(tuple(int(d) for d in value.shape), dtype)
    if type(value).__module__ == "numpy" and hasattr(value, "dtype") and hasattr(value, "shape"):
        dtype = TENSOR_DTYPES.get(value.dtype.name)
        if dtype is None:
            raise TypeError(f"Unsupported numpy dtype {value.dtype.name} for parameter '{param}'; use one of "
                            + ", ".join(sorted(TENSOR_DTYPES)))
        return TensorMeta(tuple(int(d) for d in value.shape), dtype)
    return None
