"""IncoreTileOps, TileOps2D, TileMemoryInferred, AccToGmStoreValid and AtomicAddDtypeValid."""

from __future__ import annotations

import pytest
from inv_helpers import found, prog, single
from pypto.languages.invariants import (
    A5,
    AccToGmStoreValid,
    AtomicAddDtypeValid,
    IncoreTileOps,
    OperandLayoutsResolved,
    TileMemoryInferred,
    TileOps2D,
    TileSlicesPitched,
    target_platform,
)
from pypto.languages.invariants.base import clear_caches

from pypto import ir
from pypto.ir.op_registry import create_op_call

_SPAN = ir.Span.unknown()
_FT = ir.FunctionType


def _call(name: str, args: list[ir.Expr], **kwargs: object) -> ir.Call:
    return create_op_call(name, args, kwargs, _SPAN)


def _raw(name: str, args: list[ir.Expr], result: ir.Type, **kwargs: object) -> ir.Call:
    """A call built without the registry's checks (to hold what a checker must catch)."""
    return ir.Call(ir.get_op(name), args, dict(kwargs), result, _SPAN)


def _tensor(dtype: ir.DataType = ir.FP32, name: str = "g") -> ir.Var:
    return ir.Var(name, ir.TensorType([16, 16], dtype))


def _tile(space: ir.MemorySpace | None, dtype: ir.DataType = ir.FP32, name: str = "t") -> ir.Var:
    return ir.Var(name, ir.TileType([16, 16], dtype, None, None, space))


def _offsets() -> ir.MakeTuple:
    return ir.MakeTuple([ir.ConstInt(0, ir.INDEX), ir.ConstInt(0, ir.INDEX)], _SPAN)


def test_incore_tile_ops() -> None:
    program = prog(
        """
        @pl.program
        class A:
            @pl.function(type=pl.FunctionType.InCore)
            def main(self, x: pl.Tensor[[16], pl.FP32]) -> pl.Scalar[pl.FP32]:
                y: pl.Tensor[[16], pl.FP32] = pl.add(x, x)
                v: pl.Scalar[pl.FP32] = pl.read(y, [0])
                return v
        """
    )
    assert found(IncoreTileOps, program) == [
        ("TENSOR_OP_IN_KERNEL", "tensor.add in a InCore function (convert it to tile ops)", "pl.tensor.add(x, x)"),
    ]
    opaque = prog(
        """
        @pl.program
        class A:
            @pl.function
            def main(self, x: pl.Tensor[[16], pl.FP32]) -> pl.Tensor[[16], pl.FP32]:
                y: pl.Tensor[[16], pl.FP32] = pl.add(x, x)
                return y
        """
    )
    assert found(IncoreTileOps, opaque) == []


def test_tile_ops_2d() -> None:
    g3 = ir.Var("g3", ir.TensorType([2, 16, 16], ir.FP32))
    t = _tile(ir.Mem.Vec)
    tmp = _tile(ir.Mem.Vec, name="tmp")
    off = ir.Var("off", ir.TupleType([ir.ScalarType(ir.INDEX)] * 2))
    zero = ir.ConstInt(0, ir.INDEX)
    shape = ir.MakeTuple([ir.ConstInt(v, ir.INDEX) for v in (2, 16, 16)], _SPAN)
    stmts = [
        ir.AssignStmt(
            ir.Var("cube", ir.TileType([2, 16, 16], ir.FP32, None, None, ir.Mem.Vec)),
            _call("tile.load", [g3, ir.MakeTuple([zero] * 3, _SPAN), shape, shape], target_memory=ir.Mem.Vec),
        ),
        ir.AssignStmt(
            ir.Var("tr", t.type),
            ir.Call(ir.get_op("tile.transpose"), [t, zero, ir.ConstInt(1, ir.INDEX)], t.type, _SPAN),
        ),
        ir.AssignStmt(ir.Var("asm", t.type), ir.Call(ir.get_op("tile.assemble"), [t, tmp, off], t.type, _SPAN)),
        ir.AssignStmt(ir.Var("ok", t.type), _call("tile.transpose", [t, zero, ir.ConstInt(1, ir.INDEX), tmp])),
    ]
    program = single("main", [g3, t, tmp, off], ir.SeqStmts(stmts, _SPAN), func_type=_FT.AIV)
    assert [(c, m) for c, m, _ in found(TileOps2D, program)] == [
        ("RANK_ABOVE_2", "tile.load produces a rank-3 tile"),
        ("TRANSPOSE_ARGS", "tile.transpose has 3 operands (needs a scratch 4th)"),
        ("ASSEMBLE_OFFSETS", "tile.assemble offsets must be a literal 2-tuple"),
    ]


