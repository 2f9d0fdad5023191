"""Every IR node kind and type, built by hand, printed and compared with a snapshot (one per case).

Snapshots live in ``snapshots/test_printer_snapshots/``; regenerate with
``python3 -m pytest tests/ir/test_printer_snapshots.py --snapshot-update`` and review the diff.
"""

from __future__ import annotations

import ast
from typing import Callable

import pytest

from pypto import ir
from pypto.ir import (
    BF16,
    BOOL,
    FP16,
    FP32,
    INDEX,
    INT32,
    INT64,
    ArgDirection,
    ForKind,
    FunctionType,
    Level,
    MemorySpace,
    ParamDirection,
    Role,
    SplitMode,
)

S = ir.Span.unknown()
IDX = ir.ScalarType(INDEX)
T64 = ir.TensorType([64], FP32)


def idx(name: str) -> ir.Var:
    return ir.Var(name, IDX)


def ci(v: int, dtype: ir.DataType = INDEX) -> ir.ConstInt:
    return ir.ConstInt(v, dtype)


def call(name: str, args: list[ir.Expr], kwargs: dict | None = None, t: ir.Type | None = None) -> ir.Call:
    return ir.Call(ir.Op(name), args, kwargs or {}, t or ir.UnknownType.get(), S)


def seq(*stmts: ir.Stmt) -> ir.SeqStmts:
    return ir.SeqStmts(list(stmts), S)


# ---- expressions -------------------------------------------------------------------------
a, b, c = ir.Var("a", ir.ScalarType(INT64)), ir.Var("b", ir.ScalarType(INT64)), ir.Var("c", ir.ScalarType(INT64))
x = ir.Var("x", T64)
y = ir.Var("y", T64)
cond = ir.Var("p", ir.ScalarType(BOOL))
tid = ir.Var("tid", ir.ScalarType(ir.DataType.TASK_ID))

BINARY = [
    ir.Add, ir.Sub, ir.Mul, ir.FloatDiv, ir.FloorDiv, ir.FloorMod, ir.Pow, ir.Min, ir.Max,
    ir.Eq, ir.Ne, ir.Lt, ir.Le, ir.Gt, ir.Ge, ir.And, ir.Or, ir.Xor,
    ir.BitAnd, ir.BitOr, ir.BitXor, ir.BitShiftLeft, ir.BitShiftRight,
]  # fmt: skip
UNARY = [ir.Neg, ir.BitNot, ir.Not, ir.Abs, ir.Cast]


def _binary_table() -> ir.Stmt:
    """One EvalStmt per binary node class, each nested to show its parenthesisation."""
    out = []
    for cls in BINARY:
        out.append(ir.EvalStmt(cls(a, cls(b, c, INT64), INT64)))
        out.append(ir.EvalStmt(cls(cls(a, b, INT64), c, INT64)))
    return seq(*out)


def _unary_table() -> ir.Stmt:
    out = []
    for cls in UNARY:
        out.append(ir.EvalStmt(cls(a, INT32)))
        out.append(ir.EvalStmt(cls(ir.Add(a, b, INT64), INT32)))
    return seq(*out)


def _constants() -> ir.Stmt:
    values = [
        ci(42), ci(-7), ci(42, INT32), ci(42, INT64), ir.ConstFloat(1.0, FP32), ir.ConstFloat(0.1, FP32),
        ir.ConstFloat(6.2771141529083252e-07, FP32), ir.ConstFloat(1e20, FP32), ir.ConstFloat(-2.5, FP32),
        ir.ConstFloat(float("inf"), FP32), ir.ConstFloat(float("nan"), FP32), ir.ConstFloat(1.0, FP16),
        ir.ConstBool(True), ir.ConstBool(False),
    ]  # fmt: skip
    return seq(*[ir.EvalStmt(v) for v in values])


def _vars() -> ir.Stmt:
    it = ir.IterArg("acc", T64, x)
    mem = ir.MemRef("mem_vec_3", 0, 256)
    other_a = ir.Var("a", ir.ScalarType(INT64))
    return seq(ir.EvalStmt(a), ir.EvalStmt(it), ir.EvalStmt(mem), ir.EvalStmt(ir.Add(a, other_a, INT64)))


