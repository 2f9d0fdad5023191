"""Construction of IR nodes and types (spec/ir.md §0-§6)."""

from __future__ import annotations

from typing import Any

import pytest
from typeguard import suppress_type_checks

from pypto import DataType, ir
from pypto.ir.errors import IRTypeError, IRValueError, PyptoError

I64 = ir.ScalarType(ir.INT64)
IDX = ir.ScalarType(ir.INDEX)
SPAN = ir.Span("k.py", 4, 2)


def ci(v: int, dtype: DataType = ir.INT64) -> ir.ConstInt:
    return ir.ConstInt(v, dtype)


# ---------------------------------------------------------------- positional constructors


def test_expression_constructors_take_positional_arguments() -> None:
    x = ir.Var("x", I64, SPAN)
    assert (x.name_hint, x.type, x.span) == ("x", I64, SPAN)
    it = ir.IterArg("acc", I64, x, SPAN)
    assert (it.name_hint, it.initValue, it.init_value, it.span) == ("acc", x, x, SPAN)
    c = ir.ConstInt(3, ir.INT32, SPAN)
    assert (c.value, c.dtype, c.type, c.span) == (3, ir.INT32, ir.ScalarType(ir.INT32), SPAN)
    f = ir.ConstFloat(1.5, ir.FP16, SPAN)
    assert (f.value, f.dtype, f.type) == (1.5, ir.FP16, ir.ScalarType(ir.FP16))
    b = ir.ConstBool(True, SPAN)
    assert (b.value, b.dtype, b.type) == (True, ir.BOOL, ir.ScalarType(ir.BOOL))
    add = ir.Add(x, c, ir.INT32, SPAN)
    assert (add.left, add.right, add.dtype, add.type, add.span) == (x, c, ir.INT32, ir.ScalarType(ir.INT32), SPAN)
    neg = ir.Neg(x, ir.INT64, SPAN)
    assert (neg.operand, neg.dtype, neg.span) == (x, ir.INT64, SPAN)
    tup = ir.MakeTuple([x, c], SPAN)
    assert tup.type == ir.TupleType([I64, ir.ScalarType(ir.INT32)])
    item = ir.TupleGetItemExpr(tup, 1, SPAN)
    assert (item.tuple, item.index, item.type) == (tup, 1, ir.ScalarType(ir.INT32))


def test_raw_dtype_codes_are_accepted() -> None:
    assert ir.ConstInt(1, 0x14).dtype is ir.INT64


def test_var_ids_increase() -> None:
    a, b = ir.Var("a", I64), ir.Var("b", I64)
    assert b.unique_id > a.unique_id


def test_call_overloads() -> None:
    op, x = ir.Op("tensor.add"), ir.Var("x", I64)
    t = ir.TensorType([4], ir.FP32)
    plain = ir.Call(op, [x], SPAN)
    assert (plain.op, plain.args, plain.kwargs, plain.attrs, plain.type, plain.span) == (
        op, [x], {}, {}, ir.UnknownType(), SPAN
    )
    assert ir.Call(op, [x], t, SPAN).type == t
    assert ir.Call(op, [x], {"k": 1}, SPAN).kwargs == {"k": 1}
    typed = ir.Call(op, [x], {"k": 1}, t, SPAN)
    assert (typed.kwargs, typed.type) == ({"k": 1}, t)
    full = ir.Call(op, [x], {"k": 1}, {"arg_directions": [ir.ArgDirection.Output]}, t, SPAN)
    assert full.arg_directions == [ir.ArgDirection.Output] and plain.arg_directions == []