def test_tile_memory_inferred() -> None:
    left, vec = _tile(ir.Mem.Left, ir.FP16, "l"), _tile(ir.Mem.Vec, ir.FP16, "v")
    unknown = ir.Var("u", ir.TileType([16, 16], ir.FP32))
    stmts = [
        ir.AssignStmt(unknown, _call("tile.exp", [_tile(ir.Mem.Vec, name="e")])),
        ir.AssignStmt(
            ir.Var("m", ir.TileType([16, 16], ir.FP32, None, None, ir.Mem.Acc)), _call("tile.matmul", [left, vec])
        ),
    ]
    program = single("main", [left, vec], ir.SeqStmts(stmts, _SPAN), func_type=_FT.AIC)
    assert [(c, m) for c, m, _ in found(TileMemoryInferred, program)] == [
        ("NO_MEMORY_SPACE", "tile 'u' has no memory space"),
        ("SPACE_CONSTRAINT", "tile.matmul argument 1 is in Vec, needs Right"),
    ]
    good = prog(
        """
        @pl.program
        class A:
            @pl.function(type=pl.FunctionType.InCore)
            def main(self, x: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
                t: pl.Tile[[16, 16], pl.FP32] = pl.load(x, [0, 0], [16, 16])
                r: pl.Tensor[[16, 16], pl.FP32] = pl.store(pl.exp(t), [0, 0], out)
                return r
        """
    )
    assert found(TileMemoryInferred, good) == []


def _store(tile: ir.Var, target: ir.Var, **kwargs: object) -> ir.AssignStmt:
    return ir.AssignStmt(
        ir.Var("s", target.type), _raw("tile.store", [tile, _offsets(), target], target.type, **kwargs)
    )


def test_acc_to_gm_store() -> None:
    acc = _tile(ir.Mem.Acc)
    bad, good = _tensor(ir.INT8, "bad"), _tensor(ir.FP32, "good")
    program = single(
        "main", [acc, bad, good], ir.SeqStmts([_store(acc, bad), _store(acc, good)], _SPAN), func_type=_FT.AIC
    )
    assert [(c, m) for c, m, _ in found(AccToGmStoreValid, program)] == [
        ("ACC_STORE_DTYPE", "an Acc tile is stored into a int8 tensor"),
    ]


def test_atomic_add_dtypes_depend_on_the_platform() -> None:
    stmts, params = [], []
    for dtype in (ir.FP32, ir.BF16, ir.INT64):
        tile, target = _tile(ir.Mem.Vec, dtype, f"t_{dtype}"), _tensor(dtype, f"g_{dtype}")
        params += [tile, target]
        stmts.append(_store(tile, target, atomic=ir.AtomicType.Add))
    program = single("main", params, ir.SeqStmts(stmts, _SPAN), func_type=_FT.AIV)
    assert [m for _, m, _ in found(AtomicAddDtypeValid, program)] == [
        "atomic add into a int64 tensor is not supported on a2a3",
    ]
    with target_platform(A5):
        assert [m for _, m, _ in found(AtomicAddDtypeValid, program)] == [
            "atomic add into a bfloat16 tensor is not supported on a5",
            "atomic add into a int64 tensor is not supported on a5",
        ]


