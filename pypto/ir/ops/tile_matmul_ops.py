"""Tile matmul family and tile reductions/broadcasts (docs/ops.md#tile-ops).

Cube ops read Left/Right (and Bias, LeftScale/RightScale) tiles and produce Acc tiles; the
reductions and row/column broadcasts are vector ops.
"""

from __future__ import annotations

from ..datatype import DataType
from ..enums import MemorySpace, TileLayout
from ..op_registry import Deduce as Rule
from ..op_registry import INHERIT, CallInfo
from ..type_base import Type
from ..types import TileType
from . import kwtypes as K
from .common import (
    accumulator_dtype,
    broadcast,
    check_dtype,
    check_rank,
    const_value,
    dims_equal,
    format_dims,
    tile_type,
    valid_shape,
)
from .decl import CUBE, SCRATCH, VECTOR, Acc, Bias, Left, Right, RW, Vec, define, kw, mem, scalar, tile
from .normalize import to_bool
from .reductions import EXPAND_DTYPES, REDUCE_DTYPES, expand_rule, reduce_rule

D = DataType
LeftScale, RightScale = MemorySpace.LeftScale, MemorySpace.RightScale
ACC = MemorySpace.Acc


def check_k(ci: CallInfo, lt: TileType, rt: TileType) -> None:
    """Static physical K must match; rhs valid K must cover lhs valid K."""
    kl, kr = const_value(lt.shape[-1]), const_value(rt.shape[-2])
    if kl is not None and kr is not None and kl != kr:
        ci.fail(f"requires matching physical inner dimensions, got {format_dims(lt.shape)} x {format_dims(rt.shape)}")
    vl, vr = const_value(valid_shape(lt)[-1]), const_value(valid_shape(rt)[-2])
    if vl is not None and vr is not None and vr < vl:
        ci.fail(f"rhs valid K ({vr}) must cover lhs valid K ({vl})")


def matmul_result(ci: CallInfo, lhs: str = "lhs", rhs: str = "rhs", batched: bool = False) -> TileType:
    """``Tile[[..., M, N], accumulator dtype, Acc]``."""
    lt, rt = ci[lhs].type, ci[rhs].type
    if batched:
        check_rank(ci, lhs, min_rank=2)
        check_rank(ci, rhs, min_rank=2)
    else:
        check_rank(ci, lhs, rank=2)
        check_rank(ci, rhs, rank=2)
    if lt.dtype != rt.dtype:
        ci.fail(f"requires equal input dtypes, got {lt.dtype.name} and {rt.dtype.name}")
    check_k(ci, lt, rt)
    batch = broadcast(ci, list(lt.shape[:-2]), list(rt.shape[:-2])) if batched else []
    dims = batch + [lt.shape[-2], rt.shape[-1]]
    valid = batch + [valid_shape(lt)[-2], valid_shape(rt)[-1]]
    return tile_type(dims, accumulator_dtype(lt.dtype), valid, space=ACC)


def check_acc(ci: CallInfo, acc: TileType, want: DataType, dims: list) -> None:
    if acc.dtype != want:
        ci.fail(f"acc dtype must be the accumulator dtype {want.name}, got {acc.dtype.name}")
    if not dims_equal(list(acc.shape), dims) and all(const_value(d) is not None for d in dims + list(acc.shape)):
        ci.fail(f"acc shape {format_dims(acc.shape)} must be {format_dims(dims)}")


def _matmul(ci: CallInfo) -> Type:
    """``[M, K] x [K, N] -> Tile[[M, N], FP32 | INT32, Acc]`` (inputs expected in Left/Right)."""
    return matmul_result(ci)


def _matmul_acc(ci: CallInfo) -> Type:
    """``acc += lhs @ rhs``: the acc type."""
    acc = ci["acc"].type
    if ci["init_cond"] is not None:
        if len(acc.shape) > 2:
            ci.fail("init_cond is not supported for rank > 2 accumulators")
        if ci["init_cond"].type.dtype != D.BOOL:
            ci.fail("init_cond must be a BOOL scalar")
    res = matmul_result(ci, batched=len(acc.shape) > 2)
    check_acc(ci, acc, res.dtype, list(res.shape))
    return acc


