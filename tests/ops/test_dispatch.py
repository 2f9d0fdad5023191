"""Unified dispatch (ops.md §3) and the DSL wrappers: value wrapping, spans, kind errors."""

from __future__ import annotations

import pytest
from ops_helpers import scalar, tensor, tile

import pypto.language.op as pl_op
from pypto import ir
from pypto.language.typing.values import ScalarValue, TensorValue, TileValue

P = pl_op.PROMOTED
A, B = tensor("a", [64, 64]), tensor("b", [64, 64])
AI = tensor("ai", [64, 64], ir.INT32)
V, W = tile("v", [64, 64]), tile("w", [64, 64])
VI = tile("vi", [64, 64], ir.INT32)
X = scalar("x", ir.INT64)


def _op(value: object) -> str:
    return value.unwrap().op.name


@pytest.mark.parametrize("name", ["add", "sub", "mul", "div", "fmod", "maximum", "minimum", "cmp"])
def test_tensor_tensor_and_tensor_scalar(name: str) -> None:
    tt = P[name](TensorValue(A), TensorValue(B))
    assert isinstance(tt, TensorValue)
    assert _op(tt) == f"tensor.{name}"
    ts = P[name](A, 2.0)
    scalar_form = {"maximum": "tensor.maximum", "minimum": "tensor.minimum", "cmp": "tensor.cmp"}
    assert _op(ts) == scalar_form.get(name, f"tensor.{name}s")


@pytest.mark.parametrize(
    ("name", "tile_op", "scalar_op"),
    [("add", "tile.add", "tile.adds"), ("sub", "tile.sub", "tile.subs"), ("mul", "tile.mul", "tile.muls"),
     ("div", "tile.div", "tile.divs"), ("fmod", "tile.fmod", "tile.fmods"), ("maximum", "tile.maximum", "tile.maximums"),
     ("minimum", "tile.minimum", "tile.minimums"), ("cmp", "tile.cmp", "tile.cmps")],
)
def test_tile_tile_and_tile_scalar(name: str, tile_op: str, scalar_op: str) -> None:
    tt = P[name](TileValue(V), W)
    assert isinstance(tt, TileValue) and _op(tt) == tile_op
    ts = P[name](V, 2)
    assert _op(ts) == scalar_op


@pytest.mark.parametrize("family", ["tensor", "tile"])
@pytest.mark.parametrize("name", ["add", "sub", "mul", "div"])
def test_namespaced_arithmetic_picks_the_scalar_form(family: str, name: str) -> None:
    """ops.md §4.2 / §5.2: ``pl.tensor.add(t, s)`` builds ``tensor.adds`` (likewise tile), at both layers."""
    lhs, fs = (A, scalar("fs")) if family == "tensor" else (V, scalar("fs"))
    for rhs in (2.0, 2, fs, ir.ConstFloat(2.0, ir.FP32)):
        assert _op(getattr(getattr(pl_op, family), name)(lhs, rhs)) == f"{family}.{name}s"
        assert getattr(getattr(ir.op, family), name)(lhs, rhs).op.name == f"{family}.{name}s"
    other = B if family == "tensor" else W
    assert _op(getattr(getattr(pl_op, family), name)(lhs, other)) == f"{family}.{name}"


def test_namespaced_div_high_precision_with_a_scalar_stays_a_type_error() -> None:
    with pytest.raises(TypeError, match="high_precision=True is not supported with a scalar rhs"):
        ir.op.tensor.div(A, 2.0, high_precision=True)


def test_tile_scalar_keeps_the_tile_dtype_and_a_float_literal_takes_it() -> None:
    r = P["mul"](tile("h", [16, 16], ir.FP16), 2)
    assert str(r.type) == "pl.Tile[[16, 16], pl.FP16, pl.Mem.Vec]"
    assert r.unwrap().args[1].dtype == ir.FP16
    f = P["mul"](tile("h", [16, 16], ir.FP16), 2.0)
    assert str(f.type) == "pl.Tile[[16, 16], pl.FP16, pl.Mem.Vec]"  # tile *s ops keep the tile's dtype
    assert f.unwrap().args[1].dtype == ir.FP16  # spec/ops.md §2