def _tuples() -> ir.Stmt:
    t = ir.Var("t", ir.TupleType([T64, IDX]))
    return seq(
        ir.EvalStmt(ir.MakeTuple([ci(0), a, ir.Add(a, ci(1), INT64)])),
        ir.EvalStmt(ir.MakeTuple([])),
        ir.EvalStmt(ir.TupleGetItemExpr(t, 1)),
    )


def _calls() -> ir.Stmt:
    return seq(
        ir.EvalStmt(call("tensor.add", [x, y])),
        ir.EvalStmt(call("tile.and", [x, y])),
        ir.EvalStmt(call("tensor.not", [x])),
        ir.EvalStmt(call("pld.tensor.allreduce", [x])),
        ir.EvalStmt(call("my_helper", [x, ci(3)])),
        ir.EvalStmt(ir.Call(ir.GlobalVar("helper"), [x], S)),
        ir.EvalStmt(
            call(
                "tile.load",
                [x, ir.MakeTuple([ci(0)]), ir.MakeTuple([ci(64)]), ir.MakeTuple([ci(64)])],
                {"target_memory": MemorySpace.Vec},
            )
        ),
        ir.EvalStmt(call("tile.cast", [x], {"target_type": FP16, "mode": 2})),
        ir.EvalStmt(call("system.sync_src", [], {"set_pipe": 1, "wait_pipe": 4, "event_id": 0})),
        ir.EvalStmt(call("system.sync_set", [], {"event_id": 3, "pipe": 2})),
        ir.EvalStmt(call("tile.store", [x, ir.MakeTuple([ci(0)]), y], {"atomic": 1})),
        ir.EvalStmt(
            call(
                "tensor.create",
                [ir.MakeTuple([ci(16), ci(16)])],
                {"dtype": FP32, "layout": ir.TensorLayout.ND, "manual_dep": True, "init_value": 0.5},
            )
        ),
        ir.EvalStmt(call("tile.fillpad", [x], {"pad_value": ir.PadValue.zero, "blayout": ir.TileLayout.row_major})),
        ir.EvalStmt(call("system.syncall", [], {"core_type": "mix"})),
        ir.EvalStmt(
            ir.Call(
                ir.GlobalVar("kernel"),
                [x, y],
                {},
                {"arg_directions": [ArgDirection.Input, ArgDirection.Output], "note": "n"},
                ir.UnknownType.get(),
                S,
            )
        ),
    )


def _op_shapes() -> ir.Stmt:
    shape = ir.MakeTuple([ci(16), ci(16)])
    ws = ir.Var("ws", ir.TensorType([256], INT64))
    return seq(
        ir.EvalStmt(call("tile.full", [shape, ir.ConstFloat(0.0, FP32)], {"dtype": FP32})),
        ir.EvalStmt(call("tensor.full", [shape, ci(3, INT32)], {"dtype": INT32})),
        ir.EvalStmt(call("tensor.reinterpret_view", [x], {"dtype": ir.INT16})),
        ir.EvalStmt(call("tensor.reinterpret_view", [x, ir.MakeTuple([ci(4), ci(64)])], {"dtype": ir.INT16})),
        ir.EvalStmt(call("tile.alloc", [ci(MemorySpace.Vec.value, INT64), ci(512, INT64)])),
        ir.EvalStmt(
            call("system.syncall", [ws, ci(0, INT32)], {"core_type": "mix", "mode": "soft"})
        ),
        ir.EvalStmt(call("tensor.gather_row", [x, y, ci(0), ci(0), shape], {"transpose": False})),
        ir.EvalStmt(call("tensor.gather_row", [x, y, ci(0), ci(0), shape, shape], {"transpose": False})),
        ir.EvalStmt(call("tile.mgather", [x, y, x, shape], {"coalesce": "row"})),
        ir.EvalStmt(call("tensor.add", [x, ir.ConstFloat(2.0, FP32)])),
        ir.EvalStmt(call("system.task_dummy", [tid])),
        ir.EvalStmt(call("system.task_dummy", [])),
    )