def test_submit_overloads() -> None:
    task = ir.ScalarType(DataType.TASK_ID)
    gv, x = ir.GlobalVar("k"), ir.Var("x", I64)
    s = ir.Submit(gv, [x], [], task, SPAN)
    assert (s.op, s.args, s.deps, s.type, s.core_num, s.sync_start) == (gv, [x], [], task, None, False)
    full = ir.Submit(gv, [x], [], {"k": 1}, {}, task, SPAN, core_num=8, sync_start=True, allow_early_resolve=True)
    assert full.core_num.value == 8 and full.core_num.dtype == ir.INDEX and full.allow_early_resolve
    with pytest.raises(IRValueError, match="^Submit: sync_start=True requires core_num$"):
        ir.Submit(gv, [], [], task, sync_start=True)


def test_statement_constructors_take_positional_arguments() -> None:
    x, i = ir.Var("x", I64), ir.Var("i", IDX)
    assign = ir.AssignStmt(x, ci(1), SPAN)
    assert (assign.var, assign.value.value, assign.span, assign.leading_comments) == (x, 1, SPAN, [])
    ev = ir.EvalStmt(x, SPAN)
    assert ev.expr is x
    seq = ir.SeqStmts([assign, ev], SPAN)
    assert (seq[0], seq[-1], len(seq)) == (assign, ev, 2)
    cond = ir.ConstBool(True)
    branch = ir.IfStmt(cond, seq, None, [], SPAN)
    assert (branch.condition, branch.then_body, branch.else_body, branch.return_vars) == (cond, seq, None, [])
    loop = ir.ForStmt(i, 0, 8, 2, [], seq, [], SPAN, ir.ForKind.Unroll, {"k": 1})
    assert [loop.start.value, loop.stop.value, loop.step.value] == [0, 8, 2]
    assert loop.start.dtype == ir.INDEX and (loop.kind, loop.attrs) == (ir.ForKind.Unroll, {"k": 1})
    assert ir.ForStmt(i, 0, 8, 1, [], seq, [], SPAN, ir.ForKind.Sequential, None).attrs == {}
    w = ir.WhileStmt(cond, [], seq, [], SPAN)
    assert (w.condition, w.body) == (cond, seq)
    y = ir.YieldStmt([x], SPAN)
    assert (y.value, y.span) == ([x], SPAN)
    assert ir.YieldStmt(SPAN).value == [] and ir.YieldStmt(x).value == [x]
    assert ir.ReturnStmt([x, x], SPAN).value == [x, x] and ir.ReturnStmt(SPAN).value == []
    assert ir.BreakStmt(SPAN).span is SPAN and ir.ContinueStmt(SPAN).span is SPAN
    inline = ir.InlineStmt("print(1)", ir.InlineLanguage.Python, SPAN)
    assert (inline.body, inline.language) == ("print(1)", ir.InlineLanguage.Python)


def test_scope_constructors_take_body_and_span_by_keyword() -> None:
    body = ir.SeqStmts([])
    incore = ir.InCoreScopeStmt(ir.SplitMode.UP_DOWN, "k", body=body, span=SPAN)
    assert (incore.split, incore.name_hint, incore.scope_kind, incore.attrs) == (
        ir.SplitMode.UP_DOWN, "k", ir.ScopeKind.InCore, {}
    )
    assert ir.ClusterScopeStmt("c", body=body).scope_kind == ir.ScopeKind.Cluster
    h = ir.HierarchyScopeStmt(ir.Level.HOST, ir.Role.SubWorker, "h", body=body)
    assert (h.level, h.role, h.scope_kind) == (ir.Level.HOST, ir.Role.SubWorker, ir.ScopeKind.Hierarchy)
    spmd = ir.SpmdScopeStmt(8, True, body=body)
    assert (spmd.core_num.value, spmd.core_num.dtype, spmd.sync_start) == (8, ir.INDEX, True)
    assert ir.RuntimeScopeStmt(True, body=body).manual
    aiv = ir.SplitAivScopeStmt(ir.SplitMode.LEFT_RIGHT, body=body)
    assert (aiv.split, aiv.count, aiv.scope_kind) == (ir.SplitMode.LEFT_RIGHT, 2, ir.ScopeKind.SplitAiv)
    with pytest.raises(IRTypeError, match="^ScopeStmt is abstract"):
        ir.ScopeStmt(body=body)


