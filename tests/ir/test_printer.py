"""Exact printed forms of the Python printer's key rules (spec/ir.md §8, ops.md §9)."""

from __future__ import annotations

import pytest

from pypto import ir
from pypto.ir import BOOL, FP16, FP32, INDEX, INT32, INT64, ForKind, FunctionType, Level, MemorySpace, Role

S = ir.Span.unknown()
IDX = ir.ScalarType(INDEX)
I64 = ir.ScalarType(INT64)
T64 = ir.TensorType([64], FP32)


def ci(v: int, dtype: ir.DataType = INDEX) -> ir.ConstInt:
    return ir.ConstInt(v, dtype)


def call(name: str, args: list[ir.Expr], kwargs: dict | None = None, t: ir.Type | None = None) -> ir.Call:
    return ir.Call(ir.Op(name), args, kwargs or {}, t or ir.UnknownType.get(), S)


def seq(*stmts: ir.Stmt) -> ir.SeqStmts:
    return ir.SeqStmts(list(stmts), S)


def pp(node: object, **kw: object) -> str:
    return ir.python_print(node, **kw)


a, b, c = ir.Var("a", I64), ir.Var("b", I64), ir.Var("c", I64)
x, y = ir.Var("x", T64), ir.Var("y", T64)


# ---- constants -------------------------------------------------------------------------
def test_index_const_is_bare_other_dtypes_use_pl_const() -> None:
    assert pp(ci(42)) == "42"
    assert pp(ci(-3)) == "-3"
    assert pp(ci(42, INT32)) == "pl.const(42, pl.INT32)"
    assert pp(ci(42, INT64)) == "pl.const(42, pl.INT64)"
    assert pp(ir.ConstBool(True)) == "True"


@pytest.mark.parametrize(
    "value, text",
    [
        (1.0, "1.0"),
        (0.5, "0.5"),
        (0.1, "0.10000000000000001"),
        (6.2771141529083252e-07, "6.2771141529083252e-07"),
        (1e20, "1e+20"),
        (-3.0, "-3.0"),
        (float("inf"), "inf"),
        (float("-inf"), "-inf"),
        (float("nan"), "nan"),
    ],
)
def test_float_rule(value: float, text: str) -> None:
    assert pp(ir.ConstFloat(value, FP32)) == text
    assert pp(ir.ConstFloat(value, FP16)) == f"pl.const({text}, pl.FP16)"


def test_pure_constant_tree_prints_typed_leaves() -> None:
    assert pp(ir.Add(ci(32), ci(32), INDEX)) == "pl.const(32, pl.INDEX) + pl.const(32, pl.INDEX)"
    assert pp(ir.Neg(ci(5), INDEX)) == "-pl.const(5, pl.INDEX)"
    assert pp(ir.Mul(ir.Add(ci(1), ci(2), INDEX), ci(3, INT32), INT32)) == (
        "(pl.const(1, pl.INDEX) + pl.const(2, pl.INDEX)) * pl.const(3, pl.INT32)"
    )
    # a tree with a variable leaf keeps bare INDEX literals
    assert pp(ir.Add(a, ir.Mul(ci(2), ci(3), INDEX), INT64)) == "a + pl.const(2, pl.INDEX) * pl.const(3, pl.INDEX)"
    assert pp(ir.Add(a, ci(1), INT64)) == "a + 1"


def test_composite_shape_dim_prints_typed_leaves() -> None:
    n = ir.Var("N", IDX)
    t = ir.TensorType([ci(8), n, ir.Mul(ci(32), n, INDEX), ci(4, INT64)], FP32)
    assert ir.python_print_type(t) == "pl.Tensor[[8, N, pl.const(32, pl.INDEX) * N, 4], pl.FP32]"