@pytest.mark.parametrize(("name", "node"), [("add", ir.Add), ("sub", ir.Sub), ("mul", ir.Mul), ("div", ir.FloatDiv)])
def test_scalar_scalar_builds_the_scalar_expression(name: str, node: type) -> None:
    r = P[name](ScalarValue(X), 3)
    assert isinstance(r, ScalarValue)
    assert type(r.unwrap()) is node
    assert r.unwrap().left is X


def test_mixing_tensor_and_tile_is_a_type_error() -> None:
    with pytest.raises(TypeError, match=r"^pl.add: cannot mix Tensor and Tile arguments \(Tensor, Tile\); load the "
                                        r"tensor into a tile first \(pl.load\)"):
        P["add"](A, V)


def test_unsupported_kinds_are_a_type_error() -> None:
    with pytest.raises(TypeError, match=r"^pl.add: expected Tensor or Tile operands, got \(str, Tensor\)$"):
        P["add"]("a", A)
    with pytest.raises(TypeError, match=r"pl.fmod: expected Tensor or Tile operands, got \(Scalar, Scalar\)"):
        P["fmod"](1, 2)


def test_div_high_precision() -> None:
    assert P["div"](A, B, high_precision=True).unwrap().kwargs == {"high_precision": True}
    with pytest.raises(TypeError, match="pl.div: high_precision=True is not supported with a scalar rhs"):
        P["div"](V, 2.0, high_precision=True)
    with pytest.raises(TypeError, match="pl.div: high_precision=True"):
        P["div"](X, X, high_precision=True)


def test_bitwise_dispatch() -> None:
    assert _op(P["and_"](AI, AI)) == "tensor.and"
    assert _op(P["and_"](AI, 1)) == "tensor.ands"
    assert _op(P["shl"](VI, VI)) == "tile.shl"
    assert _op(P["shrs"](VI, 2)) == "tile.shrs"
    assert _op(P["ors"](AI, 2)) == "tensor.ors"


def test_xor_tmp_rules() -> None:
    assert _op(P["xor"](AI, AI)) == "tensor.xor"
    assert _op(P["xor"](VI, 1, VI)) == "tile.xors"
    with pytest.raises(TypeError, match="pl.xor: Tile operands require a tmp scratch tile"):
        P["xor"](VI, VI)
    with pytest.raises(TypeError, match="pl.xor: tmp is only for Tile operands"):
        P["xor"](AI, AI, VI)


def test_single_input_dispatch() -> None:
    assert _op(P["exp"](A)) == "tensor.exp"
    assert _op(P["exp"](V)) == "tile.exp"
    assert _op(P["not_"](tile("s", [4, 16], ir.INT16))) == "tile.not"
    assert _op(P["reshape"](V, [1, 4096])) == "tile.reshape"
    with pytest.raises(TypeError, match=r"pl.exp: expected Tensor or Tile operands, got \(Scalar\)"):
        P["exp"](X)


def test_cast_dispatch() -> None:
    assert _op(P["cast"](A, ir.FP16)) == "tensor.cast"
    assert _op(P["cast"](V, ir.FP16, "floor")) == "tile.cast"
    c = P["cast"](X, ir.INT32)
    assert isinstance(c.unwrap(), ir.Cast) and c.unwrap().dtype == ir.INT32
    with pytest.raises(TypeError, match="pl.cast: mode='floor' is not supported for a scalar operand"):
        P["cast"](X, ir.INT32, "floor")


def test_rsqrt_rules() -> None:
    assert P["rsqrt"](A, high_precision=True).unwrap().kwargs == {"high_precision": True}
    assert len(P["rsqrt"](V, W).unwrap().args) == 2
    with pytest.raises(TypeError, match=r"pl.rsqrt: high_precision is not supported for Tiles.*pl.tile.rsqrt"):
        P["rsqrt"](V, high_precision=True)


