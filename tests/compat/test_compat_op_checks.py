"""Issue 13: the operand checks the established API makes, and no raw Python exception out of any op."""

from __future__ import annotations

import random
from typing import Any

import pytest

from pypto import ir
from pypto.ir import op_registry
from pypto.ir.op import tensor as T
from pypto.ir.op import tile as L

D, Mem = ir.DataType, ir.MemorySpace


def tile(shape: list, dtype: ir.DataType = D.FP32, space: ir.MemorySpace = Mem.Vec,
         valid: list | None = None) -> ir.Var:
    view = ir.TileView(valid_shape=valid) if valid else None
    return ir.Var("t", ir.TileType(shape, dtype, None, view, space))


def tensor(shape: list, dtype: ir.DataType = D.FP32, valid: list | None = None) -> ir.Var:
    view = ir.TensorView(stride=[], layout=ir.TensorLayout.ND, valid_shape=valid) if valid else None
    return ir.Var("x", ir.TensorType(shape, dtype, None, view))


def scalar(dtype: ir.DataType) -> ir.Var:
    return ir.Var("s", ir.ScalarType(dtype))


MASK = tile([16, 8], D.UINT8)
SRC = tile([16, 64])


def rejects(match: str) -> Any:
    return pytest.raises(ir.IRValueError, match=match)


def test_sels_checks_the_mask_and_the_source() -> None:
    assert str(L.sels(MASK, SRC, SRC, 0.0).type) == "pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec]"
    with rejects(r"'mask' dtype must be one of UINT8, got FP32"):
        L.sels(tile([16, 32]), SRC, SRC, 0.0)
    with rejects(r"'mask' \[8, 32\] must have the leading dims of 'src' \[16, 64\]"):
        L.sels(tile([8, 32], D.UINT8), SRC, SRC, 0.0)
    with rejects(r"'mask' \[16, 4\] of UINT8 has 32 bits per row, fewer than the 64 columns of 'src'"):
        L.sels(tile([16, 4], D.UINT8), SRC, SRC, 0.0)
    with rejects(r"Operator 'tile.sels': 'src' dtype must be one of .*, got INT64"):
        L.sels(MASK, tile([16, 64], D.INT64), SRC, 0)
    with rejects(r"Operator 'tile.sel': 'lhs' and 'rhs' shapes must be equal, got \[16, 64\] and \[16, 32\]"):
        L.sel(MASK, SRC, tile([16, 32]), SRC)


def test_scatter_and_mscatter_need_one_index_per_source_element() -> None:
    idx = tile([16, 64], D.INT32)
    assert str(L.scatter(SRC, SRC, idx).type) == "pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec]"
    with rejects(r"Operator 'tile.scatter': 'indexes' \[16, 32\] must have the shape of 'src' \[16, 64\]"):
        L.scatter(SRC, SRC, tile([16, 32], D.INT32))
    with rejects(r"'src' \[64\] must have the rank of 'dst' \[16, 64\]"):
        L.scatter(SRC, tile([64]), tile([64], D.INT32))
    with rejects(r"'indexes' requires an integer dtype, got FP32"):
        L.scatter(SRC, SRC, SRC)
    out = tensor([1024])
    assert str(L.mscatter(SRC, idx, out).type) == "pl.Tensor[[1024], pl.FP32]"
    with rejects(r"Operator 'tile.mscatter': 'idx' \[16, 8\] must have the shape of 'src' \[16, 64\]"):
        L.mscatter(SRC, tile([16, 8], D.INT32), out)


@pytest.mark.parametrize("op", ["row_expand", "row_expand_add", "row_expand_sub", "row_expand_expdif"])
def test_row_expand_checks_shape_and_dtype(op: str) -> None:
    build = getattr(L, op)
    assert str(build(SRC, tile([16, 1])).type) == "pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec]"
    with rejects(rf"Operator 'tile.{op}': 'vec' dtype FP16 must equal the '\w+' dtype FP32"):
        build(SRC, tile([16, 1], D.FP16))
    with rejects(r"'vec' must be a \[M, 1\] vector, got \[16, 2\]"):
        build(SRC, tile([16, 2]))
    with rejects(r"'vec' \[8, 1\] does not match \[16, 64\]"):
        build(SRC, tile([8, 1]))
    with rejects(r"'vec' must have rank 2, got \[16\]"):
        build(SRC, tile([16]))
    with rejects(r"dtype must be one of .*, got INT64"):
        build(tile([16, 64], D.INT64), tile([16, 1], D.INT64))