def test_type_constructors_take_positional_arguments() -> None:
    assert ir.ScalarType(ir.FP32).dtype == ir.FP32
    t = ir.TensorType([64, 128], ir.FP32)
    assert [d.value for d in t.shape] == [64, 128] and t.shape[0].dtype == ir.INDEX and t.memref is None
    view = ir.TensorView([128, 1], ir.TensorLayout.DN, [32, 64], ir.PadValue.zero)
    assert (view.layout, view.pad, [s.value for s in view.stride]) == (ir.TensorLayout.DN, ir.PadValue.zero, [128, 1])
    tile = ir.TileType([16, 16], ir.FP16, None, None, ir.Mem.Vec)
    assert tile.memory_space == ir.Mem.Vec and tile.tile_view is None
    arr = ir.ArrayType(ir.INT32, 16)
    assert (arr.dtype, arr.extent.value, [d.value for d in arr.shape], arr.memory_space) == (
        ir.INT32, 16, [16], ir.Mem.ScalarLocal
    )
    assert ir.TupleType([I64, IDX]).types == [I64, IDX]
    tv = ir.TileView([8, 8], [16, 1], 4, ir.TileLayout.col_major, ir.TileLayout.row_major, 1024, ir.PadValue.max)
    assert (tv.start_offset.value, tv.fractal, tv.pad, tv.compact) == (4, 1024, ir.PadValue.max, ir.CompactMode.null)
    assert ir.UnknownType.get() is ir.UnknownType.get() and ir.PtrType.get() == ir.PtrType()


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("build", "error", "message"),
    [
        (lambda: ir.ConstInt("3", ir.INT64), IRTypeError,
         "ConstInt: field 'value': Input should be a valid integer (got str)"),
        (lambda: ir.ConstInt(True, ir.INT64), IRTypeError,
         "ConstInt: field 'value': Input should be a valid integer (got bool)"),
        (lambda: ir.ConstInt(3, ir.INT64, foo=1), IRTypeError, "ConstInt: field 'foo': unknown field"),
        (lambda: ir.Var("x", 3), IRTypeError, "Var: field 'type': Input should be an instance of Type (got int)"),
        (lambda: ir.AssignStmt(ci(1), ci(1)), IRTypeError,
         "AssignStmt: field 'var': Input should be an instance of Var (got ConstInt)"),
        (lambda: ir.TensorType([4, "a"], ir.FP32), IRTypeError,
         "TensorType: field 'shape.1': Input should be an instance of Expr (got str)"),
        (lambda: ir.SeqStmts([1]), IRTypeError,
         "SeqStmts: field 'stmts.0': Input should be an instance of Stmt (got int)"),
        (lambda: ir.ConstInt(1, ir.INT64, ir.Span.unknown(), 4), IRTypeError,
         "ConstInt() takes at most 3 positional arguments (value, dtype, span), got 4"),
        (lambda: ir.BinaryExpr(ci(1), ci(1), ir.INT64), IRTypeError,
         "BinaryExpr is abstract; build Add, Sub, ... instead"),
        (lambda: ir.UnaryExpr(ci(1), ir.INT64), IRTypeError, "UnaryExpr is abstract; build Neg, Not, ... instead"),
        (lambda: ir.TupleGetItemExpr(ir.MakeTuple([ci(1)]), 1), IRValueError,
         "TupleGetItemExpr: index 1 out of range for a tuple of 1 elements"),
        (lambda: ir.Call(ir.Op("f"), [], {"k": object()}), IRTypeError,
         "Call: kwarg 'k' has unsupported value type object"),
        (lambda: ir.TensorType([3], ir.FP4), IRValueError,
         "TensorType: FP4 needs an even, positive last dimension, got 3"),
        (lambda: ir.ArrayType(ir.FP32, 4), IRValueError,
         "ArrayType: element dtype must be integer, BOOL or TASK_ID, got fp32"),
        (lambda: ir.ArrayType(ir.INT32, 0), IRValueError, "ArrayType: extent must be > 0, got 0"),
        (lambda: ir.TensorView(stride=[1]), IRValueError,
         "TensorView: stride/valid_shape/pad require an explicit layout"),
        (lambda: ir.Call(ir.Op("f"), [], ["k"]), IRTypeError,
         "Call: field 'kwargs': Input should be a valid dictionary (got list)"),
        (lambda: ir.Submit(ir.Op("f"), [], [], "k", {}, ir.UnknownType()), IRTypeError,
         "Submit: field 'kwargs': Input should be a valid dictionary (got str)"),
        (lambda: ir.ConstFloat((1.0,), ir.FP32), IRTypeError,
         "ConstFloat: field 'value': expected a number (got tuple)"),
        (lambda: ir.Function("f", 1.5, [], ir.SeqStmts([])), IRTypeError,
         "Function: field 'params': Input should be a valid list (got float)"),
    ],
)
def test_bad_fields_are_clear_errors(build: Any, error: type, message: str) -> None:
    with pytest.raises(error) as info:
        build()
    assert str(info.value) == message
    assert isinstance(info.value, PyptoError)