# ---- operators and parentheses ---------------------------------------------------------
@pytest.mark.parametrize(
    "node, text",
    [
        (ir.Mul(ir.Add(a, b, INT64), c, INT64), "(a + b) * c"),
        (ir.Add(ir.Mul(a, b, INT64), c, INT64), "a * b + c"),
        (ir.Sub(a, ir.Sub(b, c, INT64), INT64), "a - (b - c)"),
        (ir.Sub(ir.Sub(a, b, INT64), c, INT64), "a - b - c"),
        (ir.Pow(a, ir.Pow(b, c, INT64), INT64), "a ** b ** c"),
        (ir.Pow(ir.Pow(a, b, INT64), c, INT64), "(a ** b) ** c"),
        (ir.Pow(ir.Neg(a, INT64), b, INT64), "(-a) ** b"),
        (ir.Neg(ir.Pow(a, b, INT64), INT64), "-a ** b"),
        (ir.Pow(ci(-2), a, INT64), "(-2) ** a"),
        (ir.Lt(ir.Lt(a, b, BOOL), c, BOOL), "(a < b) < c"),
        (ir.And(ir.Not(ir.Lt(a, b, BOOL), BOOL), ir.Or(a, b, BOOL), BOOL), "not a < b and (a or b)"),
        (ir.Eq(ir.Not(a, BOOL), b, BOOL), "(not a) == b"),
        (ir.Not(ir.And(a, b, BOOL), BOOL), "not (a and b)"),
        (ir.BitOr(ir.BitAnd(a, b, INT64), ir.BitXor(b, c, INT64), INT64), "a & b | b ^ c"),
        (ir.BitAnd(ir.BitShiftLeft(a, b, INT64), ir.Add(b, c, INT64), INT64), "a << b & b + c"),
        (ir.BitShiftLeft(ir.Add(a, b, INT64), c, INT64), "a + b << c"),
        (ir.Neg(ir.Neg(a, INT64), INT64), "--a"),
        (ir.BitNot(ir.Add(a, b, INT64), INT64), "~(a + b)"),
        (ir.FloorMod(ir.FloorDiv(a, b, INT64), ir.FloatDiv(b, c, INT64), INT64), "a // b % (b / c)"),
        (ir.Min(ir.Add(a, b, INT64), c, INT64), "pl.min(a + b, c)"),
        (ir.Max(a, b, INT64), "pl.max(a, b)"),
        (ir.Abs(ir.Sub(a, b, INT64), INT64), "abs(a - b)"),
        (ir.Cast(ir.Add(a, b, INT64), FP32), "pl.cast(a + b, pl.FP32)"),
        (ir.Xor(a, b, BOOL), "pl.xor(a, b)"),
        (ir.Xor(ir.Lt(a, b, BOOL), ir.And(a, b, BOOL), BOOL), "(a < b) ^ (a and b)"),
        (ir.Add(a, ir.Xor(a, b, BOOL), INT64), "a + pl.xor(a, b)"),
    ],
)
def test_precedence(node: ir.Expr, text: str) -> None:
    assert pp(node) == text


def test_tuples() -> None:
    t = ir.Var("t", ir.TupleType([T64, IDX]))
    assert pp(ir.MakeTuple([ci(0), a])) == "[0, a]"
    assert pp(ir.TupleGetItemExpr(t, 0)) == "t[0]"


# ---- calls -----------------------------------------------------------------------------
def test_call_forms() -> None:
    assert pp(call("tensor.add", [x, y])) == "pl.tensor.add(x, y)"
    assert pp(call("tile.or", [x, y])) == "pl.tile.or_(x, y)"
    assert pp(call("pld.tensor.allgather", [x])) == "pld.tensor.allgather(x)"
    assert pp(call("custom", [x])) == "custom(x)"
    assert pp(ir.Call(ir.GlobalVar("f"), [x], S)) == "f(x)"


@pytest.mark.parametrize(
    "name, kwargs, text",
    [
        ("system.sync_src", {"set_pipe": 1, "wait_pipe": 4, "event_id": 0},
         "set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0"),
        ("system.sync_wait", {"event_id": 1, "pipe": 7}, "event_id=1, pipe=pl.PipeType.ALL"),
        ("tile.tpush", {"pipe": 7}, "pipe=7"),
        ("tile.cast", {"target_type": INT32, "mode": 3}, "target_type=pl.INT32, mode='floor'"),
        ("tile.cast", {"mode": "round"}, "mode='round'"),
        ("tile.store", {"atomic": 0}, "atomic=pl.AtomicType.None_"),
        ("tile.x", {"flag": True, "n": -2, "f": 2.0, "s": "hi"}, "flag=True, n=-2, f=2.0, s='hi'"),
        ("tile.x", {"m": MemorySpace.Left, "l": ir.TensorLayout.NZ, "t": ir.TileLayout.col_major},
         "m=pl.Mem.Left, l=pl.TensorLayout.NZ, t=pl.TileLayout.col_major"),
        ("tile.x", {"p": ir.PadValue.min, "d": ir.BF16}, "p=pl.PadValue.min, d=pl.BF16"),
    ],
)  # fmt: skip
def test_kwarg_values(name: str, kwargs: dict, text: str) -> None:
    assert pp(call(name, [x], kwargs)) == f"pl.{name}(x, {text})"


def test_call_attrs_print_last() -> None:
    node = ir.Call(
        ir.Op("tensor.add"),
        [x, y],
        {"k": 1},
        {"arg_directions": [ir.ArgDirection.Input, ir.ArgDirection.NoDep, ir.ArgDirection.OutputExisting]},
        ir.UnknownType.get(),
        S,
    )
    assert pp(node) == (
        'pl.tensor.add(x, y, k=1, attrs={"arg_directions": [pl.adir.input, pl.adir.no_dep, pl.adir.output_existing]})'
    )