def _submits() -> ir.Stmt:
    rc = ir.Var("rc", ir.TensorType([4, 4], INT32))
    read = call("tensor.read", [rc, ir.MakeTuple([ci(0), ci(0)])], None, ir.ScalarType(INT32))
    pred = ir.Gt(ir.Cast(read, INT64), ci(0, INT64), BOOL)
    k = ir.GlobalVar("k")
    return seq(
        ir.EvalStmt(ir.Submit(k, [x, y], [])),
        ir.EvalStmt(ir.Submit(k, [x], [tid], {}, {}, ir.UnknownType.get(), S, allow_early_resolve=True, predicate=pred)),
        ir.EvalStmt(ir.Submit(k, [x], [], {}, {}, ir.UnknownType.get(), S, core_num=8, sync_start=True)),
        ir.EvalStmt(ir.Submit(k, [x], [tid], {}, {}, ir.UnknownType.get(), S, core_num=ci(2))),
    )


# ---- types -------------------------------------------------------------------------------
def _types() -> list[ir.Type]:
    n = idx("N")
    return [
        ir.ScalarType(INT64),
        ir.ScalarType(INDEX),
        ir.TensorType([64, 128], FP32),
        ir.TensorType([n, ir.Mul(ci(32), n, INDEX)], FP32),
        ir.TensorType([64, 128], FP32, None, ir.TensorView([], ir.TensorLayout.DN)),
        ir.TensorType([64, 128], FP32, None, ir.TensorView([ci(128), ci(1)], ir.TensorLayout.ND, [ci(32), n], ir.PadValue.zero)),
        ir.TensorType([64, 128], FP32, ir.MemRef("mem_ddr_0", 0, 32768)),
        ir.TileType([16, 16], FP16),
        ir.TileType([128, 128], FP32, None, None, MemorySpace.Acc),
        ir.TileType([16, 16], FP16, ir.MemRef("mem_vec_0", 0, 512)),
        ir.TileType([16, 16], FP16, ir.MemRef("buf"), None, MemorySpace.Vec),
        ir.TileType([16, 16], FP16, ir.MemRef("buf", slots=2)[1], None, MemorySpace.Vec),
        ir.TileType([64, 1], FP32, None, ir.TileView(blayout=ir.TileLayout.row_major), MemorySpace.Vec),
        ir.TileType(
            [16, 16],
            FP16,
            None,
            ir.TileView([ci(8), n], [ci(1), ci(16)], ci(0), ir.TileLayout.col_major, ir.TileLayout.row_major, 1024, ir.PadValue.max, ir.CompactMode.normal),
            MemorySpace.Left,
        ),
        ir.TileType([16, 16], FP16, None, ir.TileView(pad=ir.PadValue.zero), MemorySpace.Mat),
        ir.ArrayType(INT32, 16),
        ir.TupleType([T64, ir.ScalarType(ir.DataType.TASK_ID)]),
        ir.TupleType([]),
        ir.PtrType.get(),
        ir.MemRefType.get(),
        ir.UnknownType.get(),
        ir.DistributedTensorType([64], BF16),
        ir.WindowBufferType.get(),
        ir.CommCtxType.get(),
        ir.PrefetchAsyncContextType.get(),
        ir.AsyncEventType.get(),
        ir.AsyncSessionType.get(),
    ]


# ---- statements --------------------------------------------------------------------------
def _assignments() -> ir.Stmt:
    v = ir.Var("v", T64)
    stmt = ir.AssignStmt(v, call("tensor.add", [x, y], None, T64))
    ir.attach_leading_comments(stmt, ["a comment", "", "two\nlines"])
    return seq(
        stmt,
        ir.AssignStmt(ir.Var("s", IDX), ir.Add(ci(32), ci(32), INDEX)),
        ir.EvalStmt(call("system.bar_v", [])),
        seq(),
        seq(ir.BreakStmt(S), ir.ContinueStmt(S)),
        ir.InlineStmt("\n    if x:\n        print(x)\n"),
        ir.YieldStmt([a, b]),
        ir.YieldStmt([]),
        ir.ReturnStmt([a, b]),
        ir.ReturnStmt([]),
    )


