"""Tensor operators (docs/ops.md#tensor-ops): creation, element access, elementwise, reductions, matmul.

Operands are GM tensors; results are plain ``TensorType``s unless stated. Tensor ops live in
orchestration functions and in InCore functions before ConvertTensorToTileOps lowers them.
"""

from __future__ import annotations

import functools
import math

from ..datatype import DataType
from ..enums import TensorLayout
from ..expr import ConstFloat, ConstInt
from ..op_registry import CallInfo
from ..op_registry import Deduce as Rule
from ..type_base import ScalarType, Type
from . import kwtypes as K
from .common import (
    ABS_DTYPES,
    CI_DTYPES,
    FLOAT_16_32,
    FLOAT_MATH_DTYPES,
    INT_16,
    PART_DTYPES,
    accumulator_dtype,
    axis_value,
    broadcast,
    check_binary_operands,
    check_dtype,
    check_rank,
    const_value,
    dim_equal,
    dims_equal,
    elements,
    format_dims,
    index,
    like_tensor,
    normalize_axis,
    promote,
    tensor_type,
    unary_rule,
    valid_shape,
)
from .decl import EVERYWHERE, KERNEL, TENSOR_LEVEL, W, define, kw, scalar, shape, tensor, tensor_or_scalar
from .decl import index as index_p
from .normalize import const_of, to_bool, to_tuple_or_single, value_of_kwarg_dtype, write_value
from .reductions import EXPAND_DTYPES, REDUCE_DTYPES, expand_rule, reduce_rule

D = DataType

# ---------------------------------------------------------------- creation and access


def _create(ci: CallInfo) -> Type:
    """``Tensor[shape, dtype]``; a non-ND layout gives a ``TensorView(stride=[], layout)``."""
    dims = elements(ci, "shape")
    init = ci.kw("init_value")
    if init is not None and (not math.isfinite(init) or abs(init) > 2**53):
        ci.fail(f"init_value must be finite with magnitude <= 2**53, got {init}")
    return tensor_type(dims, ci.kw("dtype"), layout=ci.kw("layout"))


def check_fill_value(ci: CallInfo, name: str, dtype: DataType) -> None:
    """``full``'s value: a constant of the requested dtype."""
    v = ci[name]
    if not isinstance(v, (ConstInt, ConstFloat)):
        ci.fail(f"argument '{name}' must be a constant, got {v.type}")
    if v.dtype != dtype:
        ci.fail(f"value {v.value!r} does not fit dtype {dtype.name}")


def _full(ci: CallInfo) -> Type:
    """``Tensor[shape, dtype]`` filled with a constant."""
    dims = elements(ci, "shape")
    check_fill_value(ci, "value", ci.kw("dtype"))
    return tensor_type(dims, ci.kw("dtype"))


def check_ci(ci: CallInfo, dims: list) -> DataType:
    """Shared checks of ``ci`` (arange): dtype set, start dtype, last dim not 1, leading dims 1."""
    dtype = ci.kw("dtype")
    check_dtype(ci, "ci", dtype, CI_DTYPES)
    start = ci["start"].type.dtype
    if start != dtype:
        ci.fail(f"start dtype {start.name} must equal dtype {dtype.name}")
    if not dims:
        ci.fail("shape must not be empty")
    if const_value(dims[-1]) == 1:
        ci.fail("the last dimension must not be 1")
    if any(const_value(d) != 1 for d in dims[:-1]):
        ci.fail(f"leading dimensions must be 1, got {format_dims(dims)}")
    return dtype


def _ci(ci: CallInfo) -> Type:
    """An index sequence ``start, start+1, ...`` (descending when asked) along the last axis."""
    dims = elements(ci, "shape")
    return tensor_type(dims, check_ci(ci, dims))


RANDOM_SEEDS = ("key0", "key1", "c0", "c1", "c2", "c3")


def check_random(ci: CallInfo, dims: list) -> DataType:
    dtype = ci.kw("dtype")
    check_dtype(ci, "random", dtype, (D.INT32, D.UINT32))
    if ci.kw("rounds") not in (7, 10):
        ci.fail(f"rounds must be 7 or 10, got {ci.kw('rounds')}")
    for seed in RANDOM_SEEDS:
        if ci[seed].type.dtype != D.INT32:
            ci.fail(f"argument '{seed}' must be an INT32 scalar, got {ci[seed].type.dtype.name}")
    if len(dims) != 2:
        ci.fail(f"shape must be 2-D, got {format_dims(dims)}")
    return dtype