@pytest.mark.parametrize("op", ["col_expand", "col_expand_mul", "col_expand_max"])
def test_col_expand_checks_shape_and_dtype(op: str) -> None:
    build = getattr(L, op)
    assert str(build(SRC, tile([1, 64])).type) == "pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec]"
    with rejects(rf"Operator 'tile.{op}': 'vec' dtype INT32 must equal the '\w+' dtype FP32"):
        build(SRC, tile([1, 64], D.INT32))
    with rejects(r"'vec' must be a \[1, N\] vector, got \[2, 64\]"):
        build(SRC, tile([2, 64]))


@pytest.mark.parametrize("op", ["adds", "subs", "muls", "divs", "maximum", "cmp"])
@pytest.mark.parametrize("dtype", [D.BOOL, D.TASK_ID, D.FP8E4M3FN, D.INT4])
def test_tensor_scalar_ops_refuse_unsupported_scalar_dtypes(op: str, dtype: ir.DataType) -> None:
    x = tensor([16, 64])
    with rejects(rf"Operator 'tensor.{op}': scalar operand 'rhs' dtype must be one of .*, got {dtype.name}"):
        getattr(T, op)(x, scalar(dtype))
    assert str(getattr(T, op)(x, scalar(D.INT32)).type).startswith("pl.Tensor[[16, 64]")


def test_tile_scalar_ops_refuse_unsupported_scalar_dtypes_too() -> None:
    with rejects(r"Operator 'tile.adds': scalar operand 'rhs' dtype must be one of .*, got BOOL"):
        L.adds(SRC, scalar(D.BOOL))


def test_a_rank_mismatched_valid_shape_is_a_pypto_error() -> None:
    eight = ir.ConstInt(8, D.INDEX)
    with rejects(r"Operator 'tensor.col_sum': argument 'input' has a valid_shape of rank 1 \(\[8\]\) "
                 r"on a rank-2 shape \[16, 64\]"):
        T.col_sum(tensor([16, 64], valid=[eight]))
    with rejects(r"Operator 'tile.col_max': argument 'tile' has a valid_shape of rank 3"):
        L.col_max(tile([16, 64], valid=[eight, eight, eight]))
    with rejects(r"Operator 'tensor.slice': argument 'tensor' has a valid_shape of rank 1"):
        T.slice(tensor([16, 64], valid=[eight]), [4, 4], [0, 0])
    with rejects(r"Operator 'tensor.slice': 'valid_shape' must have 2 elements, got 1"):
        T.slice(tensor([16, 64]), [4, 4], [0, 0], [4])


def _candidates() -> dict[str, list[ir.Expr]]:
    c = [ir.ConstInt(v, D.INDEX) for v in (0, 2, 4, 8, -1)]
    shapes = [[16], [16, 32], [2, 16, 32], [1, 32], [16, 1]]
    return {
        "tensor": [tensor(s, d) for s in shapes for d in (D.FP32, D.INT32)]
        + [tensor([16, 32], valid=[c[3]]), tensor([16, 32], valid=c[1:4])],
        "tile": [tile(s, d, sp) for s in shapes for d in (D.FP32, D.INT32, D.UINT8) for sp in (Mem.Vec, Mem.Mat, Mem.Acc)]
        + [tile([16, 32], valid=[c[3]])],
        "scalar": [scalar(D.FP32), scalar(D.INT32), scalar(D.BOOL), c[1], c[4]],
        "tuple": [ir.MakeTuple([]), ir.MakeTuple(c[2:3]), ir.MakeTuple(c[2:4]), ir.MakeTuple(c[1:4]),
                  ir.MakeTuple([c[0], c[4]])],
    }


def _required_kwargs(entry: op_registry.OpEntry) -> dict[str, Any]:
    """A value each required keyword accepts (the first of a few typical ones)."""
    out: dict[str, Any] = {}
    for k in entry.kwargs:
        if not k.required:
            continue
        for value in (D.FP32, 0, 1, Mem.Vec, "row", True, 1.0):
            try:
                k.kind.convert(value)
            except (TypeError, ValueError):
                continue
            out[k.name] = value
            break
    return out


