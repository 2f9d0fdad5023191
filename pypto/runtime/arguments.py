"""Check a call's arguments against the program and stage them for the run.

Every tensor is copied into a private staging array that the simulator reads and writes; only after
a successful run are the written ones copied back, so a failed run never touches the caller's
arrays. Scalars become the raw 64-bit words the orchestration reads with ``from_u64<T>``.
"""

from __future__ import annotations

import ctypes
import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from pypto.ir.numpy_dtypes import datatype_of, numpy_dtype
from pypto.ir.errors import OpError
from pypto.ir.datatype import DataType

from .artifacts import ArtifactTree, Direction
from .device_tensor import DeviceTensor
from .dtypes import SIMPLER_DTYPES
from .errors import SimulatorArgumentError
from .host_arrays import torch_numpy

# The name of simpler's DataType member of each dtype a tensor argument may have.
@functools.cache
def _simpler_dtypes() -> dict[np.dtype, str]:
    """numpy dtype -> simpler's name (built on first use: bfloat16 needs ml_dtypes, a slow import)."""
    return {numpy_dtype(d): name for d, name in SIMPLER_DTYPES.items()}


def _simpler_dtype(name: str, dtype: DataType, held: np.dtype) -> str:
    """Simpler's name for the tensors of parameter ``name``, of ``dtype`` held as ``held`` (a dtype simpler
    names itself is found without building the numpy map); ``SimulatorArgumentError`` if it has none."""
    found = SIMPLER_DTYPES.get(dtype) or _simpler_dtypes().get(held)
    if found is None:
        raise SimulatorArgumentError(f"{name}: the simulator has no tensors of {dtype}")
    return found


_MASK64 = (1 << 64) - 1


@dataclass(frozen=True)
class TensorParam:
    """A tensor parameter of the orchestration function: the array must match dtype and shape exactly."""

    name: str
    dtype: DataType
    shape: tuple[int, ...]


@dataclass(frozen=True)
class ScalarParam:
    """A scalar parameter of the orchestration function, passed as a 64-bit word of ``dtype``."""

    name: str
    dtype: DataType


Param = TensorParam | ScalarParam


@dataclass(frozen=True)
class StagedTensor:
    """One tensor argument: the caller's array, the private copy the run uses, and its direction."""

    name: str
    caller: np.ndarray
    staged: np.ndarray
    direction: Direction
    simpler_dtype: str

    def write_back(self) -> None:
        """Copy the run's result into the caller's array when the program writes this tensor."""
        if self.direction.writes:
            np.copyto(self.caller, self.staged)


@dataclass(frozen=True)
class ResidentTensor:
    """A ``DeviceTensor`` argument: already in device memory, so neither uploaded nor copied back."""

    name: str
    device: DeviceTensor
    direction: Direction
    simpler_dtype: str

    def write_back(self) -> None:
        """Nothing to copy: the program wrote the device memory itself."""


@dataclass(frozen=True)
class BoundArguments:
    """The tensors (in orchestration order) and scalar words of one call."""

    tensors: tuple[StagedTensor | ResidentTensor, ...]
    scalars: tuple[int, ...]


def bind_arguments(tree: ArtifactTree, args: Sequence[object], params: Sequence[Param] | None) -> BoundArguments:
    """Check ``args`` against ``params`` (or, without them, against the orchestration signature alone).

    Raises ``SimulatorArgumentError`` for a wrong count, kind, dtype or shape, or a read-only output,
    before anything has run (a non-contiguous array is staged as a contiguous copy like any other).
    """
    signature = tree.orchestration.signature
    if params is None:
        params = [_inferred_param(i, arg) for i, arg in enumerate(args)]
    elif len(args) != len(params):
        names = ", ".join(p.name for p in params)
        raise SimulatorArgumentError(f"the program takes {len(params)} arguments ({names}), got {len(args)}")
    tensor_params = [p for p in params if isinstance(p, TensorParam)]
    if len(tensor_params) != len(signature):
        raise SimulatorArgumentError(
            f"the orchestration takes {len(signature)} tensors ({', '.join(d.name for d in signature)}), "
            f"got {len(tensor_params)}",
            "pass one array per tensor parameter, in parameter order, outputs included (a tensor the entry "
            "creates and returns is an Out tensor after the others)",
        )
    tensors: list[StagedTensor | ResidentTensor] = []
    scalars: list[int] = []
    for param, arg in zip(params, args):
        if isinstance(param, TensorParam):
            tensors.append(_stage(param, arg, signature[len(tensors)]))
        else:
            scalars.append(scalar_word(param, arg))
    return BoundArguments(tuple(tensors), tuple(scalars))


def _inferred_param(index: int, arg: object) -> Param:
    name = f"argument {index}"
    if _is_array(arg):
        array = _array(name, arg)
        return TensorParam(name, _datatype(name, array.dtype), tuple(array.shape))
    if isinstance(arg, np.generic):  # first: np.float64 is a float too
        return ScalarParam(name, _datatype(name, arg.dtype))
    if isinstance(arg, bool | int):
        return ScalarParam(name, DataType.INT64)
    if isinstance(arg, float):  # a plain float is single precision, as in the orchestration's to_u64(float)
        return ScalarParam(name, DataType.FP32)
    raise SimulatorArgumentError(f"{name} is a {type(arg).__name__}; expected an array or a scalar")


