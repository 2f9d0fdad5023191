"""Scalar expressions and control flow: loops, while, if, break/continue, calls, submits, scopes."""

from __future__ import annotations

import numpy as np
import pytest
from interp_ir import (
    SP,
    assign,
    call,
    function,
    idx,
    ret,
    scalar_t,
    seq,
    span,
    tensor_t,
    tile_t,
    tup,
    var,
)

from pypto import ir
from pypto.interp import InterpreterError, run
from pypto.ir import DataType as D

I64 = scalar_t(D.INT64)


def loop_sum() -> ir.Function:
    """The seed's ``loop_sum``: ``for i, (sum,) in pl.range(n, init_values=(0,)): sum = yield(sum + i)``."""
    n = var("n", I64)
    init = var("sum_init", I64)
    i = var("i", scalar_t(D.INDEX))
    acc = ir.IterArg("sum", I64, init, SP)
    out = var("sum_rv", I64)
    loop = ir.ForStmt(i, 0, n, 1, [acc], seq(ir.YieldStmt([acc + i], SP)), [out], SP)
    return function("loop_sum", [n], [I64], assign(init, ir.ConstInt(0, D.INT64, SP)), loop, ret(out))


@pytest.mark.parametrize("n", [0, 1, 10])
def test_for_with_iter_args(n: int) -> None:
    assert run(loop_sum(), n).value == sum(range(n))


@pytest.mark.parametrize("kind", [ir.ForKind.Sequential, ir.ForKind.Parallel, ir.ForKind.Pipeline])
def test_for_kinds_run_sequentially_with_steps(kind: ir.ForKind) -> None:
    i = var("i", scalar_t())
    init = ir.ConstInt(0, D.INT64, SP)
    acc = ir.IterArg("acc", I64, init, SP)
    out = var("out", I64)
    # acc = acc * 10 + i over i in range(7, 1, -2): order is observable.
    body = seq(ir.YieldStmt([acc * ir.ConstInt(10, D.INT64, SP) + ir.cast(i, D.INT64)], SP))
    attrs = {"pipeline_stages": 2} if kind == ir.ForKind.Pipeline else None
    loop = ir.ForStmt(i, 7, 1, -2, [acc], body, [out], SP, kind, attrs)
    assert run(function("f", [], [I64], loop, ret(out))).value == 753


def test_while_with_iter_args() -> None:
    n = var("n", I64)
    x = ir.IterArg("x", I64, ir.ConstInt(1, D.INT64, SP), SP)
    out = var("x_next", I64)
    loop = ir.WhileStmt(x < n, [x], seq(ir.YieldStmt([x * ir.ConstInt(2, D.INT64, SP)], SP)), [out], SP)
    assert run(function("f", [n], [I64], loop, ret(out)), 100).value == 128


def test_pre_ssa_while_and_reassignment() -> None:
    n = var("n", I64)
    i = var("i", I64)
    body = seq(assign(i, i + ir.ConstInt(3, D.INT64, SP)))
    f = function("f", [n], [I64], assign(i, ir.ConstInt(0, D.INT64, SP)), ir.WhileStmt(i < n, [], body, [], SP), ret(i))
    assert run(f, 10).value == 12


@pytest.mark.parametrize(("x", "expected"), [(5, 6), (-5, 3)])
def test_if_with_return_vars(x: int, expected: int) -> None:
    p = var("x", I64)
    y = var("y", I64)
    one, two = ir.ConstInt(1, D.INT64, SP), ir.ConstInt(2, D.INT64, SP)
    then = seq(ir.YieldStmt([p + one], SP))
    other = seq(ir.YieldStmt([ir.abs_(p) - two], SP))
    stmt = ir.IfStmt(p > ir.ConstInt(0, D.INT64, SP), then, other, [y], SP)
    assert run(function("f", [p], [I64], stmt, ret(y)), x).value == expected