def _random(ci: CallInfo) -> Type:
    """Philox random numbers of a 2-D shape."""
    dims = elements(ci, "shape")
    return tensor_type(dims, check_random(ci, dims))


def _create_l1(ci: CallInfo) -> Type:
    """An on-chip staging tensor for paged gathers."""
    return tensor_type(elements(ci, "shape"), ci.kw("dtype"))


def check_indices(ci: CallInfo, src: str) -> None:
    """One index per dimension; a constant index must lie inside a static dimension (the run would
    read or write another element without a word)."""
    idx = elements(ci, "indices")
    shape = ci[src].type.shape
    if len(idx) != len(shape):
        ci.fail(f"needs one index per dimension: {len(shape)} expected, got {len(idx)}")
    for axis, (i, d) in enumerate(zip(idx, shape)):
        k, n = const_value(i), const_value(d)
        if k is not None and (k < 0 or (n is not None and k >= n)):
            ci.fail(f"index {format_dims(idx)} is outside the shape {format_dims(list(shape))} (dimension {axis})")


def _read(ci: CallInfo) -> Type:
    """``Scalar[dtype]``: one element."""
    check_indices(ci, "tensor")
    return ScalarType(ci["tensor"].type.dtype)


def check_write_value(ci: CallInfo, src: str) -> None:
    v, t = ci["value"].type.dtype, ci[src].type.dtype
    if v != t:
        ci.fail(f"value dtype {v.name} must equal the element dtype {t.name}")


def _write(ci: CallInfo) -> Type:
    """The tensor's own type (one element overwritten)."""
    check_indices(ci, "tensor")
    check_write_value(ci, "tensor")
    return ci["tensor"].type


def _dim(ci: CallInfo) -> Type:
    """``Scalar[INDEX]``: the extent of one axis (negative axes count from the end)."""
    normalize_axis(ci, "axis", axis_value(ci, "axis"), len(ci["tensor"].type.shape))
    return ScalarType(D.INDEX)


def index_scalar(ci: CallInfo) -> Type:
    """``Scalar[INDEX]``."""
    return ScalarType(D.INDEX)


define("tensor.create", [shape("shape")], _create, placement=TENSOR_LEVEL,
       kwargs=[kw("dtype", K.DTYPE), kw("layout", K.EnumKw(TensorLayout), TensorLayout.ND),
               kw("manual_dep", K.BOOL, False, always=False), kw("init_value", K.FLOAT, None, always=False)])
define("tensor.full", [shape("shape"), scalar("value", norm=value_of_kwarg_dtype("dtype"))], _full,
       placement=TENSOR_LEVEL, kwargs=[kw("dtype", K.DTYPE)], signature=("shape", "dtype", "value"))
define("tensor.ci", [scalar("start", norm=value_of_kwarg_dtype("dtype")), shape("shape")], _ci,
       placement=TENSOR_LEVEL, kwargs=[kw("dtype", K.DTYPE, D.INT32), kw("descending", K.BOOL, False)])
define("tensor.random",
       [*(scalar(s, norm=const_of(D.INT32)) for s in RANDOM_SEEDS), shape("shape")], _random,
       placement=TENSOR_LEVEL, kwargs=[kw("dtype", K.DTYPE, D.UINT32), kw("rounds", K.INT, 10)])
define("tensor.create_l1", [shape("shape")], _create_l1, placement=TENSOR_LEVEL,
       kwargs=[kw("dtype", K.DTYPE), kw("transpose", K.BOOL, False)])
define("tensor.read", [tensor("tensor"), shape("indices", norm=to_tuple_or_single)], _read, placement=EVERYWHERE)
define("tensor.write", [tensor("tensor", effect=W), shape("indices", norm=to_tuple_or_single),
                        scalar("value", norm=write_value("tensor"))], _write, placement=EVERYWHERE)
define("tensor.dim", [tensor("tensor"), index_p("axis")], _dim, placement=EVERYWHERE)
for _name in ("get_block_idx", "get_subblock_idx", "get_block_num"):
    define(f"tensor.{_name}", [], index_scalar, placement=KERNEL)


# ---------------------------------------------------------------- elementwise