def test_error_classes_derive_from_builtins() -> None:
    assert issubclass(IRTypeError, TypeError) and issubclass(IRValueError, ValueError)


def test_nodes_are_immutable() -> None:
    x = ir.Var("x", I64)
    with pytest.raises(AttributeError, match="IR nodes are immutable"):
        x.name_hint = "y"  # type: ignore[misc]
    assert x.name_hint == "x"


# ---------------------------------------------------------------- identity and ==


def test_expr_equality_builds_eq_and_ne_nodes() -> None:
    x1, x2 = ir.Var("x", I64), ir.Var("x", I64)
    eq = x1 == x2
    assert isinstance(eq, ir.Eq) and eq.left is x1 and eq.right is x2 and eq.dtype == ir.BOOL
    ne = x1 != x2
    assert isinstance(ne, ir.Ne)
    assert x1 != x2  # the Ne node is truthy
    lit = x1 == 3
    assert isinstance(lit, ir.Eq) and lit.right.value == 3 and lit.right.dtype == ir.INDEX


def test_identity_hashing_and_same_as() -> None:
    x1, x2 = ir.Var("x", I64), ir.Var("x", I64)
    assert x1.same_as(x1) and not x1.same_as(x2)
    table = {x1: "one", x2: "two"}
    assert table[x1] == "one" and table[x2] == "two"
    assert len({ci(1), ci(1)}) == 2


def test_node_classes_read_attributes_without_pydantics_hook() -> None:
    # Every node class (a subclass defined later too) takes the generic, specialisable lookup;
    # attrs models keep pydantic's hook, which serves their extra fields.
    from pypto.ir.node import IRNode
    from pypto.ir.plain_getattr import has_plain_getattr

    class Later(IRNode):
        pass

    for cls in (ir.Var, ir.Add, ir.AssignStmt, ir.Function, ir.Program, ir.TileType, ir.MemRef, Later):
        assert has_plain_getattr(cls), cls
    attrs = ir.CallAttrs(custom=1)
    assert not has_plain_getattr(type(attrs)) and attrs.custom == 1
    x = ir.Var("x", I64)
    assert x.name_hint == "x" and not hasattr(x, "name")
    with pytest.raises(AttributeError, match="^'Var' object has no attribute 'name'$"):
        x.name  # noqa: B018