def _matmul_bias(ci: CallInfo) -> Type:
    """``lhs @ rhs + bias`` with a ``[1, N]`` accumulator-dtype bias."""
    res = matmul_result(ci)
    bias = ci["bias"].type
    if len(bias.shape) != 2 or const_value(bias.shape[0]) != 1:
        ci.fail(f"bias must be [1, N], got {format_dims(bias.shape)}")
    n, cols = const_value(res.shape[-1]), const_value(bias.shape[1])
    if n is not None and cols is not None and n != cols:
        ci.fail(f"bias {format_dims(bias.shape)} must have the result's {n} columns (N of rhs "
                f"{format_dims(ci['rhs'].type.shape)})")
    if bias.dtype != res.dtype:
        ci.fail(f"bias dtype must be {res.dtype.name}, got {bias.dtype.name}")
    if bias.get_effective_tile_view().blayout != TileLayout.row_major:
        ci.fail("bias must be a row-major tile (TMATMUL_BIAS reads one row)", hint="tile.move it with "
                "blayout=pl.TileLayout.row_major")
    return res


def _batch_matmul(ci: CallInfo) -> Type:
    """Batched matmul: broadcast batch dims + ``[M, N]`` in Acc."""
    return matmul_result(ci, batched=True)


def _batch_matmul_acc(ci: CallInfo) -> Type:
    """Batched ``acc += lhs @ rhs``: the acc type."""
    acc = ci["acc"].type
    res = matmul_result(ci, batched=True)
    check_acc(ci, acc, res.dtype, list(res.shape))
    return acc


MM_IN = mem((Left,), (Right,), out=Acc)
MM_ACC_IN = mem((Acc,), (Left,), (Right,), out=Acc)
INIT = scalar("init_cond", optional=True, norm=to_bool)
define("tile.matmul", [tile("lhs"), tile("rhs")], _matmul, placement=CUBE, memory=MM_IN)
define("tile.matmul_acc", [tile("acc", effect=RW), tile("lhs"), tile("rhs"), INIT], _matmul_acc, placement=CUBE,
       memory=MM_ACC_IN)
define("tile.matmul_bias", [tile("lhs"), tile("rhs"), tile("bias")], _matmul_bias, placement=CUBE,
       memory=mem((Left,), (Right,), (Bias,), out=Acc))
define("tile.batch_matmul", [tile("lhs"), tile("rhs")], _batch_matmul, placement=CUBE, memory=MM_IN)
define("tile.batch_matmul_acc", [tile("acc", effect=RW), tile("lhs"), tile("rhs")], _batch_matmul_acc,
       placement=CUBE, memory=MM_ACC_IN)

GEMV_DTYPES = (D.INT8, D.FP16, D.BF16, D.FP32)


def gemv_result(ci: CallInfo) -> TileType:
    """``[1, K] x [K, N] -> [1, N]``; INT8 -> INT32, FP16/BF16/FP32 -> FP32. The lhs may be a taller
    tile whose valid part is ``[1, K]`` (a whole 16-row fractal): the result is then as tall, valid ``[1, N]``."""
    lt = ci["lhs"].type
    if len(lt.shape) != 2 or const_value(valid_shape(lt)[0]) != 1:
        ci.fail(f"lhs must be [1, K] or valid over [1, K], got {format_dims(lt.shape)}"
                + (f" valid {format_dims(valid_shape(lt))}" if not dims_equal(valid_shape(lt), list(lt.shape)) else ""))
    check_dtype(ci, "lhs", lt.dtype, GEMV_DTYPES)
    return matmul_result(ci)


def _gemv(ci: CallInfo) -> Type:
    """Matrix-vector product into a ``[1, N]`` accumulator (or a taller one valid over ``[1, N]``)."""
    return gemv_result(ci)