def test_op_specific_shapes() -> None:
    shape = ir.MakeTuple([ci(16), ci(16)])
    assert pp(call("tile.full", [shape, ir.ConstFloat(0.0, FP32)], {"dtype": FP32})) == (
        "pl.tile.full([16, 16], dtype=pl.FP32, value=0.0)"
    )
    assert pp(call("tensor.add", [x, ci(1, INT32)])) == "pl.tensor.adds(x, pl.const(1, pl.INT32))"
    assert pp(call("tensor.add", [x, y])) == "pl.tensor.add(x, y)"
    assert pp(call("tensor.alloc", [ci(0, INT64), ci(64, INT64)])) == "pl.tensor.alloc(pl.Mem.DDR, pl.const(64, pl.INT64))"
    assert pp(call("system.syncall", [], {"core_type": "mix"})) == "pl.system.syncall(core_type='mix')"
    ws = ir.Var("ws", ir.TensorType([256], INT64))
    soft = call("system.syncall", [ws, ci(2, INT32)], {"mode": "soft", "core_type": "aiv_only"})
    assert pp(soft) == 'pl.system.syncall(mode="soft", core_type="aiv_only", gm_workspace=ws, used_cores=2)'
    tid = ir.Var("t", ir.ScalarType(ir.DataType.TASK_ID))
    assert pp(call("system.task_dummy", [tid, tid])) == "pl.system.task_dummy(deps=[t, t])"
    assert pp(call("tile.mgather", [x, y, shape])) == "pl.tile.mgather(x, y, valid_shape=[16, 16])"


def test_split_is_implied_inside_split_aiv() -> None:
    shard = ir.EvalStmt(call("tile.aiv_shard", [x], {"split": 1}))
    assert pp(shard) == "pl.tile.aiv_shard(x, split=1)"
    scope = ir.SplitAivScopeStmt(ir.SplitMode.UP_DOWN, body=shard, span=S)
    assert pp(scope) == "with pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):\n    pl.tile.aiv_shard(x)"


def test_submit_forms() -> None:
    k = ir.GlobalVar("k")
    t = ir.Var("t", ir.ScalarType(ir.DataType.TASK_ID))
    plain = ir.Submit(k, [x], [t], {}, {}, ir.UnknownType.get(), S, allow_early_resolve=True, predicate=ir.Gt(a, ci(0), BOOL))
    assert pp(plain) == "pl.submit(k, x, deps=[t], allow_early_resolve=True, predicate=(a > 0))"
    spmd = ir.Submit(k, [x, y], [], {}, {}, ir.UnknownType.get(), S, core_num=8, sync_start=True)
    assert pp(spmd) == "pl.spmd_submit(k, x, y, core_num=8, sync_start=True)"


# ---- types -----------------------------------------------------------------------------
def test_scalar_tensor_tile_types() -> None:
    assert ir.python_print_type(I64) == "pl.Scalar[pl.INT64]"
    assert str(ir.TensorType([64, 128], FP32)) == "pl.Tensor[[64, 128], pl.FP32]"
    assert str(ir.TileType([16, 16], FP16)) == "pl.Tile[[16, 16], pl.FP16]"
    assert str(ir.TileType([128, 128], FP32, None, None, MemorySpace.Acc)) == "pl.Tile[[128, 128], pl.FP32, pl.Mem.Acc]"
    assert str(ir.TileType([16, 16], FP16, ir.MemRef("mem_vec_0", 0, 512))) == (
        'pl.Tile[[16, 16], pl.FP16, pl.MemRef("mem_vec_0", pl.const(0, pl.INT64), 512), pl.Mem.Vec]'
    )


def test_tile_view_omitted_when_implicit() -> None:
    acc = ir.TileType(
        [128, 128], FP32, None,
        ir.TileView(blayout=ir.TileLayout.col_major, slayout=ir.TileLayout.row_major, fractal=1024), MemorySpace.Acc,
    )  # fmt: skip
    assert str(acc) == "pl.Tile[[128, 128], pl.FP32, pl.Mem.Acc]"
    assert ir.python_print_type(acc, explicit_layout=True) == (
        "pl.Tile[[128, 128], pl.FP32, pl.Mem.Acc, pl.TileView(blayout=pl.TileLayout.col_major, "
        "slayout=pl.TileLayout.row_major, fractal=1024)]"
    )
    # only the fields that differ from the implicit view print
    view = ir.TileView([ci(8), ci(16)], slayout=ir.TileLayout.row_major, fractal=1024)
    t = ir.TileType([16, 16], FP16, None, view, MemorySpace.Vec)
    assert str(t) == (
        "pl.Tile[[16, 16], pl.FP16, pl.Mem.Vec, pl.TileView(valid_shape=[8, 16], slayout=pl.TileLayout.row_major, "
        "fractal=1024)]"
    )
    # a column vector's implicit blayout is col_major, so an explicit row_major prints
    col = ir.TileType([64, 1], FP32, None, ir.TileView(blayout=ir.TileLayout.row_major), MemorySpace.Vec)
    assert str(col) == "pl.Tile[[64, 1], pl.FP32, pl.Mem.Vec, pl.TileView(blayout=pl.TileLayout.row_major)]"
    only_pad = ir.TileType([16, 16], FP16, None, ir.TileView(pad=ir.PadValue.zero), None)
    assert str(only_pad) == "pl.Tile[[16, 16], pl.FP16, pl.TileView(pad=pl.PadValue.zero)]"