def test_types_compare_structurally() -> None:
    assert ir.ScalarType(ir.FP32) == ir.ScalarType(ir.FP32)
    assert ir.ScalarType(ir.FP32) != ir.ScalarType(ir.FP16)
    assert ir.TensorType([64, 128], ir.FP32) == ir.TensorType([64, 128], ir.FP32)
    assert len({ir.TensorType([4], ir.FP32), ir.TensorType([4], ir.FP32)}) == 1
    assert ir.TupleType([]) == ir.TupleType([])
    assert ir.ScalarType(ir.FP32) != "fp32"


def test_global_vars_compare_by_name() -> None:
    assert ir.GlobalVar("f") == ir.GlobalVar("f") and hash(ir.GlobalVar("f")) == hash(ir.GlobalVar("f"))
    assert ir.GlobalVar("f") != ir.GlobalVar("g")


# ---------------------------------------------------------------- tensor / tile canonicalisation


def test_tensor_view_canonicalisation() -> None:
    same = ir.TensorType([32, 64], ir.FP32, None, ir.TensorView([], ir.TensorLayout.ND, [32, 64]))
    assert same.tensor_view is None
    empty = ir.TensorType([32, 64], ir.FP32, None, ir.TensorView())
    assert empty.tensor_view is None
    kept = ir.TensorType([32, 64], ir.FP32, None, ir.TensorView([], ir.TensorLayout.ND, [16, 64]))
    assert [d.value for d in kept.tensor_view.valid_shape] == [16, 64]
    strided = ir.TensorType([32, 64], ir.FP32, None, ir.TensorView([64, 1], ir.TensorLayout.ND, [32, 64]))
    assert strided.tensor_view.valid_shape == [] and [d.value for d in strided.tensor_view.stride] == [64, 1]
    assert ir.TensorType([4], ir.FP32).memory_space == ir.Mem.DDR


def test_tile_view_canonicalisation() -> None:
    acc = ir.TileType(
        [128, 128],
        ir.FP32,
        None,
        ir.TileView(blayout=ir.TileLayout.col_major, slayout=ir.TileLayout.row_major, fractal=1024),
        ir.Mem.Acc,
    )
    assert acc.tile_view is None
    full = ir.TileType([16, 16], ir.FP16, None, ir.TileView(valid_shape=[16, 16]), ir.Mem.Vec)
    assert full.tile_view is None
    partial = ir.TileType([16, 16], ir.FP16, None, ir.TileView(valid_shape=[16, 8]), ir.Mem.Vec)
    assert [d.value for d in partial.tile_view.valid_shape] == [16, 8]
    padded = ir.TileType([16, 16], ir.FP16, None, ir.TileView(valid_shape=[16, 16], pad=ir.PadValue.zero), ir.Mem.Vec)
    assert padded.tile_view.valid_shape == [] and padded.tile_view.pad == ir.PadValue.zero
    effective = padded.get_effective_tile_view()
    assert [d.value for d in effective.valid_shape] == [16, 16] and effective.pad == ir.PadValue.zero


