"""One table of tensor element types and one torch predicate serve the runtime and ``@pl.jit``:
both take the unsigned types simpler passes, and neither mistakes a torchvision object for torch."""

from __future__ import annotations

import numpy as np
import pytest

from pypto.ir import DataType
from pypto.jit.metadata import TensorMeta, tensor_meta
from pypto.runtime.device_tensor import datatype
from pypto.runtime.host_arrays import TENSOR_DTYPES, is_torch_tensor

torch = pytest.importorskip("torch")


class _Lookalike:
    """A torchvision-style object: tensor-like attributes, but not a torch type."""

    dtype = "torch.float32"
    shape = (2, 2)

    def numpy(self) -> np.ndarray:
        return np.zeros((2, 2), np.float32)


_Lookalike.__module__ = "torchvision.tv_tensors"


def test_a_type_from_a_package_named_like_torch_is_no_torch_tensor() -> None:
    assert is_torch_tensor(torch.zeros(2)) and is_torch_tensor(torch.nn.Parameter(torch.zeros(2)))
    assert not is_torch_tensor(_Lookalike()) and not is_torch_tensor(np.zeros(2))
    assert tensor_meta(_Lookalike(), "a") is None


@pytest.mark.parametrize("name", ["uint16", "uint32", "uint64", "float8_e4m3fn"])
def test_the_runtime_and_the_jit_read_a_dtype_alike(name: str) -> None:
    expected = TENSOR_DTYPES[name]
    host = torch.zeros(2, 3, dtype=getattr(torch, name))
    assert datatype(host.dtype) == expected
    assert tensor_meta(host, "a") == TensorMeta((2, 3), expected)
    if name.startswith("uint"):
        assert tensor_meta(np.zeros((2, 3), name), "a") == TensorMeta((2, 3), expected)
        assert datatype(np.dtype(name)) == expected


def test_a_dtype_outside_the_table_is_refused_by_both() -> None:
    with pytest.raises(TypeError, match="Unsupported torch dtype torch.float64 for parameter 'a'; use one of"):
        tensor_meta(torch.zeros(2, dtype=torch.float64), "a")
    with pytest.raises(TypeError, match="Unsupported torch dtype torch.float64"):
        datatype(torch.float64)
    assert DataType.UINT16 in TENSOR_DTYPES.values()