def _gemv_acc(ci: CallInfo) -> Type:
    """``acc += lhs @ rhs`` for a ``[1, K]`` lhs: the acc type. The acc is ``[1, N]`` or a taller tile
    (pto-isa's ``[16, N]`` fractal) whose valid part is ``[1, N]``: only its first row accumulates."""
    acc = ci["acc"].type
    res = gemv_result(ci)
    check_rank(ci, "acc", rank=2)
    check_acc(ci, acc, res.dtype, [acc.shape[0], res.shape[-1]])
    if const_value(valid_shape(acc)[0]) != 1:
        ci.fail(f"acc must be [1, N] or valid over [1, N], got {format_dims(acc.shape)} valid "
                f"{format_dims(valid_shape(acc))}")
    return acc


def _gemv_bias(ci: CallInfo) -> Type:
    """``lhs @ rhs + bias`` for a ``[1, K]`` lhs."""
    gemv_result(ci)
    return _matmul_bias(ci)


PHASE = kw("acc_phase", K.StrKw(("unspecified", "partial", "final")), "unspecified", always=False)
define("tile.gemv", [tile("lhs"), tile("rhs")], _gemv, placement=CUBE, memory=MM_IN, kwargs=[PHASE])
define("tile.gemv_acc", [tile("acc", effect=RW), tile("lhs"), tile("rhs")], _gemv_acc, placement=CUBE,
       memory=MM_ACC_IN, kwargs=[PHASE])
define("tile.gemv_bias", [tile("lhs"), tile("rhs"), tile("bias")], _gemv_bias, placement=CUBE,
       memory=mem((Left,), (Right,), (Bias,), out=Acc), kwargs=[PHASE])

MX_DATA = (D.FP8E4M3FN, D.FP8E5M2)


def mx_result(ci: CallInfo) -> TileType:
    """A5 MX matmul: FP8 data with FP8E8M0 scales, FP32 accumulator."""
    for name in ("lhs", "rhs"):
        check_dtype(ci, name, ci[name].type.dtype, MX_DATA)
    for name in ("lhs_scale", "rhs_scale"):
        check_dtype(ci, name, ci[name].type.dtype, (D.FP8E8M0,))
        check_rank(ci, name, rank=2)
    return matmul_result(ci)


def _matmul_mx(ci: CallInfo) -> Type:
    """``Tile[[M, N], FP32, Acc]`` from scaled FP8 operands."""
    return mx_result(ci)


def _matmul_mx_acc(ci: CallInfo) -> Type:
    """Scaled FP8 ``acc += lhs @ rhs``: the acc type."""
    acc = ci["acc"].type
    res = mx_result(ci)
    check_acc(ci, acc, res.dtype, list(res.shape))
    return acc


def _matmul_mx_bias(ci: CallInfo) -> Type:
    """Scaled FP8 ``lhs @ rhs + bias``."""
    mx_result(ci)
    return _matmul_bias(ci)


MX = (tile("lhs"), tile("lhs_scale"), tile("rhs"), tile("rhs_scale"))
MX_MEM = ((Left,), (LeftScale,), (Right,), (RightScale,))
define("tile.matmul_mx", list(MX), _matmul_mx, placement=CUBE, memory=mem(*MX_MEM, out=Acc))
define("tile.matmul_mx_acc", [tile("acc", effect=RW), *MX], _matmul_mx_acc, placement=CUBE,
       memory=mem((Acc,), *MX_MEM, out=Acc))
define("tile.matmul_mx_bias", [*MX, tile("bias")], _matmul_mx_bias, placement=CUBE,
       memory=mem(*MX_MEM, (Bias,), out=Acc))


def _swap_last(dims: list) -> list:
    return dims[:-2] + [dims[-1], dims[-2]]