@pytest.mark.parametrize(
    ("space", "shape", "implicit"),
    [
        (None, [16, 16], (ir.TileLayout.row_major, ir.TileLayout.none_box, 512)),
        (ir.Mem.Vec, [16, 1], (ir.TileLayout.col_major, ir.TileLayout.none_box, 512)),
        (ir.Mem.Vec, [1, 1], (ir.TileLayout.row_major, ir.TileLayout.none_box, 512)),
        (ir.Mem.DDR, [16, 16], (ir.TileLayout.row_major, ir.TileLayout.none_box, 512)),
        (ir.Mem.Bias, [1, 16], (ir.TileLayout.row_major, ir.TileLayout.none_box, 512)),
        (ir.Mem.ScalarLocal, [16], (ir.TileLayout.row_major, ir.TileLayout.none_box, 512)),
        (ir.Mem.Mat, [16, 16], (ir.TileLayout.col_major, ir.TileLayout.row_major, 512)),
        (ir.Mem.Left, [16, 16], (ir.TileLayout.col_major, ir.TileLayout.row_major, 512)),
        (ir.Mem.Right, [16, 16], (ir.TileLayout.row_major, ir.TileLayout.col_major, 512)),
        (ir.Mem.Right, [16, 1], (ir.TileLayout.col_major, ir.TileLayout.col_major, 512)),
        (ir.Mem.Acc, [16, 16], (ir.TileLayout.col_major, ir.TileLayout.row_major, 1024)),
        (ir.Mem.LeftScale, [16, 16], (ir.TileLayout.row_major, ir.TileLayout.row_major, 32)),
        (ir.Mem.RightScale, [16, 16], (ir.TileLayout.col_major, ir.TileLayout.col_major, 32)),
    ],
)
def test_implicit_tile_view(space: ir.MemorySpace | None, shape: list[int], implicit: tuple[Any, Any, int]) -> None:
    tile = ir.TileType(shape, ir.FP16, None, None, space)
    view = tile.get_effective_tile_view()
    assert (view.blayout, view.slayout, view.fractal) == implicit
    assert [d.value for d in view.valid_shape] == shape
    blayout, slayout, fractal = implicit
    explicit = ir.TileType(shape, ir.FP16, None, ir.TileView(blayout=blayout, slayout=slayout, fractal=fractal), space)
    assert explicit.tile_view is None
    other = ir.TileView(blayout=blayout, slayout=slayout, fractal=fractal * 2)
    assert ir.TileType(shape, ir.FP16, None, other, space).tile_view is not None


def test_model_copy_of_a_type_builds_a_new_type_and_keeps_the_shared_one() -> None:
    # Types copy as themselves: pydantic's model_copy wrote the update into the shared type, and its
    # memoised view would have stayed that of the old shape.
    tile = ir.TileType([16, 1], ir.FP16, None, None, ir.Mem.Vec)
    assert tile.get_effective_tile_view().blayout == ir.TileLayout.col_major
    wide = tile.model_copy(update={"shape": [1, 16]})
    assert wide is not tile
    assert [d.value for d in tile.shape] == [16, 1] and [d.value for d in wide.shape] == [1, 16]
    view = wide.get_effective_tile_view()
    assert view.blayout == ir.TileLayout.row_major and [d.value for d in view.valid_shape] == [1, 16]
    assert tile.model_copy() is tile
    with pytest.raises(IRTypeError):
        tile.model_copy(update={"dtype": "FP16"})


def test_tile_memref_and_memory_space() -> None:
    tile = ir.TileType([16, 16], ir.FP16, ir.MemRef("mem_acc_2", 0, 512))
    assert tile.memory_space == ir.Mem.Acc
    with pytest.raises(IRValueError, match="^TileType: a MemRef requires an explicit memory space$"):
        ir.TileType([16, 16], ir.FP16, ir.MemRef(ir.Var("buf", ir.PtrType.get()), 0, 64))
    explicit = ir.TileType([16, 16], ir.FP16, ir.MemRef(ir.Var("buf", ir.PtrType.get()), 0, 64), None, ir.Mem.Mat)
    assert explicit.memory_space == ir.Mem.Mat
    a = ir.TileType([4], ir.FP16, ir.MemRef("mem_vec_0", 0, 64))
    b = ir.TileType([4], ir.FP16, ir.MemRef("mem_vec_0", 0, 64))
    assert not a.shares_memref_with(b)
    shared = ir.TileType([4], ir.FP32, a.memref, None, ir.Mem.Vec)
    assert a.shares_memref_with(shared)


# ---------------------------------------------------------------- MemRef forms