def _binary_rule(*, bitwise: bool = False, shift: bool = False, compare: bool = False) -> Rule:
    """Tensor-tensor (broadcast, promoted dtype) or tensor-scalar (lhs shape, promoted dtype)."""

    def deduce(ci: CallInfo) -> Type:
        lt, rt = ci["lhs"].type, ci["rhs"].type
        check_binary_operands(ci, bitwise=bitwise, shift=shift)
        if isinstance(rt, ScalarType):
            return like_tensor(lt, dtype=lt.dtype if shift else promote(lt.dtype, rt.dtype))
        if bitwise and not dims_equal(list(lt.shape), list(rt.shape)):
            ci.fail(f"requires identical shapes, but got {format_dims(lt.shape)} and {format_dims(rt.shape)}")
        dims = broadcast(ci, list(lt.shape), list(rt.shape))
        dtype = lt.dtype if shift else promote(lt.dtype, rt.dtype)
        keep = dims_equal(list(lt.shape), list(rt.shape)) and dims_equal(valid_shape(lt), valid_shape(rt))
        return tensor_type(dims, dtype, valid_shape(lt) if keep else None)

    deduce.__doc__ = (
        "Tensor-tensor: broadcast shape, promoted dtype; tensor-scalar: lhs shape, promoted dtype"
        + ("; integer dtypes, identical shapes" if bitwise else "")
        + ("; shifts keep the lhs dtype" if shift else "")
        + ("; 0/1 values in the promoted dtype" if compare else "")
        + "."
    )
    return deduce


_ARITH = _binary_rule()
_BITWISE = _binary_rule(bitwise=True)
_SHIFT = _binary_rule(bitwise=True, shift=True)
_COMPARE = _binary_rule(compare=True)
_HP = kw("high_precision", K.BOOL, False, always=False)

for _name in ("add", "sub", "mul", "div"):
    define(f"tensor.{_name}", [tensor("lhs"), tensor_or_scalar("rhs", pair="lhs")], _ARITH,
           placement=TENSOR_LEVEL, kwargs=[_HP] if _name == "div" else [])
    define(f"tensor.{_name}s", [tensor("lhs"), scalar("rhs", pair="lhs")], _ARITH, placement=TENSOR_LEVEL)
define("tensor.fmod", [tensor("lhs"), tensor("rhs")], _ARITH, placement=TENSOR_LEVEL)
define("tensor.fmods", [tensor("lhs"), scalar("rhs", pair="lhs")], _ARITH, placement=TENSOR_LEVEL)
for _name in ("maximum", "minimum"):
    define(f"tensor.{_name}", [tensor("lhs"), tensor_or_scalar("rhs", pair="lhs")], _ARITH, placement=TENSOR_LEVEL)


def _part(ci: CallInfo) -> Type:
    """Partial op over the union of two tensors: each dim is the larger of the two (equal ranks)."""
    lt, rt = ci["lhs"].type, ci["rhs"].type
    if len(lt.shape) != len(rt.shape):
        ci.fail(f"requires equal ranks, but got {format_dims(lt.shape)} and {format_dims(rt.shape)}")
    dims = []
    for a, b in zip(lt.shape, rt.shape):
        ca, cb = const_value(a), const_value(b)
        if ca is not None and cb is not None:
            dims.append(index(max(ca, cb)))
        elif dim_equal(a, b):
            dims.append(a)
        else:
            ci.fail(f"requires comparable shapes, but got {format_dims(lt.shape)} and {format_dims(rt.shape)}")
    dtype = promote(lt.dtype, rt.dtype)
    check_dtype(ci, "'lhs'", dtype, PART_DTYPES)
    return tensor_type(dims, dtype)


for _name in ("part_add", "part_mul", "part_max", "part_min"):
    define(f"tensor.{_name}", [tensor("lhs"), tensor("rhs")], _part, placement=TENSOR_LEVEL)

define("tensor.cmp", [tensor("lhs"), tensor_or_scalar("rhs", pair="lhs")], _COMPARE, placement=TENSOR_LEVEL,
       kwargs=[kw("cmp_type", K.IntKw(0, 5), 0)])
for _name in ("and", "or", "xor"):
    define(f"tensor.{_name}", [tensor("lhs"), tensor("rhs")], _BITWISE, placement=TENSOR_LEVEL)
    define(f"tensor.{_name}s", [tensor("lhs"), scalar("rhs", pair="lhs", bitwise=True)], _BITWISE,
           placement=TENSOR_LEVEL)