def test_tensor_view() -> None:
    n = ir.Var("n", IDX)
    t = ir.TensorType([64, 128], FP32, None, ir.TensorView([], ir.TensorLayout.DN, [ci(64), n]))
    assert str(t) == "pl.Tensor[[64, 128], pl.FP32, pl.TensorView(valid_shape=[64, n], stride=[], layout=pl.TensorLayout.DN)]"


def test_other_types() -> None:
    assert str(ir.ArrayType(ir.DataType.TASK_ID, 4)) == "pl.Array[4, pl.TASK_ID]"
    assert str(ir.TupleType([])) == "pl.Tuple[()]"
    assert str(ir.TupleType([I64, T64])) == "pl.Tuple[pl.Scalar[pl.INT64], pl.Tensor[[64], pl.FP32]]"
    assert str(ir.PtrType.get()) == "pl.Ptr"
    assert str(ir.UnknownType.get()) == "pl.UnknownType"


def test_memref_pinned_and_slots() -> None:
    buf = ir.MemRef("buf", slots=3)
    t = ir.TileType([16, 16], FP16, buf[2], None, MemorySpace.Vec)
    assert str(t) == 'pl.Tile[[16, 16], pl.FP16, pl.MemRef("buf", slots=3)[2], pl.Mem.Vec]'


# ---- prefix ----------------------------------------------------------------------------
def test_prefix_replaces_every_pl() -> None:
    t = ir.TileType([16, 16], FP16, None, ir.TileView(pad=ir.PadValue.zero), MemorySpace.Vec)
    assert ir.python_print_type(t, prefix="ir") == "ir.Tile[[16, 16], ir.FP16, ir.Mem.Vec, ir.TileView(pad=ir.PadValue.zero)]"
    v = ir.Var("v", T64)
    stmt = ir.AssignStmt(v, call("tile.load", [x], {"target_memory": MemorySpace.Vec, "dtype": INT32}, T64))
    assert pp(stmt, prefix="myir") == (
        "v: myir.Tensor[[64], myir.FP32] = myir.tile.load(x, target_memory=myir.Mem.Vec, dtype=myir.INT32)"
    )
    loop = ir.ForStmt(ir.Var("i", IDX), 0, 4, 1, [], seq(ir.YieldStmt([])), [], S, ForKind.Parallel)
    assert pp(loop, prefix="q") == "for i in q.parallel(4):\n    q.yield_()"


# ---- statements ------------------------------------------------------------------------
def test_assign_and_concise() -> None:
    s = ir.Var("s", I64)
    stmt = ir.AssignStmt(s, ir.Add(a, b, INT64))
    assert pp(stmt) == "s: pl.Scalar[pl.INT64] = a + b"
    assert pp(stmt, concise=True) == "s = a + b"
    assert stmt.as_python("ir") == "s: ir.Scalar[ir.INT64] = a + b"


def test_leading_comments_and_empty_block() -> None:
    stmt = ir.attach_leading_comments(ir.EvalStmt(a), ["note"])
    assert pp(stmt) == "# note\na"
    assert pp(seq()) == "pass"
    loop = ir.ForStmt(ir.Var("i", IDX), 0, 4, 1, [], seq(seq()), [], S)
    assert pp(loop) == "for i in pl.range(4):\n    pass"


@pytest.mark.parametrize(
    "start, stop, step, header",
    [
        (0, 10, 1, "pl.range(10)"),
        (2, 8, 1, "pl.range(2, 8)"),
        (0, 8, 2, "pl.range(0, 8, 2)"),
        (ir.ConstInt(0, INT64), 8, 1, "pl.range(pl.const(0, pl.INT64), 8)"),
        (0, 8, ir.ConstInt(1, INT64), "pl.range(0, 8, pl.const(1, pl.INT64))"),
        (0, ir.Var("n", IDX), 1, "pl.range(n)"),
    ],
)
def test_range_elision(start: object, stop: object, step: object, header: str) -> None:
    loop = ir.ForStmt(ir.Var("i", IDX), start, stop, step, [], seq(ir.BreakStmt(S)), [], S)
    assert pp(loop) == f"for i in {header}:\n    break"