def test_memref_forms() -> None:
    base = ir.Var("mem_vec_0", ir.PtrType.get())
    m = ir.MemRef(base, 64, 512, SPAN)
    assert (m.base, m.byte_offset.value, m.byte_offset.dtype, m.size, m.is_pinned) == (base, 64, ir.INT64, 512, False)
    assert m.name_hint == "mem_vec_0" and m.type is ir.MemRefType.get()
    named = ir.MemRef("mem_mat_1", 0, 128)
    assert named.base.name_hint == "mem_mat_1" and isinstance(named.base.type, ir.PtrType)
    pinned = ir.MemRef()
    assert (pinned.is_pinned, pinned.name_hint, pinned.slot_count, pinned.slot_index) == (True, "", 1, None)
    multi = ir.MemRef("buf", slots=3)
    assert (multi.name_hint, multi.slot_count) == ("buf", 3)
    slot = multi[2]
    assert (slot.slot_index, slot.base is multi.base, slot.is_pinned) == (2, True, True)
    legacy = ir.MemRef(ir.Mem.Vec, 256, 1024, 0)
    assert (legacy.name_hint, legacy.byte_offset.value, legacy.size) == ("mem_vec_0", 256, 1024)
    assert ir.MemRef(32, 64, 7).name_hint == "mem_7"
    full = ir.MemRef(base, 64, 512, SPAN, True, 2, 1)  # spec order: base, offset, size, span, is_pinned, slots, slot
    assert (full.is_pinned, full.slot_count, full.slot_index, full.span) == (True, 2, 1, SPAN)


def test_memref_errors() -> None:
    with pytest.raises(IRValueError, match=r"^MemRef: slots must be an int >= 1, got 0$"):
        ir.MemRef(slots=0)
    with pytest.raises(IRValueError, match="^MemRef slot selection needs an author-declared MemRef$"):
        ir.MemRef("m", 0, 64)[0]
    with pytest.raises(IRValueError, match="^MemRef slot 2 out of range for 2 slots$"):
        ir.MemRef("m", slots=2)[2]
    with pytest.raises(IRTypeError, match=r"^MemRef\(\): unsupported argument list \(1.5, 2\)$"):
        ir.MemRef(1.5, 2)
    with pytest.raises(IRTypeError, match=r"^MemRef: the base must be a Var of type pl.Ptr, got pl.Scalar\[pl.INT64\]$"):
        ir.MemRef(ir.Var("v", ir.ScalarType(ir.INT64)), 0, 64)


def test_memref_aliasing() -> None:
    base = ir.Var("mem_vec_0", ir.PtrType.get())
    a, b, c = ir.MemRef(base, 0, 64), ir.MemRef(base, 32, 64), ir.MemRef(base, 64, 64)
    assert ir.MemRef.same_allocation(a, c) and ir.MemRef.may_alias(a, b) and not ir.MemRef.may_alias(a, c)
    assert not ir.MemRef.same_allocation(a, ir.MemRef("mem_vec_0", 0, 64))


# ---------------------------------------------------------------- Function and Program


@pytest.mark.parametrize(
    ("func_type", "level", "role"),
    [
        (ir.FunctionType.Orchestration, ir.Level.CHIP, ir.Role.Orchestrator),
        (ir.FunctionType.Graph, ir.Level.CHIP, ir.Role.Orchestrator),
        (ir.FunctionType.InCore, ir.Level.CHIP_DIE, ir.Role.SubWorker),
        (ir.FunctionType.AIC, ir.Level.AIC, ir.Role.SubWorker),
        (ir.FunctionType.AIV, ir.Level.AIV, ir.Role.SubWorker),
        (ir.FunctionType.Group, ir.Level.CORE_GROUP, ir.Role.SubWorker),
        (ir.FunctionType.Opaque, None, None),
        (ir.FunctionType.Spmd, None, None),
        (ir.FunctionType.Inline, None, None),
    ],
)
def test_function_level_and_role_are_derived(func_type: ir.FunctionType, level: Any, role: Any) -> None:
    f = ir.Function("f", [], [], ir.SeqStmts([]), SPAN, func_type)
    assert (f.func_type, f.level, f.role) == (func_type, level, role)
    if level is not None:
        assert ir.Function("f", [], [], ir.SeqStmts([]), type=func_type, level=level, role=role).level == level