def test_every_op_answers_bad_arguments_with_a_pypto_error() -> None:
    """Rank-mismatched, wrong-kind and wrong-length arguments (and rank-mismatched valid_shapes) for
    every registered op: the type deduction either accepts them or raises a PyptoError."""
    cands = _candidates()
    rng = random.Random(13)
    tried = 0
    for entry in op_registry.all_entries():
        pools = [sum((cands.get(kind, []) for kind in p.accepts), []) for p in entry.params]
        kwargs = _required_kwargs(entry)
        for _ in range(40):
            n = rng.randint(entry.min_args(), len(entry.params))
            if not all(pools[:n]):
                continue
            args = [rng.choice(pool) for pool in pools[:n]]
            tried += 1
            try:
                op_registry.create_op_call(entry.name, args, kwargs)
            except ir.PyptoError:
                pass
    assert tried > 10000


def _viewed(shape: list, valid: list) -> ir.Var:
    return tensor(shape, valid=[ir.ConstInt(v, D.INDEX) for v in valid])


def test_transpose_records_swapped_strides_and_a_dn_view() -> None:
    x = tensor([4, 8])
    t = T.transpose(x, 0, 1).type
    assert str(t) == "pl.Tensor[[8, 4], pl.FP32, pl.TensorView(stride=[1, 8], layout=pl.TensorLayout.DN)]"
    assert [e.value for e in t.tensor_view.stride] == [1, 8] and t.tensor_view.layout is ir.TensorLayout.DN
    # Leading axes swap strides only; a transpose of a transpose is the contiguous tensor again.
    assert str(T.transpose(tensor([2, 4, 8]), 0, 1).type) == (
        "pl.Tensor[[4, 2, 8], pl.FP32, pl.TensorView(stride=[8, 32, 1], layout=pl.TensorLayout.ND)]")
    twice = ir.Var("y", t)
    assert str(T.transpose(twice, 0, 1).type) == "pl.Tensor[[4, 8], pl.FP32]"


def test_transpose_swaps_a_row_prefix_and_drops_a_distributed_valid_shape() -> None:
    assert str(T.transpose(_viewed([16, 32], [8, 32]), 0, 1).type) == (
        "pl.Tensor[[32, 16], pl.FP32, pl.TensorView(valid_shape=[32, 8], stride=[1, 32], layout=pl.TensorLayout.DN)]")
    assert str(T.transpose(_viewed([16, 32], [8, 16]), 0, 1).type) == (
        "pl.Tensor[[32, 16], pl.FP32, pl.TensorView(stride=[1, 32], layout=pl.TensorLayout.DN)]")


def test_reshape_drops_a_distributed_valid_shape() -> None:
    assert str(T.reshape(_viewed([16, 32], [8, 16]), [512]).type) == "pl.Tensor[[512], pl.FP32]"
    # A tile keeps refusing: its valid region drives the vector instructions.
    eight, sixteen = ir.ConstInt(8, D.INDEX), ir.ConstInt(16, D.INDEX)
    with rejects(r"cannot carry the valid region \[8, 16\] of \[16, 32\] into shape \[512\]"):
        L.reshape(tile([16, 32], valid=[eight, sixteen]), [512])


def test_reshape_of_a_partially_valid_region_lands_on_its_row_prefix() -> None:
    x = _viewed([16, 32], [8, 32])
    view = "stride=[], layout=pl.TensorLayout.ND)]"
    assert str(T.reshape(x, [512]).type) == f"pl.Tensor[[512], pl.FP32, pl.TensorView(valid_shape=[256], {view}"
    assert str(T.reshape(x, [4, 4, 32]).type) == (
        f"pl.Tensor[[4, 4, 32], pl.FP32, pl.TensorView(valid_shape=[2, 4, 32], {view}")
    assert str(T.reshape(x, [128, 4]).type) == f"pl.Tensor[[128, 4], pl.FP32, pl.TensorView(valid_shape=[64, 4], {view}"
    eight = ir.ConstInt(8, D.INDEX)
    assert str(L.reshape(tile([16, 32], valid=[eight, ir.ConstInt(32, D.INDEX)]), [8, 64]).type) == (
        "pl.Tile[[8, 64], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[4, 64])]")
    # 3 rows of 32 are 6 rows of 16, but 1.5 rows of 64: no row prefix there.
    with rejects(r"cannot carry the valid region \[3, 32\] of \[16, 32\] into shape \[8, 64\]"):
        T.reshape(_viewed([16, 32], [3, 32]), [8, 64])
    assert str(T.reshape(_viewed([16, 32], [3, 32]), [32, 16]).type) == (
        f"pl.Tensor[[32, 16], pl.FP32, pl.TensorView(valid_shape=[6, 16], {view}")