# The rules below skip a kernel when its few distinct node types show nothing to report; a kernel
# whose only flaw is the one a skip could hide still gets it reported.


def test_a_rank_3_tile_alone_is_found() -> None:
    g3 = ir.Var("g3", ir.TensorType([2, 16, 16], ir.FP32))
    zero = ir.ConstInt(0, ir.INDEX)
    shape = ir.MakeTuple([ir.ConstInt(v, ir.INDEX) for v in (2, 16, 16)], _SPAN)
    cube = ir.Var("cube", ir.TileType([2, 16, 16], ir.FP32, None, None, ir.Mem.Vec))
    load = _call("tile.load", [g3, ir.MakeTuple([zero] * 3, _SPAN), shape, shape], target_memory=ir.Mem.Vec)
    program = single("main", [g3], ir.SeqStmts([ir.AssignStmt(cube, load)], _SPAN), func_type=_FT.AIV)
    assert [(c, m) for c, m, _ in found(TileOps2D, program)] == [("RANK_ABOVE_2", "tile.load produces a rank-3 tile")]


def test_an_operand_in_a_space_its_op_refuses_is_found_when_every_tile_has_a_space() -> None:
    left, vec = _tile(ir.Mem.Left, ir.FP16, "l"), _tile(ir.Mem.Vec, ir.FP16, "v")
    m = ir.Var("m", ir.TileType([16, 16], ir.FP32, None, None, ir.Mem.Acc))
    program = single("main", [left, vec], ir.AssignStmt(m, _call("tile.matmul", [left, vec])), func_type=_FT.AIC)
    assert [(c, m) for c, m, _ in found(TileMemoryInferred, program)] == [
        ("SPACE_CONSTRAINT", "tile.matmul argument 1 is in Vec, needs Right"),
    ]
    both_left = single("main", [left, vec], ir.AssignStmt(m, _call("tile.matmul", [left, left])), func_type=_FT.AIC)
    assert [(c, m) for c, m, _ in found(TileMemoryInferred, both_left)] == [
        ("SPACE_CONSTRAINT", "tile.matmul argument 1 is in Left, needs Right"),
    ]


def test_incore_tile_ops_shortcut_by_op_names(monkeypatch: pytest.MonkeyPatch) -> None:
    """A kernel whose tensor ops are only tensor.read/write passes unwalked; one with tensor.dim (a
    tensor op without a tile counterpart) is walked and reported, the same with the shortcut as without."""
    x = _tensor()
    read = ir.AssignStmt(ir.Var("v", ir.ScalarType(ir.FP32)), _call("tensor.read", [x, _offsets()]))
    dim = ir.AssignStmt(ir.Var("d", ir.ScalarType(ir.INDEX)), _call("tensor.dim", [x, ir.ConstInt(0, ir.INDEX)]))
    only_io = single("main", [x], read, func_type=_FT.InCore)
    with_dim = single("main", [x], ir.SeqStmts([read, dim], _SPAN), func_type=_FT.InCore)
    for holds_if in (IncoreTileOps.holds_if, None):
        monkeypatch.setattr(IncoreTileOps, "holds_if", holds_if)
        clear_caches()
        assert found(IncoreTileOps, only_io) == []
        assert [(c, m) for c, m, _ in found(IncoreTileOps, with_dim)] == [
            ("TENSOR_DIM_IN_KERNEL", "tensor.dim in a InCore function (ConvertTensorToTileOps makes it the extent)"),
        ]


def test_a_tile_without_a_space_in_a_tuple_is_found() -> None:
    pair = ir.Var("pair", ir.TupleType([ir.TileType([16, 16], ir.FP32)]))
    t = _tile(ir.Mem.Vec)
    program = single("main", [t, pair], ir.AssignStmt(ir.Var("e", t.type), _call("tile.exp", [t])), func_type=_FT.AIV)
    assert [c for c, _, _ in found(TileMemoryInferred, program)] == ["NO_MEMORY_SPACE"]