def test_function_explicit_level_role() -> None:
    f = ir.Function(
        "f", [], [], ir.SeqStmts([]), type=ir.FunctionType.Opaque, level=ir.Level.HOST, role=ir.Role.SubWorker
    )
    assert (f.level, f.role) == (ir.Level.HOST, ir.Role.SubWorker)
    with pytest.raises(IRValueError) as info:
        ir.Function("f", [], [], ir.SeqStmts([]), type=ir.FunctionType.InCore, level=ir.Level.HOST)
    assert str(info.value) == "Function 'f': level HOST contradicts function type InCore (which implies CHIP_DIE)"
    assert ir.Level.L2CACHE is ir.Level.CHIP_DIE and ir.Level.UMA is ir.Level.CHIP


def test_function_fields() -> None:
    x, y = ir.Var("x", I64), ir.Var("y", I64)
    body = ir.SeqStmts([ir.ReturnStmt([x])])
    f = ir.Function("f", [x, (y, ir.ParamDirection.Out)], [I64], body, SPAN, ir.FunctionType.InCore, None, None,
                    {"split": ir.SplitMode.UP_DOWN}, True)
    assert f.params == [x, y] and f.param_directions == [ir.ParamDirection.In, ir.ParamDirection.Out]
    assert (f.name, f.return_types, f.body, f.span) == ("f", [I64], body, SPAN)
    assert f.split == ir.SplitMode.UP_DOWN and f.requires_runtime_binding
    assert ir.Function("g", [], [], body).split is None and ir.Function("g", [], [], body, attrs=None).attrs == {}
    with pytest.raises(IRTypeError, match=r"^Function: a parameter pair must be \(Var, ParamDirection\)$"):
        ir.Function("f", [(x,)], [], body)


def test_program_orders_functions_by_name() -> None:
    def fn(name: str) -> ir.Function:
        return ir.Function(name, [], [], ir.SeqStmts([]))

    main, helper, alpha = fn("main"), fn("helper"), fn("alpha")
    prog = ir.Program([main, helper, alpha], "prog", SPAN)
    assert [gv.name for gv in prog.functions] == ["alpha", "helper", "main"]
    assert list(prog.functions.values()) == [alpha, helper, main]
    assert prog.get_function("main") is main and prog["helper"] is helper and prog["nope"] is None
    assert prog.get_global_var("alpha") == ir.GlobalVar("alpha") and prog.get_global_var("nope") is None
    assert (prog.name, prog.span) == ("prog", SPAN)
    by_dict = ir.Program({ir.GlobalVar("main"): main, ir.GlobalVar("alpha"): alpha})
    assert [gv.name for gv in by_dict.functions] == ["alpha", "main"] and by_dict.name == ""


def test_program_errors() -> None:
    f = ir.Function("f", [], [], ir.SeqStmts([]))
    with pytest.raises(IRValueError, match="^Program: duplicate function name 'f'$"):
        ir.Program([f, f], "p")
    with pytest.raises(IRValueError, match="^Program: GlobalVar 'g' names function 'f'$"):
        ir.Program({ir.GlobalVar("g"): f})
    with pytest.raises(IRTypeError, match="^Program: functions must be Function nodes, got int$"):
        ir.Program([1], "p")


def test_leading_comments() -> None:
    stmt = ir.EvalStmt(ci(1))
    assert ir.attach_leading_comments(stmt, ["a", "b"]) is stmt and stmt.leading_comments == ["a", "b"]
    message = "^attach_leading_comments: expected a Stmt, got ConstInt$"
    with suppress_type_checks(), pytest.raises(IRTypeError, match=message):
        ir.attach_leading_comments(ci(1), ["a"])  # type: ignore[arg-type]