def test_break_and_continue_in_surface_loops() -> None:
    # total = 0; for i in range(100): if i % 2 == 1: continue; if i > 8: break; total = total + i
    total = var("total", I64)
    i = var("i", scalar_t())
    ii = ir.cast(i, D.INT64)
    body = seq(
        ir.IfStmt(
            ii % ir.ConstInt(2, D.INT64, SP) == ir.ConstInt(1, D.INT64, SP), seq(ir.ContinueStmt(SP)), None, [], SP
        ),
        ir.IfStmt(ii > ir.ConstInt(8, D.INT64, SP), seq(ir.BreakStmt(SP)), None, [], SP),
        assign(total, total + ii),
    )
    f = function(
        "f",
        [],
        [I64],
        assign(total, ir.ConstInt(0, D.INT64, SP)),
        ir.ForStmt(i, 0, 100, 1, [], body, [], SP),
        ret(total),
    )
    assert run(f).value == 0 + 2 + 4 + 6 + 8


def test_return_inside_a_loop_leaves_the_function() -> None:
    i = var("i", scalar_t())
    body = seq(ir.IfStmt(i == idx(3), seq(ir.ReturnStmt([i], SP)), None, [], SP))
    f = function("f", [], [scalar_t()], ir.ForStmt(i, 0, 10, 1, [], body, [], SP), ret(idx(-1)))
    assert run(f).value == 3


def test_break_outside_a_loop_is_an_error() -> None:
    f = function("f", [], [], ir.BreakStmt(SP))
    with pytest.raises(InterpreterError, match="'break' outside a loop in function 'f'"):
        run(f)


@pytest.mark.parametrize(
    ("expr", "expected"),
    [
        (ir.FloorDiv(ir.ConstInt(-7, D.INT32, SP), ir.ConstInt(2, D.INT32, SP), D.INT32, SP), -4),
        (ir.FloorMod(ir.ConstInt(-7, D.INT32, SP), ir.ConstInt(2, D.INT32, SP), D.INT32, SP), 1),
        (ir.FloatDiv(ir.ConstInt(-7, D.INT32, SP), ir.ConstInt(2, D.INT32, SP), D.INT32, SP), -3),
        (
            ir.FloatDiv(ir.ConstFloat(1.0, D.FP32, SP), ir.ConstFloat(3.0, D.FP32, SP), D.FP32, SP),
            float(np.float32(1 / 3)),
        ),
        (ir.Add(ir.ConstInt(127, D.INT8, SP), ir.ConstInt(1, D.INT8, SP), D.INT8, SP), -128),
        (ir.BitShiftLeft(ir.ConstInt(1, D.INT32, SP), ir.ConstInt(31, D.INT32, SP), D.INT32, SP), -(2**31)),
        (ir.Pow(ir.ConstInt(3, D.INT64, SP), ir.ConstInt(4, D.INT64, SP), D.INT64, SP), 81),
        (ir.Min(ir.ConstInt(3, D.INT64, SP), ir.ConstInt(-4, D.INT64, SP), D.INT64, SP), -4),
        (ir.Xor(ir.ConstBool(True, SP), ir.ConstBool(True, SP), D.BOOL, SP), False),
        (ir.Not(ir.ConstBool(False, SP), D.BOOL, SP), True),
        (ir.BitNot(ir.ConstInt(0, D.UINT8, SP), D.UINT8, SP), 255),
        (ir.Cast(ir.ConstFloat(-2.7, D.FP32, SP), D.INT32, SP), -2),
        (ir.Cast(ir.ConstInt(300, D.INT32, SP), D.UINT8, SP), 44),
    ],
    ids=lambda v: type(v).__name__ if isinstance(v, ir.Expr) else str(v),
)
def test_scalar_expressions(expr: ir.Expr, expected: object) -> None:
    r = var("r", expr.type)
    assert run(function("f", [], [expr.type], assign(r, expr), ret(r))).value == expected


