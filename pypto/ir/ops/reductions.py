"""Reduction and row/column broadcast rules shared by the tensor and tile families
(docs/ops.md#tensor-ops, docs/ops.md#tile-ops)."""

from __future__ import annotations

from ..datatype import DataType
from ..op_registry import Deduce as Rule
from ..op_registry import CallInfo
from ..type_base import Type
from ..types import TensorType
from .common import check_dtype, check_rank, const_value, format_dims, index, like_tile, promote, tensor_type
from .common import FLOAT_16_32, VECTOR_DTYPES, tile_type, valid_shape

D = DataType

# Element dtypes each reduction's instruction takes, where it restricts them (pto/cpu/T<Op>.hpp
# static_asserts; row_max/row_min: the a2a3 TROWMAX/TROWMIN, npu/a2a3/TRowReduceOps.hpp). col_max takes
# INT8/UINT8 but no wider integers.
REDUCE_DTYPES: dict[str, tuple[DataType, ...]] = {
    "row_sum": (D.FP16, D.BF16, D.FP32, D.INT16, D.INT32),
    "row_max": (D.INT16, D.INT32, D.FP16, D.FP32),
    "row_min": (D.INT16, D.INT32, D.FP16, D.FP32),
    "col_sum": (D.FP16, D.BF16, D.FP32),
    "col_max": (D.FP16, D.BF16, D.FP32, D.INT8, D.UINT8),
}

# Element dtypes of the row/column broadcast forms: pto/cpu/TRowExpandOp.hpp and TColExpandOp.hpp
# (IsRowExpandAllowedType / IsColExpandAllowedType): no BF16 or 8-bit types, except UINT8 for mul;
# expdif (an exp) floats only.
_EXPAND = (D.FP32, D.FP16, D.INT32, D.INT16, D.UINT32, D.UINT16)
EXPAND_DTYPES: dict[str, tuple[DataType, ...]] = {
    "add": _EXPAND, "sub": _EXPAND, "div": _EXPAND, "max": _EXPAND, "min": _EXPAND,
    "mul": (*_EXPAND, D.UINT8),
    "expdif": FLOAT_16_32,
}


def reduce_rule(axis: int, argmax: bool = False, allowed: tuple[DataType, ...] | None = None,
                param: str = "input") -> Rule:
    """Reduction along ``axis`` (-1 row, -2 column): the axis becomes 1."""

    def deduce(ci: CallInfo) -> Type:
        t = ci[param].type
        check_rank(ci, param, min_rank=-axis)
        if allowed is not None:
            check_dtype(ci, param, t.dtype, allowed)
        dims = list(t.shape)
        dims[axis] = index(1)
        valid = valid_shape(t)
        valid[axis] = index(1)
        dtype = D.INT32 if argmax else t.dtype
        if isinstance(t, TensorType):
            return tensor_type(dims, dtype, valid)
        return tile_type(dims, dtype, valid)

    deduce.__doc__ = f"Axis {axis} becomes 1 (rank kept)" + ("; INT32 indices" if argmax else "") + "."
    return deduce


def expand_rule(axis: int, promote_dtype: bool, vec_param: str = "vec", target: str = "input",
                allowed: tuple[DataType, ...] = VECTOR_DTYPES) -> Rule:
    """Broadcast a row (``[M, 1]``, axis -1) or column (``[1, N]``, axis -2) vector over ``target``;
    the (tensor: promoted) dtype must be one of ``allowed``."""

    def deduce(ci: CallInfo) -> Type:
        t, v = ci[target].type, ci[vec_param].type
        check_rank(ci, target, min_rank=2)
        if len(v.shape) != len(t.shape):
            ci.fail(f"'{vec_param}' must have rank {len(t.shape)}, got {format_dims(v.shape)}")
        other = -1 if axis == -2 else -2
        if const_value(v.shape[axis]) != 1:
            want = "[M, 1]" if axis == -1 else "[1, N]"
            ci.fail(f"'{vec_param}' must be a {want} vector, got {format_dims(v.shape)}")
        a, b = const_value(v.shape[other]), const_value(t.shape[other])
        if a is not None and b is not None and a != b:
            ci.fail(f"'{vec_param}' {format_dims(v.shape)} does not match {format_dims(t.shape)}")
        if isinstance(t, TensorType):
            dtype = promote(t.dtype, v.dtype) if promote_dtype else t.dtype
            check_dtype(ci, f"'{target}'", dtype, allowed)
            return tensor_type(list(t.shape), dtype)
        # The vector unit broadcasts within one dtype: a tile vector must match its target.
        check_dtype(ci, f"'{target}'", t.dtype, allowed)
        if v.dtype != t.dtype:
            ci.fail(f"'{vec_param}' dtype {v.dtype.name} must equal the '{target}' dtype {t.dtype.name}")
        dtype = t.dtype
        return like_tile(t, dtype=dtype)

    deduce.__doc__ = "Result has the target's shape; the vector is broadcast along one axis."
    return deduce