def _if_stmts() -> ir.Stmt:
    r = ir.Var("r", IDX)
    r1, r2 = ir.Var("r1", IDX), ir.Var("r2", T64)
    return seq(
        ir.IfStmt(cond, ir.EvalStmt(call("system.bar_v", [])), None, [], S),
        ir.IfStmt(cond, seq(), seq(ir.BreakStmt(S)), [], S),
        ir.IfStmt(ir.Lt(a, b, BOOL), ir.YieldStmt([ci(1)]), ir.YieldStmt([ci(2)]), [r], S),
        ir.IfStmt(cond, seq(ir.YieldStmt([a, x])), seq(ir.YieldStmt([b, y])), [r1, r2], S),
    )


def _for_stmts() -> ir.Stmt:
    i = idx("i")
    n = idx("n")
    init = ir.Var("init", T64)
    acc = ir.IterArg("acc", T64, init)
    out = ir.Var("out", T64)
    s1, s2 = ir.IterArg("s", IDX, ci(0)), ir.IterArg("t", IDX, ci(1))
    o1, o2 = ir.Var("s", IDX), ir.Var("t", IDX)
    body = seq(ir.EvalStmt(i))
    return seq(
        ir.ForStmt(i, 0, 10, 1, [], body, [], S),
        ir.ForStmt(i, 2, 8, 1, [], body, [], S),
        ir.ForStmt(i, 0, 8, 2, [], body, [], S),
        ir.ForStmt(i, ci(0, INT64), n, 1, [], body, [], S),
        ir.ForStmt(i, 0, n, ci(1, INT64), [], body, [], S),
        ir.ForStmt(i, 0, n, 1, [], body, [], S, ForKind.Parallel),
        ir.ForStmt(i, 0, 4, 1, [], body, [], S, ForKind.Unroll),
        ir.ForStmt(i, 0, n, 1, [], body, [], S, ForKind.Pipeline, {"pipeline_stages": 2}),
        ir.ForStmt(i, 0, n, 1, [], body, [], S, ForKind.Sequential, {"unroll_hint": 4, "tag": "x"}),
        ir.ForStmt(i, 0, n, 1, [acc], seq(ir.YieldStmt([call("tensor.add", [acc, x], None, T64)])), [out], S),
        ir.ForStmt(i, 0, n, 1, [s1, s2], seq(ir.YieldStmt([ir.Add(s1, i, INDEX), s2])), [o1, o2], S),
        ir.ForStmt(i, 0, n, 1, [], seq(), [], S),
    )


def _while_stmts() -> ir.Stmt:
    i = idx("i")
    xa = ir.IterArg("x", IDX, ci(0))
    xo = ir.Var("x_next", IDX)
    ya = ir.IterArg("y", IDX, i)
    return seq(
        ir.WhileStmt(ir.Lt(i, ci(10), BOOL), [], seq(ir.EvalStmt(i)), [], S),
        ir.WhileStmt(ir.Lt(xa, ci(10), BOOL), [xa], seq(ir.YieldStmt([ir.Add(xa, ci(1), INDEX)])), [xo], S),
        ir.WhileStmt(ir.Lt(xa, ya, BOOL), [xa, ya], seq(ir.YieldStmt([ya, xa])), [ir.Var("p", IDX), ir.Var("q", IDX)], S),
    )


def _block_idx_assign(name: str, op: str) -> tuple[ir.Var, ir.AssignStmt]:
    v = idx(name)
    return v, ir.AssignStmt(v, call(op, [], None, IDX))