for _name in ("shl", "shr"):
    define(f"tensor.{_name}", [tensor("lhs"), tensor("rhs")], _SHIFT, placement=TENSOR_LEVEL)
    define(f"tensor.{_name}s", [tensor("lhs"), scalar("rhs", pair="lhs", bitwise=True)], _SHIFT,
           placement=TENSOR_LEVEL)


_unary = functools.partial(unary_rule, "input", like_tensor)


def _sqrt(ci: CallInfo) -> Type:
    """Same shape; an integer input gives FP32 (as in the established API), a float one its dtype."""
    t = ci["input"].type
    if t.dtype.is_int():
        return like_tensor(t, dtype=D.FP32)
    check_dtype(ci, "input", t.dtype, FLOAT_MATH_DTYPES)
    return like_tensor(t)


_UNARY = {
    "exp": _unary(FLOAT_MATH_DTYPES),
    "neg": _unary(),
    "abs": _unary(ABS_DTYPES),
    "sqrt": _sqrt,
    "sin": _unary((D.FP32,)),
    "cos": _unary((D.FP32,)),
    "not": _unary(INT_16),
    "log": _unary(FLOAT_16_32),
    "recip": _unary(FLOAT_MATH_DTYPES),
    "rsqrt": _unary(FLOAT_MATH_DTYPES),
}
for _name, _rule in _UNARY.items():
    define(f"tensor.{_name}", [tensor("input")], _rule, placement=TENSOR_LEVEL,
           kwargs=[_HP] if _name in ("log", "recip", "rsqrt") else [])


def check_cast(ci: CallInfo, src: DataType) -> DataType:
    target = ci.kw("target_type")
    if target == src:
        ci.fail(f"same-dtype cast is not a valid operation ({src.name} -> {target.name})")
    return target


def _cast(ci: CallInfo) -> Type:
    """Same shape, dtype ``target_type``."""
    t = ci["input"].type
    return like_tensor(t, dtype=check_cast(ci, t.dtype))


CAST_KWARGS = [kw("target_type", K.DTYPE), kw("mode", K.CAST_MODE, 2)]
define("tensor.cast", [tensor("input")], _cast, placement=TENSOR_LEVEL, kwargs=CAST_KWARGS)


def _expands(ci: CallInfo) -> Type:
    """A tensor of ``target``'s shape and dtype filled with the scalar."""
    return tensor_type(list(ci["target"].type.shape), ci["target"].type.dtype)


define("tensor.expands", [tensor("target"), scalar("scalar", pair="target")], _expands, placement=TENSOR_LEVEL)


def _expand_clone(ci: CallInfo) -> Type:
    """``src`` broadcast to ``target``'s shape (rank 3, at most one broadcast dim)."""
    s, t = ci["src"].type, ci["target"].type
    if len(s.shape) != 3 or len(t.shape) != 3:
        ci.fail(f"requires rank-3 operands, got {format_dims(s.shape)} and {format_dims(t.shape)}")
    differing = [i for i in range(3) if not dim_equal(s.shape[i], t.shape[i])]
    if len(differing) > 1 or any(const_value(s.shape[i]) != 1 for i in differing):
        ci.fail(f"can broadcast at most one unit dim: {format_dims(s.shape)} -> {format_dims(t.shape)}")
    return tensor_type(list(t.shape), s.dtype)


define("tensor.expand_clone", [tensor("src"), tensor("target")], _expand_clone, placement=TENSOR_LEVEL)


# ---------------------------------------------------------------- reductions and broadcasts


for _kind, _axis in (("row", -1), ("col", -2)):
    for _name in ("sum", "max", "min", "prod"):
        define(f"tensor.{_kind}_{_name}", [tensor("input")],
               reduce_rule(_axis, allowed=REDUCE_DTYPES.get(f"{_kind}_{_name}")), placement=TENSOR_LEVEL)
    for _name in ("argmax", "argmin"):
        define(f"tensor.{_kind}_{_name}", [tensor("input")], reduce_rule(_axis, argmax=True), placement=TENSOR_LEVEL)


for _kind, _axis in (("row", -1), ("col", -2)):
    define(f"tensor.{_kind}_expand", [tensor("target"), tensor("vec")],
           expand_rule(_axis, False, target="target"), placement=TENSOR_LEVEL)
    for _name, _allowed in EXPAND_DTYPES.items():
        define(f"tensor.{_kind}_expand_{_name}", [tensor("input"), tensor("vec")],
               expand_rule(_axis, True, allowed=_allowed),
               placement=TENSOR_LEVEL)