def test_matmul_rules() -> None:
    lhs, rhs = tile("l", [64, 32], ir.FP16, ir.Mem.Left), tile("r", [32, 64], ir.FP16, ir.Mem.Right)
    assert _op(P["matmul"](lhs, rhs, out_dtype=ir.FP32)) == "tile.matmul"
    with pytest.raises(TypeError, match="pl.matmul: a_trans/b_trans/c_matrix_nz are not supported for Tiles"):
        P["matmul"](lhs, rhs, a_trans=True)
    with pytest.raises(TypeError, match="pl.matmul: out_dtype fp16 differs from the accumulator dtype fp32"):
        P["matmul"](lhs, rhs, out_dtype=ir.FP16)
    t = P["matmul"](A, B, b_trans=True)
    assert t.unwrap().kwargs == {"a_trans": False, "b_trans": True, "c_matrix_nz": False}
    acc = tile("acc", [64, 64], ir.FP32, ir.Mem.Acc)
    assert _op(P["matmul_acc"](acc, lhs, rhs)) == "tile.matmul_acc"
    with pytest.raises(TypeError, match="pl.matmul_acc: a_trans/b_trans are not supported for Tiles"):
        P["matmul_acc"](acc, lhs, rhs, b_trans=True)
    with pytest.raises(TypeError, match="pl.batch_matmul: expects Tile operands, got \\(Tensor, Tensor\\)"):
        P["batch_matmul"](A, B)


def test_reduction_tmp_rules() -> None:
    assert _op(P["row_sum"](A)) == "tensor.row_sum"
    assert _op(P["row_sum"](V, W)) == "tile.row_sum"
    with pytest.raises(TypeError) as err:
        P["row_sum"](V)
    assert str(err.value).startswith(  # says how to make the scratch tile
        "pl.row_sum: Tile inputs require tmp_tile, a scratch tile of the input's shape: "
        "pl.row_sum(x, pl.create_tile([64, 64], dtype=pl.FP32, target_memory=pl.Mem.Vec))"
    )
    with pytest.raises(TypeError, match="pl.row_argmax: Tensor inputs do not take tmp_tile"):
        P["row_argmax"](A, B)
    assert len(P["col_sum"](V).unwrap().args) == 1
    assert len(P["col_sum"](V, W).unwrap().args) == 2
    assert _op(P["col_max"](V)) == "tile.col_max"


def test_row_expand_add_tmp_only_for_tiles() -> None:
    rv = tile("rv", [64, 1])
    assert len(P["row_expand_add"](V, rv, W).unwrap().args) == 3
    with pytest.raises(TypeError, match="pl.row_expand_add: tmp is only for Tile inputs"):
        P["row_expand_add"](A, tensor("trv", [64, 1]), W)


def test_slice_and_assemble_tile_restrictions() -> None:
    with pytest.raises(TypeError, match="pl.slice: clamp=True is not supported for Tiles"):
        P["slice"](V, [8, 64], [0, 0], clamp=True)
    assert P["slice"](A, [8, 64], [60, 0], clamp=True).unwrap().kwargs == {"clamp": True}
    with pytest.raises(TypeError, match="pl.assemble: atomic is not supported for Tiles"):
        P["assemble"](V, tile("s", [8, 64]), [0, 0], atomic=ir.AtomicType.Add)
    assert _op(P["assemble"](A, tensor("s", [8, 64]), [0, 0])) == "tensor.assemble"


def test_mrgsort_dispatch() -> None:
    assert _op(P["mrgsort"](tensor("r", [1, 256]), block_len=64)) == "tensor.mrgsort_format1"
    assert _op(P["mrgsort"](A, B)) == "tensor.mrgsort_format2"
    m = tile("m", [1, 64])
    assert _op(P["mrgsort"](m, m, tile("t", [1, 128]))) == "tile.mrgsort_format2"