def _scopes() -> ir.Stmt:
    body = seq(ir.EvalStmt(call("system.bar_v", [])))
    t = ir.Var("t", ir.ScalarType(ir.DataType.TASK_ID))
    bi, bi_assign = _block_idx_assign("i", "tile.get_block_idx")
    ai, ai_assign = _block_idx_assign("aiv_id", "tile.get_subblock_idx")
    shard = ir.EvalStmt(call("tile.aiv_shard", [x], {"split": 1}))
    return seq(
        ir.InCoreScopeStmt(body=body, span=S),
        ir.InCoreScopeStmt(SplitMode.UP_DOWN, "n", body=body, span=S),
        ir.InCoreScopeStmt(
            body=body,
            span=S,
            attrs={
                "slot_num": 4,
                "task_id_var": t,
                "manual_dep_edges": [tid],
                "no_dep_args": [x, y],
                "allow_early_resolve": True,
            },
        ),
        ir.ClusterScopeStmt(body=body, span=S),
        ir.ClusterScopeStmt("grp", body=body, span=S),
        ir.HierarchyScopeStmt(Level.HOST, Role.SubWorker, body=body, span=S),
        ir.HierarchyScopeStmt(Level.L2CACHE, body=body, span=S),
        ir.SpmdScopeStmt(8, body=body, span=S),
        ir.SpmdScopeStmt(8, True, "sp", body=ir.InCoreScopeStmt(body=body, span=S), span=S),
        ir.SpmdScopeStmt(4, body=body, span=S, attrs={"task_id_var": t, "manual_dep_edges": [tid], "predicate": ir.Gt(a, ci(0, INT64), BOOL)}),
        ir.SpmdScopeStmt(
            8, body=ir.InCoreScopeStmt(SplitMode.LEFT_RIGHT, body=seq(bi_assign, ir.EvalStmt(bi)), span=S, attrs={"slot_num": 2}), span=S
        ),
        ir.RuntimeScopeStmt(body=body, span=S),
        ir.RuntimeScopeStmt(True, body=body, span=S),
        ir.SplitAivScopeStmt(SplitMode.UP_DOWN, body=seq(ai_assign, shard), span=S),
        ir.SplitAivScopeStmt(SplitMode.LEFT_RIGHT, 2, "sa", body=seq(shard), span=S),
        ir.CommDomainScopeStmt("world", body=body, span=S),
    )


# ---- functions and programs --------------------------------------------------------------
def _kernel(name: str = "kernel", ftype: FunctionType = FunctionType.InCore) -> ir.Function:
    p, q = ir.Var("x", T64), ir.Var("y", T64)
    r = ir.Var("r", T64)
    body = seq(ir.AssignStmt(r, call("tensor.add", [p, p], None, T64)), ir.ReturnStmt([r]))
    return ir.Function(name, [p, (q, ParamDirection.Out)], [T64], body, S, type=ftype)


def _functions() -> list[ir.Function]:
    p = ir.Var("x", T64)
    io = ir.Var("io", T64)
    n = ir.Var("n", ir.ScalarType(INT64))
    return [
        ir.Function("opaque", [p], [], seq(), S),
        _kernel(),
        ir.Function(
            "multi",
            [p, (io, ParamDirection.InOut), n],
            [T64, ir.ScalarType(INT64)],
            seq(ir.YieldStmt([p, n])),
            S,
            type=FunctionType.Orchestration,
            attrs={"auto_scope": False, "external_source": "k.cpp", "split": 1, "core_num": 8},
        ),
        ir.Function("hosted", [p], [T64], seq(), S, level=Level.HOST, role=Role.SubWorker, requires_runtime_binding=True),
        ir.Function("nosplit", [p], [], seq(ir.EvalStmt(p)), S, type=FunctionType.AIV, attrs={"split": 0}),
    ]