# ---------------------------------------------------------------- matmul


def _matmul(ci: CallInfo) -> Type:
    """``[M,K]x[K,N]->[M,N]`` (transpose flags read an operand swapped); 1-D and batched forms."""
    lt, rt = ci["lhs"].type, ci["rhs"].type
    a_trans, b_trans = ci.kw("a_trans"), ci.kw("b_trans")
    lhs, rhs = list(lt.shape), list(rt.shape)
    if not lhs or not rhs:
        ci.fail("operands must have rank >= 1")
    if (a_trans and len(lhs) == 1) or (b_trans and len(rhs) == 1):
        ci.fail("a transpose flag cannot apply to a 1-D operand")
    if a_trans:
        lhs[-1], lhs[-2] = lhs[-2], lhs[-1]
    if b_trans:
        rhs[-1], rhs[-2] = rhs[-2], rhs[-1]
    k_l = lhs[-1]
    k_r = rhs[0] if len(rhs) == 1 else rhs[-2]
    ka, kb = const_value(k_l), const_value(k_r)
    if ka is not None and kb is not None and ka != kb:
        ci.fail(f"inner dimensions differ: {format_dims(lt.shape)} x {format_dims(rt.shape)} (K {ka} vs {kb})")
    if len(lhs) == 1 and len(rhs) == 1:
        dims: list = []
    elif len(lhs) == 1:
        dims = rhs[:-2] + [rhs[-1]]
    elif len(rhs) == 1:
        dims = lhs[:-1]
    else:
        dims = broadcast(ci, lhs[:-2], rhs[:-2]) + [lhs[-2], rhs[-1]]
    dtype = ci.kw("out_dtype") or promote(lt.dtype, rt.dtype)
    return tensor_type(dims, dtype)


define("tensor.matmul", [tensor("lhs"), tensor("rhs")], _matmul, placement=TENSOR_LEVEL,
       kwargs=[kw("a_trans", K.BOOL, False), kw("b_trans", K.BOOL, False), kw("c_matrix_nz", K.BOOL, False),
               kw("out_dtype", K.DTYPE, None, always=False)],
       signature=("lhs", "rhs", "out_dtype", "a_trans", "b_trans", "c_matrix_nz"))


def _matmul_acc(ci: CallInfo) -> Type:
    """``acc``'s type; ``acc += lhs @ rhs`` (accumulator FP32 for float inputs, INT32 otherwise)."""
    at, lt, rt = ci["acc"].type, ci["lhs"].type, ci["rhs"].type
    for name in ("acc", "lhs", "rhs"):
        check_rank(ci, name, min_rank=2)
    if lt.dtype != rt.dtype:
        ci.fail(f"lhs and rhs dtypes must be equal, got {lt.dtype.name} and {rt.dtype.name}")
    want = accumulator_dtype(lt.dtype)
    if at.dtype != want:
        ci.fail(f"acc dtype must be {want.name} for {lt.dtype.name} inputs, got {at.dtype.name}")
    lhs, rhs = list(lt.shape), list(rt.shape)
    if ci.kw("a_trans"):
        lhs[-1], lhs[-2] = lhs[-2], lhs[-1]
    if ci.kw("b_trans"):
        rhs[-1], rhs[-2] = rhs[-2], rhs[-1]
    for what, x, y in (("M", lhs[-2], at.shape[-2]), ("N", rhs[-1], at.shape[-1]), ("K", lhs[-1], rhs[-2])):
        cx, cy = const_value(x), const_value(y)
        if cx is not None and cy is not None and cx != cy:
            ci.fail(f"{what} dimensions differ ({cx} vs {cy})")
    if ci["init_cond"] is not None and ci["init_cond"].type.dtype != D.BOOL:
        ci.fail("init_cond must be a BOOL scalar")
    return at


define("tensor.matmul_acc", [tensor("acc"), tensor("lhs"), tensor("rhs"), scalar("init_cond", optional=True, norm=to_bool)],
       _matmul_acc, placement=TENSOR_LEVEL,
       kwargs=[kw("a_trans", K.BOOL, False), kw("b_trans", K.BOOL, False)],
       signature=("acc", "lhs", "rhs", "a_trans", "b_trans", "init_cond"))