def _transpose_view(ci: CallInfo) -> Type:
    """Zero-copy NZ <-> ZN reinterpretation: the last two axes of the shape and valid region swapped,
    and the layouts (a rank > 2 view is one per batch: FlattenTileNdTo2D splits it per matmul)."""
    t = ci["tile"].type
    check_rank(ci, "tile", min_rank=2)
    view = t.get_effective_tile_view()
    dims, valid = _swap_last(list(t.shape)), _swap_last(valid_shape(t))
    if view.slayout == TileLayout.none_box:
        flip = {TileLayout.row_major: TileLayout.col_major, TileLayout.col_major: TileLayout.row_major}
        blayout, slayout = flip.get(view.blayout, view.blayout), view.slayout
    else:
        blayout, slayout = view.slayout, view.blayout
    return tile_type(dims, t.dtype, valid, blayout=blayout, slayout=slayout, fractal=view.fractal, pad=view.pad,
                     space=t.memory_space)


define("tile.transpose_view", [tile("tile")], _transpose_view, placement=CUBE, memory=mem((), out=INHERIT),
       view=True)


# ---------------------------------------------------------------- reductions and broadcasts


def tile_reduce(axis: int, argmax: bool = False, allowed: tuple[DataType, ...] | None = None) -> Rule:
    """A tile reduction: rank >= 2; the scratch tile matches the input's dtype/rank (argmax: exactly)."""
    base = reduce_rule(axis, argmax=argmax, allowed=allowed, param="tile")

    def deduce(ci: CallInfo) -> Type:
        check_rank(ci, "tile", min_rank=2)
        t, tmp = ci["tile"].type, ci["tmp_tile"]
        if tmp is not None:
            tt = tmp.type
            if tt.dtype != t.dtype or len(tt.shape) != len(t.shape):
                ci.fail("'tmp_tile' must have the input's dtype and rank")
            if argmax and not dims_equal(list(tt.shape), list(t.shape)):
                ci.fail(f"'tmp_tile' must have the input shape {format_dims(t.shape)}, got {format_dims(tt.shape)}")
            for a, b in zip(tt.shape, t.shape):
                ca, cb = const_value(a), const_value(b)
                if ca is not None and cb is not None and ca < cb:
                    ci.fail(f"'tmp_tile' {format_dims(tt.shape)} must cover the input {format_dims(t.shape)}")
        return base(ci)

    deduce.__doc__ = base.__doc__
    return deduce


RED_TMP = tile("tmp_tile", effect=SCRATCH)
for _name in ("sum", "max", "min", "prod"):
    define(f"tile.row_{_name}", [tile("tile"), RED_TMP], tile_reduce(-1, allowed=REDUCE_DTYPES.get(f"row_{_name}")),
           placement=VECTOR, memory=mem((Vec,), (Vec,), out=Vec))
define("tile.col_sum", [tile("tile"), tile("tmp_tile", effect=SCRATCH, optional=True)],
       tile_reduce(-2, allowed=REDUCE_DTYPES["col_sum"]), placement=VECTOR, memory=mem((Vec,), (Vec,), out=Vec))
for _name in ("max", "min", "prod"):
    define(f"tile.col_{_name}", [tile("tile")], tile_reduce(-2, allowed=REDUCE_DTYPES.get(f"col_{_name}")),
           placement=VECTOR, memory=mem((Vec,), out=Vec))
for _kind, _axis in (("row", -1), ("col", -2)):
    for _name in ("argmax", "argmin"):
        define(f"tile.{_kind}_{_name}", [tile("tile"), RED_TMP], tile_reduce(_axis, argmax=True),
               placement=VECTOR, memory=mem((Vec,), (Vec,), out=Vec))

for _kind, _axis in (("row", -1), ("col", -2)):
    define(f"tile.{_kind}_expand", [tile("target"), tile("vec")], expand_rule(_axis, False, target="target"),
           placement=VECTOR, memory=mem((Vec,), (Vec,), out=Vec))
    for _name, _allowed in EXPAND_DTYPES.items():
        _params = [tile("tile"), tile("vec")]
        if (_kind, _name) == ("row", "add"):
            _params.append(tile("tmp", effect=SCRATCH, optional=True))
        define(f"tile.{_kind}_expand_{_name}", _params, expand_rule(_axis, True, target="tile", allowed=_allowed),
               placement=VECTOR, memory=mem((Vec,), (Vec,), out=Vec))