def _program() -> ir.Program:
    n = idx("N")
    m = idx("M")
    tn = ir.TensorType([n, 64], FP32)
    kx, ky = ir.Var("x", tn), ir.Var("out", tn)
    kr = ir.Var("r", tn)
    kernel = ir.Function(
        "kernel",
        [kx, (ky, ParamDirection.Out)],
        [tn],
        seq(ir.AssignStmt(kr, call("tensor.add", [kx, kx], None, tn)), ir.ReturnStmt([kr])),
        S,
        type=FunctionType.InCore,
    )
    hx = ir.Var("x", ir.TensorType([m], FP32))
    helper = ir.Function("helper", [hx], [], seq(ir.EvalStmt(hx)), S)
    mx, mo = ir.Var("x", tn), ir.Var("out", tn)
    res = ir.Var("res", ir.TupleType([tn, ir.ScalarType(ir.DataType.TASK_ID)]))
    main = ir.Function(
        "main",
        [mx, (mo, ParamDirection.Out)],
        [tn],
        seq(
            ir.AssignStmt(res, ir.Submit(ir.GlobalVar("kernel"), [mx, mo], [])),
            ir.EvalStmt(ir.Call(ir.GlobalVar("helper"), [mx], S)),
            ir.ReturnStmt([ir.TupleGetItemExpr(res, 0)]),
        ),
        S,
        type=FunctionType.Orchestration,
    )
    return ir.Program([main, kernel, helper], "my_prog", S)


def _renaming() -> ir.Function:
    p1, p2 = ir.Var("x", IDX), ir.Var("x", IDX)
    d1, d2 = ir.Var("x", IDX), ir.Var("x_1", IDX)
    free = ir.Var("g", IDX)
    body = seq(
        ir.AssignStmt(d1, ir.Add(p1, p2, INDEX)),
        ir.AssignStmt(d2, ir.Add(d1, free, INDEX)),
        ir.ReturnStmt([d2]),
    )
    return ir.Function("rename", [p1, p2], [IDX], body, S)


def _memref_function() -> ir.Function:
    ptr = ir.Var("mem_vec_0", ir.PtrType.get())
    tt = ir.TileType([16, 16], FP16, ir.MemRef(ptr, 0, 512), None, MemorySpace.Vec)
    outer = ir.TileType([16, 16], FP16, ir.MemRef("mem_vec_9", 0, 512))
    p = ir.Var("src", outer)
    t = ir.Var("t", tt)
    body = seq(
        ir.AssignStmt(ptr, call("tile.alloc", [ci(1, INT64), ci(512, INT64)], None, ir.PtrType.get())),
        ir.AssignStmt(t, call("tile.move", [p], {"target_memory": MemorySpace.Vec}, tt)),
        ir.ReturnStmt([t]),
    )
    return ir.Function("with_memref", [p], [outer], body, S, type=FunctionType.AIV)


CASES: dict[str, Callable[[], object]] = {
    "expr_binary_ops": _binary_table,
    "expr_unary_ops": _unary_table,
    "expr_constants": _constants,
    "expr_vars": _vars,
    "expr_tuples": _tuples,
    "expr_calls": _calls,
    "expr_op_shapes": _op_shapes,
    "expr_submits": _submits,
    "stmt_simple": _assignments,
    "stmt_if": _if_stmts,
    "stmt_for": _for_stmts,
    "stmt_while": _while_stmts,
    "stmt_scopes": _scopes,
    "program": _program,
    "function_renaming": _renaming,
    "function_memref": _memref_function,
}
CASES.update({f"function_{f.name}": (lambda f=f: f) for f in _functions()})


@pytest.mark.parametrize("case", sorted(CASES))
def test_node_snapshot(case: str, snapshot) -> None:
    assert ir.python_print(CASES[case]()) == snapshot


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("concise", [False, True])
def test_printed_text_is_valid_python(case: str, concise: bool) -> None:
    text = ir.python_print(CASES[case](), concise=concise)
    ast.parse(text)  # raises SyntaxError on any form that is not Python


def test_types_snapshot(snapshot) -> None:
    text = "\n".join(ir.python_print_type(t) for t in _types())
    assert text == snapshot


def test_types_explicit_layout_snapshot(snapshot) -> None:
    tiles = [t for t in _types() if isinstance(t, ir.TileType)]
    text = "\n".join(ir.python_print_type(t, explicit_layout=True) for t in tiles)
    assert text == snapshot


def test_program_concise_custom_prefix_snapshot(snapshot) -> None:
    assert ir.python_print(_program(), prefix="ir", concise=True) == snapshot