def test_a_col_major_operand_of_a_row_major_only_op_is_found() -> None:
    column = ir.Var("c", ir.TileType([16, 1], ir.FP32, None, None, ir.Mem.Vec))
    row = ir.Var("r", ir.TileType([1, 16], ir.FP32, None, None, ir.Mem.Vec))
    stmts = [ir.AssignStmt(ir.Var("e", column.type), _raw("tile.exp", [column], column.type)),
             ir.AssignStmt(ir.Var("f", row.type), _call("tile.exp", [row]))]
    program = single("main", [column, row], ir.SeqStmts(stmts, _SPAN), func_type=_FT.AIV)
    assert [(c, m) for c, m, _ in found(OperandLayoutsResolved, program)] == [
        ("COL_MAJOR_OPERAND", "tile.exp runs only on row-major tiles, but its operand(s) c are col-major "
         "(ResolveBackendOpLayouts gives it row-major copies)"),
    ]
    fine = single("main", [row], ir.SeqStmts(stmts[1:], _SPAN), func_type=_FT.AIV)
    assert found(OperandLayoutsResolved, fine) == []


def _strided_tile(name: str) -> ir.Var:
    """A [16, 16] Vec tile whose rows are 32 elements apart: a window into a wider buffer."""
    view = ir.TileView(stride=[ir.ConstInt(32, ir.INDEX), ir.ConstInt(1, ir.INDEX)])
    return ir.Var(name, ir.TileType([16, 16], ir.FP32, None, view, ir.Mem.Vec))


def test_a_strided_tile_read_in_place_is_found_without_a_slice() -> None:
    """TileSlicesPitched skips a kernel without a slice whose parameters and assigned variables have no
    explicit stride: a strided parameter, or a strided variable a loop body assigns, is still read."""
    window, plain = _strided_tile("w"), _tile(ir.Mem.Vec, name="p")
    add = _raw("tile.add", [window, plain], plain.type)
    program = single("main", [window, plain], ir.AssignStmt(ir.Var("s", plain.type), add), func_type=_FT.AIV)
    assert [(c, m) for c, m, _ in found(TileSlicesPitched, program)] == [
        ("STRIDED_READ", "tile.add reads the strided tile 'w' in place, which its pto-isa instruction cannot "
         "(CanonicalizeTileSlice reads a compact copy instead)"),
    ]
    inner = _strided_tile("inner")
    body = ir.SeqStmts([ir.AssignStmt(inner, _raw("tile.exp", [plain], inner.type)),
                        ir.AssignStmt(ir.Var("s", plain.type), _raw("tile.add", [inner, plain], plain.type))], _SPAN)
    loop = ir.ForStmt(ir.Var("i", ir.ScalarType(ir.INDEX)), 0, 2, 1, [], body, [], _SPAN)
    looped = single("main", [plain], ir.SeqStmts([loop], _SPAN), func_type=_FT.AIV)
    assert [m for _, m, _ in found(TileSlicesPitched, looped)] == [
        "tile.add reads the strided tile 'inner' in place, which its pto-isa instruction cannot "
        "(CanonicalizeTileSlice reads a compact copy instead)",
    ]


def test_an_operand_of_a_nested_call_in_a_refused_space_is_found() -> None:
    """TileMemoryInferred reads the spaces of the calls' operands: an operand that is itself a call,
    in a space no variable's type has and its op refuses, is reported."""
    vec = _tile(ir.Mem.Vec, name="v")
    inner = _raw("tile.exp", [vec], ir.TileType([16, 16], ir.FP32, None, None, ir.Mem.Left))
    program = single("main", [vec], ir.AssignStmt(ir.Var("e", vec.type), _raw("tile.exp", [inner], vec.type)),
                     func_type=_FT.AIV)
    assert [(c, m) for c, m, _ in found(TileMemoryInferred, program)] == [
        ("SPACE_CONSTRAINT", "tile.exp argument 0 is in Left, needs Vec"),
    ]
