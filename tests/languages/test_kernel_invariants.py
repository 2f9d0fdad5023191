"""MixedKernelExpanded and HardSyncallOccupancyValid."""

from __future__ import annotations

from inv_helpers import found
from pypto.languages.invariants import HardSyncallOccupancyValid, MixedKernelExpanded

from pypto import ir
from pypto.ir.op_registry import create_op_call

_SPAN = ir.Span.unknown()
_FT = ir.FunctionType


def _call(op: str, args: list[ir.Expr], **kwargs: object) -> ir.Call:
    return create_op_call(op, args, kwargs, _SPAN)


def _tile(space: ir.MemorySpace, name: str, shape: list | None = None, dtype: ir.DataType = ir.FP16) -> ir.Var:
    return ir.Var(name, ir.TileType(shape or [16, 16], dtype, None, None, space))


def _func(name: str, params: list[ir.Var], stmts: list[ir.Stmt], func_type: ir.FunctionType) -> ir.Function:
    return ir.Function(name, params, [], ir.SeqStmts(stmts, _SPAN), _SPAN, type=func_type)


def _program(*funcs: ir.Function) -> ir.Program:
    return ir.Program(list(funcs), "P", _SPAN)


def _pop(var: ir.Var) -> ir.AssignStmt:
    return ir.AssignStmt(var, ir.Call(ir.get_op("tile.tpop_from_aic"), [], {"split": 0}, var.type, _SPAN))


def test_kernels_stay_on_one_side() -> None:
    left, right, vec = _tile(ir.Mem.Left, "l"), _tile(ir.Mem.Right, "r"), _tile(ir.Mem.Vec, "v")
    matmul = ir.AssignStmt(
        ir.Var("m", ir.TileType([16, 16], ir.FP32, None, None, ir.Mem.Acc)), _call("tile.matmul", [left, right])
    )
    exp = ir.AssignStmt(_tile(ir.Mem.Vec, "e"), _call("tile.exp", [vec]))
    mixed = _func("mixed", [left, right, vec], [matmul, exp], _FT.InCore)
    cube = _func("cube", [left, right, vec], [matmul, exp], _FT.AIC)
    assert found(MixedKernelExpanded, _program(mixed, cube)) == [
        ("WRONG_SIDE", "vector op tile.exp in an AIC kernel", "pl.tile.exp(v)"),
        ("MIXED_KERNEL", "an InCore function mixes cube and vector work", "function mixed"),
    ]


def test_a_kernel_checked_again_after_another_function_changed_reports_the_same() -> None:
    """The rules that read only the kernel are reused when the check runs again because another
    function is a new object: its findings, one at the function itself, come back the same."""
    left, right, vec = _tile(ir.Mem.Left, "l"), _tile(ir.Mem.Right, "r"), _tile(ir.Mem.Vec, "v")
    matmul = ir.AssignStmt(
        ir.Var("m", ir.TileType([16, 16], ir.FP32, None, None, ir.Mem.Acc)), _call("tile.matmul", [left, right])
    )
    exp = ir.AssignStmt(_tile(ir.Mem.Vec, "e"), _call("tile.exp", [vec]))
    mixed = _func("mixed", [left, right, vec], [matmul, exp], _FT.InCore)
    cube = _func("cube", [left, right, vec], [matmul, exp], _FT.AIC)
    want = [
        ("WRONG_SIDE", "vector op tile.exp in an AIC kernel", "pl.tile.exp(v)"),
        ("MIXED_KERNEL", "an InCore function mixes cube and vector work", "function mixed"),
    ]
    assert found(MixedKernelExpanded, _program(mixed, cube)) == want
    other = _func("other", [vec], [exp], _FT.AIV)
    for _ in range(2):
        other = ir.replace(other, name="other")  # a new object each time: every function is checked again
        assert found(MixedKernelExpanded, _program(mixed, cube, other)) == want


def test_an_incore_function_whose_operands_decide_a_side() -> None:
    """A tile.load's side is its target space's: into Mat it is cube work, beside a vector tile.exp."""
    a = ir.Var("a", ir.TensorType([16, 16], ir.FP16))
    vec = _tile(ir.Mem.Vec, "v")
    window = [ir.MakeTuple([ir.ConstInt(0, ir.INDEX)] * 2), ir.MakeTuple([ir.ConstInt(16, ir.INDEX)] * 2)]
    load = ir.AssignStmt(_tile(ir.Mem.Mat, "m"), _call("tile.load", [a, *window], target_memory=ir.Mem.Mat))
    exp = ir.AssignStmt(_tile(ir.Mem.Vec, "e"), _call("tile.exp", [vec]))
    mixed = _func("mixed", [a, vec], [load, exp], _FT.InCore)
    to_vec = _call("tile.load", [a, *window], target_memory=ir.Mem.Vec)
    vector = _func("vector", [a, vec], [ir.AssignStmt(_tile(ir.Mem.Vec, "w"), to_vec), exp], _FT.InCore)
    assert found(MixedKernelExpanded, _program(mixed, vector)) == [
        ("MIXED_KERNEL", "an InCore function mixes cube and vector work", "function mixed"),
    ]