def _is_array(arg: object) -> bool:
    return isinstance(arg, np.ndarray) or type(arg).__module__.startswith("torch")


def _array(name: str, arg: object) -> np.ndarray:
    if isinstance(arg, np.ndarray):
        return arg
    if type(arg).__module__.startswith("torch") and hasattr(arg, "numpy"):
        if getattr(arg, "device", None) is not None and arg.device.type != "cpu":
            raise SimulatorArgumentError(f"{name} is a {arg.device} tensor", "pass a CPU tensor")
        return torch_numpy(arg)  # shares the tensor's memory, so results land in the tensor
    raise SimulatorArgumentError(f"{name} must be an array, got {type(arg).__name__}")


def _datatype(name: str, dtype: np.dtype) -> DataType:
    try:
        return datatype_of(dtype)
    except OpError:
        raise SimulatorArgumentError(f"{name} has dtype {dtype}, which pypto does not support") from None


def _numpy(name: str, dtype: DataType) -> np.dtype:
    try:
        return numpy_dtype(dtype)
    except OpError:
        raise SimulatorArgumentError(f"{name}: the simulator has no values of {dtype}") from None


def _stage(param: TensorParam, arg: object, direction: Direction) -> StagedTensor | ResidentTensor:
    if isinstance(arg, DeviceTensor):
        simpler_dtype = _simpler_dtype(param.name, param.dtype, _numpy(param.name, param.dtype))
        return ResidentTensor(param.name, check_device_tensor(param, arg), direction, simpler_dtype)
    array = check_tensor(param, arg, direction.writes)
    simpler_dtype = _simpler_dtype(param.name, param.dtype, array.dtype)
    return StagedTensor(param.name, array, array.copy(order="C"), direction, simpler_dtype)


def check_tensor(param: TensorParam, arg: object, writes: bool) -> np.ndarray:
    """``arg`` as a numpy array (a CPU torch tensor's memory shared) after checking it against ``param``.

    ``SimulatorArgumentError`` for a non-array, a wrong dtype or shape, or a read-only one the program
    ``writes``. Any memory layout is accepted: a run reads and writes a contiguous copy.
    """
    array = _array(param.name, arg)
    want = _numpy(param.name, param.dtype)
    _simpler_dtype(param.name, param.dtype, want)
    if array.dtype != want:
        raise SimulatorArgumentError(
            f"{param.name} must have dtype {want} ({param.dtype}), got {array.dtype}",
            f"convert it first, e.g. {param.name}.astype(np.{want.name})",
        )
    if tuple(array.shape) != tuple(param.shape):
        raise SimulatorArgumentError(f"{param.name} must have shape {list(param.shape)}, got {list(array.shape)}")
    if writes and not array.flags.writeable:
        raise SimulatorArgumentError(f"{param.name} is written by the program but the array is read-only")
    return array


def check_device_tensor(param: TensorParam, arg: DeviceTensor) -> DeviceTensor:
    """``arg`` after checking its rank, dims and dtype against ``param``."""
    if arg.datatype != param.dtype:
        raise SimulatorArgumentError(f"{param.name} must have dtype {param.dtype}, got a device tensor of {arg.dtype}")
    if arg.shape != tuple(param.shape):
        raise SimulatorArgumentError(
            f"{param.name} must have shape {list(param.shape)}, got a device tensor of shape {list(arg.shape)}"
        )
    return arg


def scalar_word(param: ScalarParam, value: object) -> int:
    """The 64-bit word passing ``value`` as ``param``; ``SimulatorArgumentError`` if it is no such scalar.

    A ctypes scalar (``ctypes.c_float(0.5)``, as the established API takes) passes its value.
    """
    if isinstance(value, ctypes._SimpleCData):
        value = value.value
    if not isinstance(value, bool | int | float | np.integer | np.floating | np.bool_):
        raise SimulatorArgumentError(f"{param.name} must be a scalar of {param.dtype}, got {type(value).__name__}")
    want = _numpy(param.name, param.dtype)
    if param.dtype.is_float():  # bfloat16 is numpy kind "V"
        too_big = SimulatorArgumentError(f"{param.name} = {value!r:.40} does not fit in {param.dtype}")
        try:
            number = float(value)
        except OverflowError:  # an int beyond every float
            raise too_big from None
        with np.errstate(over="ignore"):
            word = np.array(number, dtype=want)
        if np.isinf(word) and math.isfinite(number):  # NaN and infinity themselves pass as they are
            raise too_big
        return int(word.view(f"u{want.itemsize}"))
    if isinstance(value, float | np.floating) and not float(value).is_integer():
        raise SimulatorArgumentError(f"{param.name} is {param.dtype}, got the non-integer {value}")
    number = int(value)
    low, high = (0, 1) if want.kind == "b" else (int(np.iinfo(want).min), int(np.iinfo(want).max))
    if not low <= number <= high:
        raise SimulatorArgumentError(f"{param.name} = {number} does not fit in {param.dtype}")
    return number & _MASK64