def test_for_kinds_and_attrs() -> None:
    i = ir.Var("i", IDX)
    body = seq(ir.ContinueStmt(S))
    pipe = ir.ForStmt(i, 0, 16, 1, [], body, [], S, ForKind.Pipeline, {"pipeline_stages": 3, "k": "v"})
    assert pp(pipe) == "for i in pl.pipeline(16, stage=3, attrs={\"k\": 'v'}):\n    continue"
    unroll = ir.ForStmt(i, 0, 4, 1, [], body, [], S, ForKind.Unroll)
    assert pp(unroll).splitlines()[0] == "for i in pl.unroll(4):"


def test_for_iter_args_and_trailing_yield() -> None:
    i = ir.Var("i", IDX)
    s0 = ir.Var("sum_init", I64)
    acc = ir.IterArg("sum", I64, s0)
    out = ir.Var("sum", I64)
    loop = ir.ForStmt(i, 0, ir.Var("n", IDX), 1, [acc], seq(ir.YieldStmt([ir.Add(acc, i, INT64)])), [out], S)
    assert pp(loop) == (
        "for i, (sum,) in pl.range(n, init_values=(sum_init,)):\n    sum_1: pl.Scalar[pl.INT64] = pl.yield_(sum + i)"
    )
    assert pp(loop, concise=True).splitlines()[1] == "    sum_1 = pl.yield_(sum + i)"
    p, q = ir.IterArg("p", I64, a), ir.IterArg("q", I64, b)
    two = ir.ForStmt(i, 0, 4, 1, [p, q], seq(ir.YieldStmt([q, p])), [ir.Var("p2", I64), ir.Var("q2", I64)], S)
    assert pp(two) == "for i, (p, q) in pl.range(4, init_values=(a, b)):\n    p2, q2 = pl.yield_(q, p)"


def test_if_with_return_vars() -> None:
    r = ir.Var("r", I64)
    node = ir.IfStmt(ir.Gt(a, b, BOOL), ir.YieldStmt([a]), ir.YieldStmt([b]), [r], S)
    assert pp(node) == "if a > b:\n    r: pl.Scalar[pl.INT64] = pl.yield_(a)\nelse:\n    r: pl.Scalar[pl.INT64] = pl.yield_(b)"
    plain = ir.IfStmt(ir.ConstBool(True), ir.YieldStmt([a]), None, [], S)
    assert pp(plain) == "if True:\n    pl.yield_(a)"


def test_while_forms() -> None:
    i = ir.Var("i", IDX)
    natural = ir.WhileStmt(ir.Lt(i, ci(10), BOOL), [], seq(ir.EvalStmt(i)), [], S)
    assert pp(natural) == "while i < 10:\n    i"
    xa = ir.IterArg("x", IDX, ci(0))
    ssa = ir.WhileStmt(ir.Lt(xa, ci(10), BOOL), [xa], seq(ir.YieldStmt([ir.Add(xa, ci(1), INDEX)])), [ir.Var("x_next", IDX)], S)
    assert pp(ssa) == (
        "for (x,) in pl.while_(init_values=(0,)):\n"
        "    pl.cond(x < 10)\n"
        "    x_next: pl.Scalar[pl.INDEX] = pl.yield_(x + 1)"
    )
    empty = ir.WhileStmt(ir.Lt(xa, ci(10), BOOL), [xa], seq(), [], S)
    assert pp(empty) == "for (x,) in pl.while_(init_values=(0,)):\n    pl.cond(x < 10)"


def test_inline_stmt_is_reindented() -> None:
    inline = ir.InlineStmt("\n        a = 1\n        if a:\n            b = 2\n")
    loop = ir.ForStmt(ir.Var("i", IDX), 0, 2, 1, [], inline, [], S)
    assert pp(loop) == "for i in pl.range(2):\n    a = 1\n    if a:\n        b = 2"


# ---- scopes ----------------------------------------------------------------------------
BODY = ir.EvalStmt(ir.Call(ir.Op("system.bar_v"), [], S))