def test_every_wrong_side_call_is_reported_in_order() -> None:
    """The calls looked at are found by op name: calls of several names and of a function placed on
    the vector side are each reported, in program order; an InCore function calling that function
    and a cube op mixes the sides."""
    a = ir.Var("a", ir.TensorType([16, 16], ir.FP16))
    left, right, vec = _tile(ir.Mem.Left, "l"), _tile(ir.Mem.Right, "r"), _tile(ir.Mem.Vec, "v")
    window = [ir.MakeTuple([ir.ConstInt(0, ir.INDEX)] * 2), ir.MakeTuple([ir.ConstInt(16, ir.INDEX)] * 2)]
    matmul = ir.AssignStmt(
        ir.Var("m", ir.TileType([16, 16], ir.FP32, None, None, ir.Mem.Acc)), _call("tile.matmul", [left, right])
    )
    placed = ir.EvalStmt(ir.Call(ir.GlobalVar("helper"), [vec], {}, {"core_placement": "aiv"}, _SPAN), _SPAN)
    stmts = [
        ir.AssignStmt(_tile(ir.Mem.Vec, "e1"), _call("tile.exp", [vec])),
        matmul,
        ir.AssignStmt(_tile(ir.Mem.Vec, "w"), _call("tile.load", [a, *window], target_memory=ir.Mem.Vec)),
        placed,
        ir.AssignStmt(_tile(ir.Mem.Vec, "e2"), _call("tile.exp", [vec])),
    ]
    helper = _func("helper", [vec], [], _FT.InCore)
    cube = _func("cube", [a, left, right, vec], stmts, _FT.AIC)
    mixed = _func("mixed", [left, right, vec], [matmul, placed], _FT.InCore)
    assert found(MixedKernelExpanded, _program(helper, cube, mixed)) == [
        ("WRONG_SIDE", "vector op tile.exp in an AIC kernel", "pl.tile.exp(v)"),
        ("WRONG_SIDE", "vector op tile.load in an AIC kernel",
         "pl.tile.load(a, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec)"),
        ("WRONG_SIDE", "vector call of 'helper' in an AIC kernel", "helper(v, attrs={\"core_placement\": 'aiv'})"),
        ("WRONG_SIDE", "vector op tile.exp in an AIC kernel", "pl.tile.exp(v)"),
        ("MIXED_KERNEL", "an InCore function mixes cube and vector work", "function mixed"),
    ]


def test_cross_core_pipes() -> None:
    n = ir.Var("n", ir.ScalarType(ir.INDEX))
    popped = _tile(ir.Mem.Mat, "p")
    ragged = _tile(ir.Mem.Vec, "q", [n, 16])
    push = ir.EvalStmt(ir.Call(ir.get_op("tile.tpush_to_aic"), [ragged], {"split": 0}, _SPAN), _SPAN)
    bad = _func("bad", [n, ragged], [_pop(popped), push], _FT.AIV)
    assert [(c, m) for c, m, _ in found(MixedKernelExpanded, _program(bad))] == [
        ("MISSING_PIPE_SETUP", "tile.tpop_from_aic on a pipe that 'bad' never sets up: call pl.aiv_initialize_pipe "
         "(with its id=) before the first push or pop, on a buffer the consumer reserves (pl.reserve_buffer) and the "
         "producer imports (pl.import_peer_buffer)"),
        ("DYNAMIC_PIPE_TILE", "tile.tpush_to_aic sends a tile without a static shape"),
        ("TPOP_SPACE", "tile.tpop_from_aic lands in Mat, needs Vec"),
        ("MISSING_TFREE", "'p' from tile.tpop_from_aic is never freed"),
    ]


def test_well_formed_vector_kernel() -> None:
    buf = ir.Var("buf", ir.ScalarType(ir.INT32))
    popped = _tile(ir.Mem.Vec, "p")
    zero = ir.ConstInt(0, ir.INT32)
    stmts = [
        ir.AssignStmt(buf, _call("system.reserve_buffer", [], name="c2v", size=1024)),
        ir.EvalStmt(_call("system.aiv_initialize_pipe", [buf, zero], dir_mask=1, slot_size=512), _SPAN),
        _pop(popped),
        ir.AssignStmt(_tile(ir.Mem.Vec, "e"), _call("tile.exp", [popped])),
        ir.EvalStmt(_call("system.tfree_to_aic", [popped]), _SPAN),
    ]
    assert found(MixedKernelExpanded, _program(_func("k", [], stmts, _FT.AIV))) == []


def _syncall_program(core_type: str, core_num: int, sync_start: bool, wrapped: bool) -> ir.Program:
    x = ir.Var("x", ir.TensorType([16], ir.FP32))
    kernel = _func("k", [x], [ir.EvalStmt(_call("system.syncall", [], core_type=core_type), _SPAN)], _FT.AIV)
    target = "g" if wrapped else "k"
    attrs = {"core_num": ir.ConstInt(core_num, ir.INDEX), "sync_start": sync_start}
    launch = ir.EvalStmt(ir.Call(ir.GlobalVar(target), [x], {}, attrs, _SPAN), _SPAN)
    funcs = [kernel, _func("main", [x], [launch], _FT.Orchestration)]
    if wrapped:
        funcs.append(_func("g", [x], [ir.EvalStmt(ir.Call(ir.GlobalVar("k"), [x], _SPAN), _SPAN)], _FT.Group))
    return _program(*funcs)


def test_hard_syncall_launch() -> None:
    assert found(HardSyncallOccupancyValid, _syncall_program("aiv_only", 48, True, False)) == []
    assert found(HardSyncallOccupancyValid, _syncall_program("aiv_only", 48, True, True)) == []
    partial = HardSyncallOccupancyValid.check(_syncall_program("aiv_only", 24, True, True))
    assert [(v.code, v.function, v.message) for v in partial] == [
        ("SYNCALL_OCCUPANCY", "main", "'k' has a hard syncall; launch it on all 48 cores with sync_start=True"),
    ]
    assert [(c, m) for c, m, _ in found(HardSyncallOccupancyValid, _syncall_program("aic_only", 24, False, False))] == [
        ("SYNCALL_CORE_TYPE", "aic_only syncall in an AIV kernel"),
        ("SYNCALL_OCCUPANCY", "'k' has a hard syncall; launch it on all 24 cores with sync_start=True"),
    ]