def test_integer_division_by_zero_names_the_statement() -> None:
    x = var("x", I64)
    r = var("r", I64)
    f = function("f", [x], [I64], assign(r, x // ir.ConstInt(0, D.INT64, SP), line=7), ret(r))
    with pytest.raises(InterpreterError, match=r"^prog.py:7:1: integer floor division by zero$") as info:
        run(f, 3)
    assert info.value.span == span(7)


def _double_kernel() -> ir.Function:
    t = tensor_t([4])
    x, out = var("x", t), var("out", t)
    tl = tile_t([4])
    a, b, s = var("a", tl), var("b", tl), var("s", t)
    return function(
        "double",
        [x, (out, ir.ParamDirection.Out)],
        [t],
        assign(a, call("tile.load", [x, tup(0), tup(4), tup(4)], {"target_memory": ir.MemorySpace.Vec}, tl)),
        assign(b, call("tile.add", [a, a], None, tl)),
        assign(s, call("tile.store", [b, tup(0), out], None, t)),
        ret(out),  # param-explicit, as after outlining
        type=ir.FunctionType.InCore,
    )


def test_calls_between_functions_write_out_params_by_reference() -> None:
    t = tensor_t([4])
    x, out, y = var("x", t), var("out", t), var("y", t)
    main = function(
        "main",
        [x, (out, ir.ParamDirection.Out)],
        [t],
        assign(y, ir.Call(ir.GlobalVar("double"), [x, out], t, SP)),
        ret(out),
        type=ir.FunctionType.Orchestration,
    )
    prog = ir.Program([main, _double_kernel()], "p", SP)
    x_in = np.arange(4, dtype=np.float32)
    out_in = np.full(4, 9.0, dtype=np.float32)
    result = run(prog, x_in, out_in)
    np.testing.assert_array_equal(result.value, 2 * x_in)
    np.testing.assert_array_equal(result.outputs["out"], 2 * x_in)
    np.testing.assert_array_equal(out_in, np.full(4, 9.0, dtype=np.float32))  # the caller's array is a copy


def test_submit_returns_results_and_fresh_task_ids() -> None:
    t = tensor_t([4])
    x, out = var("x", t), var("out", t)
    tid_t = scalar_t(D.TASK_ID)
    res_t = ir.TupleType([t, tid_t])
    r1, r2 = var("r1", res_t), var("r2", res_t)
    t1, t2 = var("t1", tid_t), var("t2", tid_t)
    first = ir.Submit(ir.GlobalVar("double"), [x, out], [], res_t, SP)
    second = ir.Submit(ir.GlobalVar("double"), [x, out], [t1], res_t, SP)
    main = function(
        "main",
        [x, (out, ir.ParamDirection.Out)],
        [tid_t, tid_t],
        assign(r1, first),
        assign(t1, ir.TupleGetItemExpr(r1, 1, SP)),
        assign(r2, second),
        assign(t2, ir.TupleGetItemExpr(r2, 1, SP)),
        ret(t1, t2),
    )
    result = run(ir.Program([main, _double_kernel()], "p", SP), np.ones(4, np.float32), np.zeros(4, np.float32))
    a, b = result.returns
    assert isinstance(a, int) and isinstance(b, int) and a != b and 0 not in (a, b)
    np.testing.assert_array_equal(result.outputs["out"], np.full(4, 2.0, np.float32))


@pytest.mark.parametrize(("gate", "expected"), [(1, 2.0), (0, 5.0)])
def test_submit_predicate_false_skips_the_task(gate: int, expected: float) -> None:
    t = tensor_t([4])
    x, out = var("x", t), var("out", t)
    g = var("g", I64)
    res_t = ir.TupleType([t, scalar_t(D.TASK_ID)])
    r = var("r", res_t)
    submit = ir.Submit(
        ir.GlobalVar("double"), [x, out], [], {}, {}, res_t, SP, predicate=g > ir.ConstInt(0, D.INT64, SP)
    )
    y = var("y", t)
    main = function(
        "main",
        [x, (out, ir.ParamDirection.InOut), g],
        [t],
        assign(r, submit),
        assign(y, ir.TupleGetItemExpr(r, 0, SP)),
        ret(y),
    )
    result = run(
        ir.Program([main, _double_kernel()], "p", SP), np.ones(4, np.float32), np.full(4, 5.0, np.float32), gate
    )
    np.testing.assert_array_equal(result.value, np.full(4, expected, np.float32))


def _block_writer(n_blocks: int) -> tuple[ir.Var, ir.Var, list[ir.Stmt]]:
    """Statements writing ``block_idx * 10`` into element ``block_idx`` of ``out``."""
    t = tensor_t([n_blocks], D.INT32)
    out = var("out", t)
    b = var("b", scalar_t())
    w = var("w", t)
    stmts = [
        assign(b, call("tile.get_block_idx", [], None, scalar_t())),
        assign(w, call("tensor.write", [out, tup(b), ir.cast(b * idx(10), D.INT32)], None, t)),
    ]
    return out, w, stmts


def test_spmd_scope_runs_its_body_once_per_block() -> None:
    out, _, stmts = _block_writer(4)
    scope = ir.SpmdScopeStmt(4, body=seq(*stmts), span=SP)
    f = function("f", [(out, ir.ParamDirection.Out)], [], scope)
    np.testing.assert_array_equal(run(f, np.zeros(4, np.int32)).outputs["out"], [0, 10, 20, 30])


@pytest.mark.parametrize(("gate", "expected"), [(1, [0, 10, 20, 30]), (0, [7, 7, 7, 7])])
def test_spmd_scope_predicate_false_skips_the_body(gate: int, expected: list[int]) -> None:
    """A skipped scope runs no block; ``w``, the body's name for the written ``out``, is ``out``
    as it was (what the outlined Submit of a skipped task returns)."""
    out, w, stmts = _block_writer(4)
    g = var("g", tensor_t([2], D.INT32))
    gate_read = ir.cast(call("tensor.read", [g, tup(idx(1))], None, scalar_t(D.INT32)), D.INDEX)
    scope = ir.SpmdScopeStmt(4, body=seq(*stmts), attrs={"predicate": gate_read > idx(0)}, span=SP)
    f = ir.Program([function("f", [(out, ir.ParamDirection.Out), g], [out.type], scope, ret(w))], "p", SP)
    result = run(f, np.full(4, 7, np.int32), np.array([0, gate], np.int32))
    np.testing.assert_array_equal(result.value, expected)


def test_spmd_launch_from_call_attrs_and_spmd_function_attrs() -> None:
    out, _, stmts = _block_writer(3)
    kernel = function("kernel", [(out, ir.ParamDirection.Out)], [], *stmts, type=ir.FunctionType.InCore)
    o1 = var("o", out.type)
    by_call = function(
        "main",
        [(o1, ir.ParamDirection.Out)],
        [],
        ir.EvalStmt(ir.Call(ir.GlobalVar("kernel"), [o1], {}, {"core_num": 3}, ir.UnknownType(), SP), SP),
    )
    np.testing.assert_array_equal(
        run(ir.Program([by_call, kernel], "p", SP), np.zeros(3, np.int32)).outputs["o"], [0, 10, 20]
    )
    o2 = var("o", out.type)
    wrapper = function(
        "spmd",
        [(o2, ir.ParamDirection.Out)],
        [],
        ir.EvalStmt(ir.Call(ir.GlobalVar("kernel"), [o2], SP), SP),
        type=ir.FunctionType.Spmd,
        attrs={"core_num": 3},
    )
    o3 = var("o", out.type)
    main = function("main", [(o3, ir.ParamDirection.Out)], [], ir.EvalStmt(ir.Call(ir.GlobalVar("spmd"), [o3], SP), SP))
    np.testing.assert_array_equal(
        run(ir.Program([main, wrapper, kernel], "p", SP), np.zeros(3, np.int32)).outputs["o"], [0, 10, 20]
    )


def test_split_aiv_scope_runs_once_per_lane_and_scope_task_id_var() -> None:
    t = tensor_t([2], D.INT32)
    out = var("out", t)
    lane = var("aiv_id", scalar_t())
    w = var("w", t)
    body = seq(
        assign(lane, call("tile.get_subblock_idx", [], None, scalar_t())),
        assign(w, call("tensor.write", [out, tup(lane), ir.cast(lane + idx(7), D.INT32)], None, t)),
    )
    tid = var("tid", scalar_t(D.TASK_ID))
    scope = ir.InCoreScopeStmt(
        body=seq(ir.SplitAivScopeStmt(ir.SplitMode.UP_DOWN, body=body, span=SP)), span=SP, attrs={"task_id_var": tid}
    )
    f = function("f", [(out, ir.ParamDirection.Out)], [scalar_t(D.TASK_ID)], scope, ret(tid))
    result = run(f, np.zeros(2, np.int32))
    np.testing.assert_array_equal(result.outputs["out"], [7, 8])
    assert result.value == 1


def test_sync_and_barrier_ops_are_no_ops() -> None:
    stmts = [
        ir.EvalStmt(call("system.sync_src", [], {"set_pipe": 2, "wait_pipe": 4, "event_id": 0}), SP),
        ir.EvalStmt(call("system.bar_v", []), SP),
        ir.EvalStmt(call("system.bar_all", []), SP),
    ]
    assert run(function("f", [], [], *stmts)).returns == ()