@pytest.mark.parametrize(
    "scope, header",
    [
        (ir.InCoreScopeStmt(body=BODY, span=S), "with pl.at(level=pl.Level.CORE_GROUP):"),
        (
            ir.InCoreScopeStmt(ir.SplitMode.UP_DOWN, "n", body=BODY, span=S),
            'with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.split(pl.SplitMode.UP_DOWN)], name_hint="n"):',
        ),
        (ir.ClusterScopeStmt(body=BODY, span=S), "with pl.cluster():"),
        (ir.ClusterScopeStmt("g", body=BODY, span=S), 'with pl.cluster(name_hint="g"):'),
        (
            ir.HierarchyScopeStmt(Level.HOST, Role.SubWorker, body=BODY, span=S),
            "with pl.at(level=pl.Level.HOST, role=pl.Role.SubWorker):",
        ),
        (ir.HierarchyScopeStmt(Level.POD, body=BODY, span=S), "with pl.at(level=pl.Level.CLUSTER_0):"),
        (ir.SpmdScopeStmt(8, body=BODY, span=S), "with pl.spmd(8):"),
        (ir.SpmdScopeStmt(8, True, body=BODY, span=S), "with pl.spmd(8, sync_start=True):"),
        (ir.RuntimeScopeStmt(body=BODY, span=S), "with pl.scope():"),
        (ir.RuntimeScopeStmt(True, body=BODY, span=S), "with pl.scope(mode=pl.ScopeMode.MANUAL):"),
    ],
)
def test_scope_headers(scope: ir.ScopeStmt, header: str) -> None:
    assert pp(scope) == f"{header}\n    pl.system.bar_v()"


def test_scope_attrs_and_task_id() -> None:
    t = ir.Var("tid", ir.ScalarType(ir.DataType.TASK_ID))
    dep = ir.Var("prev", ir.ScalarType(ir.DataType.TASK_ID))
    scope = ir.InCoreScopeStmt(
        body=BODY,
        span=S,
        attrs={"task_id_var": t, "manual_dep_edges": [dep], "no_dep_args": [x], "slot_num": 4, "allow_early_resolve": True},
    )
    assert pp(scope).splitlines()[0] == (
        "with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.cross_core_slot(slot_num=4)], deps=[prev], "
        "no_dep_args=[x], allow_early_resolve=True) as tid:"
    )
    spmd = ir.SpmdScopeStmt(4, body=BODY, span=S, attrs={"predicate": ir.Gt(a, ci(0), BOOL)})
    assert pp(spmd).splitlines()[0] == "with pl.spmd(4, predicate=(a > 0)):"


def test_spmd_for_form() -> None:
    i = ir.Var("i", IDX)
    inner = seq(ir.AssignStmt(i, call("tile.get_block_idx", [], None, IDX)), ir.EvalStmt(i))
    spmd = ir.SpmdScopeStmt(8, body=ir.InCoreScopeStmt(ir.SplitMode.UP_DOWN, body=inner, span=S), span=S)
    assert pp(spmd) == "for i in pl.spmd(8, optimizations=[pl.split(pl.SplitMode.UP_DOWN)]):\n    i"
    # a named InCore scope cannot be expressed by the for-form
    named = ir.SpmdScopeStmt(8, body=ir.InCoreScopeStmt(name_hint="k", body=inner, span=S), span=S)
    assert pp(named) == (
        'with pl.spmd(8):\n    with pl.at(level=pl.Level.CORE_GROUP, name_hint="k"):\n'
        "        i: pl.Scalar[pl.INDEX] = pl.tile.get_block_idx()\n        i"
    )


def test_split_aiv_for_form() -> None:
    v = ir.Var("aiv_id", IDX)
    body = seq(ir.AssignStmt(v, call("tile.get_subblock_idx", [], None, IDX)), ir.EvalStmt(v))
    scope = ir.SplitAivScopeStmt(ir.SplitMode.LEFT_RIGHT, body=body, span=S)
    assert pp(scope) == "for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.LEFT_RIGHT):\n    aiv_id"


# ---- functions -------------------------------------------------------------------------
def _fn(name: str, ftype: FunctionType = FunctionType.Opaque, **kw: object) -> ir.Function:
    p = ir.Var("x", T64)
    return ir.Function(name, [p], [T64], seq(ir.ReturnStmt([p])), S, type=ftype, **kw)


@pytest.mark.parametrize(
    "func, decorator",
    [
        (_fn("f"), "@pl.function"),
        (_fn("f", FunctionType.InCore), "@pl.function(type=pl.FunctionType.InCore, level=pl.Level.CHIP_DIE, role=pl.Role.SubWorker)"),
        (_fn("f", FunctionType.Orchestration), "@pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP, role=pl.Role.Orchestrator)"),
        (_fn("f", FunctionType.Spmd), "@pl.function(type=pl.FunctionType.Spmd)"),
        (_fn("f", level=Level.HOST), "@pl.function(level=pl.Level.HOST)"),
        (_fn("f", attrs={"auto_scope": False}), "@pl.function(auto_scope=False)"),
        (_fn("f", attrs={"external_source": "a.cpp"}), '@pl.function(external_source="a.cpp")'),
    ],
)  # fmt: skip
def test_decorator_keywords(func: ir.Function, decorator: str) -> None:
    assert pp(func).splitlines()[0] == decorator