def test_tensor_gather_forms() -> None:
    idx = tensor("ix", [64, 8], ir.INT32)
    assert _op(pl_op.tensor.gather(A, -1, idx)) == "tensor.gather"
    assert _op(pl_op.tensor.gather(A, mask_pattern=1)) == "tensor.gather_mask"
    assert pl_op.tensor.gather(A, kvalue=0.0, out_cols=4).op.name == "tensor.gather_compare"  # a tuple: unwrapped
    assert _op(pl_op.tensor.scatter(A, -1, AI, B)) == "tensor.scatter"
    assert _op(pl_op.tensor.scatter(tensor("h", [64, 32]), mask_pattern=1, dst=B)) == "tensor.scatter_mask"


def test_scalar_min_max_and_markers() -> None:
    m = P["max"](X, 3)
    assert isinstance(m.unwrap(), ir.Max)
    assert str(P["min"](X, X).unwrap()) == "pl.min(x, x)"
    assert P["no_dep"](A) is A and P["dump_tag"](A) is A


def test_dsl_functions_pass_the_span_and_default_to_unknown() -> None:
    span = ir.Span("kernel.py", 12, 4)
    assert P["load"](A, [0, 0], [64, 64], span=span).unwrap().span == span
    assert P["add"](A, B, span=span).unwrap().span == span
    assert pl_op.tile.exp(V).unwrap().span == ir.Span.unknown()
    with pytest.raises(ir.IRValueError) as info:
        P["add"](A, tensor("c", [3]), span=span)
    assert info.value.span == span


def test_aiv_shard_accepts_tensors_and_tiles() -> None:
    assert _op(P["aiv_shard"](A, split=1)) == "tensor.aiv_shard"
    assert _op(P["aiv_shard"](V, split=1)) == "tile.aiv_shard"
    assert _op(P["aic_gather"](V, split=2)) == "tile.aic_gather"


def test_tpop_with_shape_and_dtype_gets_an_explicit_type() -> None:
    r = P["tpop_from_aic"](shape=[64, 64], dtype=ir.FP32, split=0)
    assert isinstance(r, TileValue)
    assert str(r.type) == "pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec]"
    assert isinstance(P["tpop_from_aiv"](split=0, id=0), ir.Call)


def test_system_ops_from_the_seed() -> None:
    s = pl_op.system.sync_src(set_pipe=ir.PipeType.MTE2, wait_pipe=ir.PipeType.V, event_id=0)
    assert str(s) == "pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)"
    buf = P["reserve_buffer"](name="slot_buf", size=4096, base=P["AUTO"])
    peer = P["import_peer_buffer"](name="slot_buf", peer_func="other_func")
    init = P["aic_initialize_pipe"](ir.ConstInt(0, ir.INT32), buf, dir_mask=2, slot_size=512, id=0)
    assert init.args[1] is buf.unwrap()
    assert P["aiv_initialize_pipe"](0, peer, dir_mask=2, slot_size=512, slot_num=16, local_slot_num=4).kwargs == {
        "dir_mask": 2, "slot_size": 512, "slot_num": 16, "local_slot_num": 4}


@pytest.mark.parametrize(("name", "missing"), [("add", 2), ("row_sum", 1), ("exp", None)])
def test_dispatchers_are_named_in_arity_errors(name: str, missing: int | None) -> None:
    with pytest.raises(TypeError) as err:
        P[name]()
    assert "<locals>" not in str(err.value)
    if missing is not None:
        assert str(err.value).startswith(f"{name}() missing {missing} required positional argument")


@pytest.mark.parametrize(("family", "src"), [("tensor", tensor("r", [1, 256])), ("tile", tile("m1", [1, 256]))])
def test_mrgsort_block_len_is_for_one_list(family: str, src: ir.Var) -> None:
    mrgsort = getattr(pl_op, family).mrgsort
    assert _op(mrgsort(src, block_len=64)) == f"{family}.mrgsort_format1"
    with pytest.raises(TypeError, match=rf"^pl.{family}.mrgsort: block_len is only for the single-list form$"):
        mrgsort(src, src, block_len=64)