def test_signature_directions_returns_and_func_attr() -> None:
    p, o, io = ir.Var("p", T64), ir.Var("o", T64), ir.Var("io", T64)
    params = [p, (o, ir.ParamDirection.Out), (io, ir.ParamDirection.InOut)]
    f = ir.Function("g", params, [T64, I64], seq(ir.YieldStmt([o, a])), S, attrs={"split": 2, "k": 1.5})
    assert pp(f) == (
        "@pl.function\n"
        "def g(p: pl.Tensor[[64], pl.FP32], o: pl.Out[pl.Tensor[[64], pl.FP32]], "
        "io: pl.InOut[pl.Tensor[[64], pl.FP32]]) -> tuple[pl.Tensor[[64], pl.FP32], pl.Scalar[pl.INT64]]:\n"
        '    pl.func_attr({"split": pl.SplitMode.LEFT_RIGHT, "k": 1.5})\n'
        "    return o, a__FREE_VAR"
    )
    none = ir.Function("h", [], [], seq(), S, attrs={"split": 0})
    assert pp(none) == "@pl.function\ndef h():\n    pass"
    bound = ir.Function("e", [], [], seq(), S, requires_runtime_binding=True)
    assert pp(bound) == "@pl.function\ndef e():\n    ..."


def test_variable_renaming() -> None:
    p1, p2 = ir.Var("x", IDX), ir.Var("x", IDX)
    d1 = ir.Var("x", IDX)
    keep = ir.Var("x_1", IDX)
    body = seq(ir.AssignStmt(d1, ir.Add(p1, p2, INDEX)), ir.AssignStmt(keep, d1), ir.ReturnStmt([keep]))
    text = pp(ir.Function("f", [p1, p2], [IDX], body, S))
    assert text.splitlines()[1:] == [
        "def f(x: pl.Scalar[pl.INDEX], x_2: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:",
        "    x_3: pl.Scalar[pl.INDEX] = x + x_2",
        "    x_1: pl.Scalar[pl.INDEX] = x_3",
        "    return x_1",
    ]


def test_free_vars_only_marked_inside_functions() -> None:
    g = ir.Var("g", IDX)
    stmt = ir.AssignStmt(ir.Var("r", IDX), ir.Add(g, ci(1), INDEX))
    assert pp(stmt) == "r: pl.Scalar[pl.INDEX] = g + 1"
    f = ir.Function("f", [], [], seq(stmt), S)
    assert pp(f).splitlines()[-1] == "    r: pl.Scalar[pl.INDEX] = g__FREE_VAR + 1"


def test_bare_roots_deduplicate_names() -> None:
    x1, x2 = ir.Var("x", IDX), ir.Var("x", IDX)
    assert pp(ir.Add(x1, x2, INDEX)) == "x + x_1"


# ---- programs --------------------------------------------------------------------------
def _callee(name: str, callees: list[str], ftype: FunctionType = FunctionType.Opaque) -> ir.Function:
    p = ir.Var("x", T64)
    stmts = [ir.EvalStmt(ir.Call(ir.GlobalVar(c), [p], S)) for c in callees]
    return ir.Function(name, [p], [], seq(*stmts), S, type=ftype)


def _def_lines(prog: ir.Program) -> list[str]:
    return [line.strip() for line in pp(prog).splitlines() if line.strip().startswith("def ")]


def test_program_header_and_prefix() -> None:
    prog = ir.Program([_callee("f", [])], "", S)
    assert pp(prog) == (
        "# pypto.program: Program\nimport pypto.language as pl\n\n@pl.program\nclass Program:\n"
        "    @pl.function\n    def f(self, x: pl.Tensor[[64], pl.FP32]):\n        pass"
    )
    assert pp(prog, prefix="ir").splitlines()[:4] == [
        "# pypto.program: Program",
        "from pypto import language as ir",
        "",
        "@ir.program",
    ]
    empty = ir.Program([], "empty", S)
    assert pp(empty).splitlines()[-2:] == ["class empty:", "    pass"]


def test_function_order_callees_first() -> None:
    prog = ir.Program([_callee("a_main", ["z_kernel", "m_helper"]), _callee("m_helper", ["z_kernel"]), _callee("z_kernel", [])], "p", S)
    assert [d.split("(")[0] for d in _def_lines(prog)] == ["def z_kernel", "def m_helper", "def a_main"]


def test_function_order_cycle_uses_name_order() -> None:
    prog = ir.Program([_callee("b", ["a"]), _callee("a", ["b"]), _callee("c", ["b"])], "p", S)
    assert [d.split("(")[0] for d in _def_lines(prog)] == ["def a", "def b", "def c"]
    loop = ir.Program([_callee("main", ["w"]), _callee("w", ["w"])], "p", S)
    assert [d.split("(")[0] for d in _def_lines(loop)] == ["def w", "def main"]


def test_self_rule_and_global_var_calls() -> None:
    prog = ir.Program([_callee("main", ["k"], FunctionType.Orchestration), _callee("k", [], FunctionType.AIC)], "p", S)
    lines = pp(prog).splitlines()
    assert "    def k(x: pl.Tensor[[64], pl.FP32]):" in lines
    assert "    def main(self, x: pl.Tensor[[64], pl.FP32]):" in lines
    assert "        self.k(x)" in lines


def test_dynamic_dim_lines() -> None:
    n, m = ir.Var("N", IDX), ir.Var("M", IDX)
    n_other = ir.Var("N", IDX)
    k = ir.Var("k", IDX)
    p = ir.Var("x", ir.TensorType([n, m], FP32))
    q = ir.Var("y", ir.TensorType([64], FP32, None, ir.TensorView([], ir.TensorLayout.ND, [k])))
    local = ir.Var("t", ir.TensorType([n_other], FP32))
    f = ir.Function(
        "f", [p, q, k], [], seq(ir.AssignStmt(local, call("tensor.create", [], None, local.type))), S
    )
    text = pp(ir.Program([f], "dyn", S))
    assert text.splitlines()[3:8] == [
        'M = pl.dynamic("M")',
        'N = pl.dynamic("N")',
        'N_1 = pl.dynamic("N_1")',
        'k = pl.dynamic("k")',
        "",
    ]
    assert "t: pl.Tensor[[N_1], pl.FP32] = pl.tensor.create()" in text
    # a standalone function names dynamic dims but declares nothing
    assert pp(f).splitlines()[0] == "@pl.function"


def test_local_names_avoid_dynamic_names() -> None:
    n = ir.Var("N", IDX)
    p = ir.Var("x", ir.TensorType([n], FP32))
    local = ir.Var("N", IDX)
    f = ir.Function("f", [p], [], seq(ir.AssignStmt(local, ci(3))), S)
    assert pp(ir.Program([f], "p", S)).splitlines()[-1] == "        N_1: pl.Scalar[pl.INDEX] = 3"


def test_memref_base_bare_when_defined_in_body() -> None:
    ptr = ir.Var("mem_vec_0", ir.PtrType.get())
    tt = ir.TileType([16, 16], FP16, ir.MemRef(ptr, 0, 512), None, MemorySpace.Vec)
    t = ir.Var("t", tt)
    p = ir.Var("p", tt)
    body = seq(
        ir.AssignStmt(ptr, call("tile.alloc", [ci(1, INT64), ci(512, INT64)], None, ir.PtrType.get())),
        ir.AssignStmt(t, call("tile.add", [p, p], None, tt)),
    )
    lines = pp(ir.Function("f", [p], [], body, S)).splitlines()
    assert lines[1] == 'def f(p: pl.Tile[[16, 16], pl.FP16, pl.MemRef("mem_vec_0", pl.const(0, pl.INT64), 512), pl.Mem.Vec]):'
    assert lines[3] == "    t: pl.Tile[[16, 16], pl.FP16, pl.MemRef(mem_vec_0, pl.const(0, pl.INT64), 512), pl.Mem.Vec] = pl.tile.add(p, p)"


# ---- API -------------------------------------------------------------------------------
def test_format_callback() -> None:
    try:
        ir.register_format_callback(lambda text: text.upper())
        assert pp(a) == "A"
        assert pp(a, format=False) == "a"
        assert ir.python_print_type(I64) == "PL.SCALAR[PL.INT64]"

        def broken(text: str) -> str:
            raise RuntimeError("formatter failed")

        ir.register_format_callback(broken)
        assert pp(a) == "a"
    finally:
        ir.register_format_callback(None)
    assert pp(a) == "a"


def test_unsupported_input() -> None:
    assert pp(42) == "<unsupported IRNode type>"
    assert ir.python_print_type("nope") == "<unsupported IRNode type>"


def test_str_and_as_python_use_the_printer() -> None:
    stmt = ir.AssignStmt(ir.Var("s", I64), ir.Add(a, b, INT64))
    assert str(stmt) == "s: pl.Scalar[pl.INT64] = a + b"
    assert stmt.as_python(concise=True) == "s = a + b"
    assert pp(I64, prefix="ir") == "ir.Scalar[ir.INT64]"
    assert pp(ir.Op("tile.and")) == "pl.tile.and_"


def test_typed_tpop_prints_the_keywords_that_type_it() -> None:
    typed = ir.op.tile.tpop_from_aic(shape=[16, 16], dtype=ir.FP32, split=0)
    assert ir.python_print(typed) == "pl.tile.tpop_from_aic(shape=[16, 16], dtype=pl.FP32, split=0)"
    untyped = ir.op.tile.tpop_from_aiv(split=1, id=0)
    assert ir.python_print(untyped) == "pl.tile.tpop_from_aiv(split=1, id=0)"
