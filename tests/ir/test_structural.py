"""Structural equality and hashing (spec/ir.md §7)."""

from __future__ import annotations

from typing import Any, Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pypto import DataType, ir
from pypto.ir import printer as printer_module

I64 = ir.ScalarType(ir.INT64)
IDX = ir.ScalarType(ir.INDEX)
BOOL = ir.ScalarType(ir.BOOL)

# Free variables shared by both sides of the comparisons below (equal to themselves only).
A = ir.Var("a", I64)
B = ir.Var("b", I64)
N = ir.Var("N", IDX)
TASK = ir.Var("t", ir.ScalarType(DataType.TASK_ID))


def ci(v: int, dtype: DataType = ir.INT64) -> ir.ConstInt:
    return ir.ConstInt(v, dtype)


def seq(*stmts: ir.Stmt) -> ir.SeqStmts:
    return ir.SeqStmts(list(stmts))


def add(lhs: ir.Expr, rhs: ir.Expr) -> ir.Expr:
    return ir.Add(lhs, rhs, ir.INT64)


def call(name: str, args: list[ir.Expr], **kw: Any) -> ir.Call:
    return ir.Call(ir.Op(name), args, kw.pop("kwargs", {}), kw.pop("attrs", {}), kw.pop("type", ir.UnknownType()))


def function(v: bool, **changes: Any) -> ir.Function:
    """``def f(x, y): z = x + y; return z`` with fresh variables at every call."""
    x, y = ir.Var("x", I64), ir.Var("y", I64)
    z = ir.Var("z", I64)
    body = seq(ir.AssignStmt(z, add(x, y)), ir.ReturnStmt([z]))
    args: dict[str, Any] = dict(name="f", params=[x, y], return_types=[I64], body=body)
    if v:
        args.update(changes)
    return ir.Function(**args)


def for_loop(v: bool, field: str) -> ir.ForStmt:
    """``for i, (acc,) in range(0, N, 1, init_values=(a,)): acc2 = acc + i; yield acc2``."""
    i = ir.Var("i", IDX)
    acc = ir.IterArg("acc", I64, B if v and field == "init" else A)
    out = ir.Var("out", I64)
    acc2 = ir.Var("acc2", I64)
    body = seq(ir.AssignStmt(acc2, add(acc, ir.Cast(i, ir.INT64, ir.Span.unknown()))), ir.YieldStmt([acc2]))
    kw: dict[str, Any] = dict(
        loop_var=i, start=ci(0, ir.INDEX), stop=N, step=ci(1, ir.INDEX), iter_args=[acc], body=body, return_vars=[out]
    )
    if v:
        kw.update(
            {
                "start": dict(start=ci(1, ir.INDEX)),
                "stop": dict(stop=ci(8, ir.INDEX)),
                "step": dict(step=ci(2, ir.INDEX)),
                "kind": dict(kind=ir.ForKind.Parallel),
                "attrs": dict(attrs={"k": 1}),
                "body": dict(body=seq(ir.AssignStmt(acc2, add(acc, acc)), ir.YieldStmt([acc2]))),
                "iter_args": dict(iter_args=[], return_vars=[], body=seq()),
                "loop_var_type": dict(loop_var=ir.Var("i", ir.ScalarType(ir.INT32))),
                "init": {},
            }[field]
        )
    if v and field == "loop_var_type":
        kw["body"] = seq(ir.AssignStmt(acc2, add(acc, ir.Cast(kw["loop_var"], ir.INT64))), ir.YieldStmt([acc2]))
    return ir.ForStmt(**kw)


def while_loop(v: bool, field: str) -> ir.WhileStmt:
    x = ir.IterArg("x", I64, A)
    out = ir.Var("out", I64)
    limit = ci(11 if v and field == "condition" else 10)
    step = ci(2 if v and field == "body" else 1)
    return ir.WhileStmt(ir.Lt(x, limit, ir.BOOL), [x], seq(ir.YieldStmt([add(x, step)])), [out])


def if_stmt(v: bool, field: str) -> ir.IfStmt:
    r = ir.Var("r", I64)
    cond = ir.Lt(A, B, ir.BOOL) if not (v and field == "condition") else ir.Le(A, B, ir.BOOL)
    then = seq(ir.YieldStmt([A if not (v and field == "then") else B]))
    other: ir.Stmt | None = seq(ir.YieldStmt([B]))
    if v and field == "else":
        other = None
    rvars = [] if v and field == "return_vars" else [r]
    return ir.IfStmt(cond, then, other, rvars)


def tile(v: bool, field: str) -> ir.TileType:
    view = dict(
        valid_shape=[16, 8],
        stride=[16, 1],
        start_offset=0,
        blayout=ir.TileLayout.row_major,
        slayout=ir.TileLayout.none_box,
        fractal=512,
        pad=ir.PadValue.null,
        compact=ir.CompactMode.null,
    )
    alt = dict(
        valid_shape=[16, 4],
        stride=[32, 1],
        start_offset=4,
        blayout=ir.TileLayout.col_major,
        slayout=ir.TileLayout.row_major,
        fractal=1024,
        pad=ir.PadValue.zero,
        compact=ir.CompactMode.normal,
    )
    space = ir.Mem.Vec
    if v and field in alt:
        view[field] = alt[field]
    if v and field == "memory_space":
        space = ir.Mem.Mat
    return ir.TileType([16, 16], ir.FP16, None, ir.TileView(**view), space)


def tensor(v: bool, field: str) -> ir.TensorType:
    view = dict(stride=[128, 1], layout=ir.TensorLayout.ND, valid_shape=[32, 64], pad=ir.PadValue.null)
    alt = dict(stride=[256, 1], layout=ir.TensorLayout.DN, valid_shape=[16, 64], pad=ir.PadValue.zero)
    if v and field in alt:
        view[field] = alt[field]
    shape: list[Any] = [64, 128]
    dtype = ir.FP32
    if v and field == "rank":
        shape = [64, 128, 1]
    if v and field == "dim":
        shape = [64, N]
    if v and field == "dtype":
        dtype = ir.FP16
    if v and field == "no_view":
        return ir.TensorType(shape, dtype)
    return ir.TensorType(shape, dtype, None, ir.TensorView(**view))


def memref(v: bool, field: str) -> ir.SeqStmts:
    base = ir.Var("mem_vec_0", ir.PtrType.get())
    other = ir.Var("mem_vec_1", ir.PtrType.get())
    kw: dict[str, Any] = dict(base=base, offset=0, size=512, is_pinned=False, slots=1, slot=None)
    if v:
        kw.update(
            {
                "base": dict(base=other),
                "offset": dict(offset=64),
                "size": dict(size=256),
                "is_pinned": dict(is_pinned=True),
                "slots": dict(slots=2),
                "slot": dict(slot=0),
            }[field]
        )
    m = ir.MemRef(kw["base"], kw["offset"], kw["size"], is_pinned=kw["is_pinned"], slots=kw["slots"], slot=kw["slot"])
    # define the base pointers so that both sides map them
    return ir.SeqStmts(
        [
            ir.AssignStmt(base, call("tile.alloc", [])),
            ir.AssignStmt(other, call("tile.alloc", [])),
            ir.EvalStmt(call("use", [m])),
        ]
    )


def submit(v: bool, field: str) -> ir.Submit:
    kw: dict[str, Any] = dict(core_num=ci(8, ir.INDEX), sync_start=False, allow_early_resolve=False, predicate=None)
    deps: list[ir.Expr] = [TASK]
    if v and field == "deps":
        deps = []
    elif v:
        kw[field] = {
            "core_num": ci(16, ir.INDEX),
            "sync_start": True,
            "allow_early_resolve": True,
            "predicate": ir.ConstBool(True),
        }[field]
    return ir.Submit(ir.GlobalVar("k"), [A], deps, {}, {}, ir.ScalarType(DataType.TASK_ID), ir.Span.unknown(), **kw)


def scope(kind: str, v: bool, field: str) -> ir.ScopeStmt:
    body = seq(ir.EvalStmt(ci(2 if v and field == "body" else 1)))
    name = "s2" if v and field == "name_hint" else "s"
    attrs = {"k": 2 if v and field == "attrs" else 1}
    if kind == "incore":
        split = ir.SplitMode.UP_DOWN if v and field == "split" else ir.SplitMode.NONE
        return ir.InCoreScopeStmt(split, name, body=body, attrs=attrs)
    if kind == "hierarchy":
        level = ir.Level.CHIP if v and field == "level" else ir.Level.HOST
        role = None if v and field == "role" else ir.Role.SubWorker
        return ir.HierarchyScopeStmt(level, role, name, body=body, attrs=attrs)
    if kind == "spmd":
        return ir.SpmdScopeStmt(
            16 if v and field == "core_num" else 8, v and field == "sync_start", name, body=body, attrs=attrs
        )
    if kind == "runtime":
        return ir.RuntimeScopeStmt(v and field == "manual", name, body=body, attrs=attrs)
    if kind == "split_aiv":
        split = ir.SplitMode.LEFT_RIGHT if v and field == "split" else ir.SplitMode.UP_DOWN
        return ir.SplitAivScopeStmt(split, 4 if v and field == "count" else 2, name, body=body, attrs=attrs)
    return ir.ClusterScopeStmt(name, body=body, attrs=attrs)


def function_field(v: bool, field: str) -> ir.Function:
    x = ir.Var("x", ir.TensorType([N], ir.FP32))
    body = seq(ir.ReturnStmt([x]))
    kw: dict[str, Any] = dict(
        name="f", params=[(x, ir.ParamDirection.In)], return_types=[x.type], body=body, attrs={"k": 1}
    )
    if v:
        kw.update(
            {
                "type": dict(type=ir.FunctionType.InCore),
                "direction": dict(params=[(x, ir.ParamDirection.InOut)]),
                "return_types": dict(return_types=[]),
                "attrs": dict(attrs={"k": 2}),
                "requires_runtime_binding": dict(requires_runtime_binding=True),
                "params": dict(params=[], body=seq(ir.ReturnStmt([]))),
                "param_type": {},
            }[field]
        )
        if field == "param_type":
            y = ir.Var("x", ir.TensorType([N], ir.FP16))
            kw.update(params=[y], body=seq(ir.ReturnStmt([y])))
    return ir.Function(**kw)


# name -> builder(variant): variant False twice gives equal trees, False vs True differ in one field.
Builder = Callable[[bool], Any]
DIFFERING: dict[str, Builder] = {
    "ConstInt.value": lambda v: ci(2 if v else 1),
    "ConstInt.dtype": lambda v: ci(1, ir.INT32 if v else ir.INT64),
    "ConstFloat.value": lambda v: ir.ConstFloat(2.5 if v else 1.5, ir.FP32),
    "ConstFloat.dtype": lambda v: ir.ConstFloat(1.5, ir.FP16 if v else ir.FP32),
    "ConstBool.value": lambda v: ir.ConstBool(v),
    "Add.left": lambda v: add(B if v else A, ci(1)),
    "Add.right": lambda v: add(A, B if v else A),
    "Add.dtype": lambda v: ir.Add(A, B, ir.INT32 if v else ir.INT64),
    "Add vs Sub": lambda v: (ir.Sub if v else ir.Add)(A, B, ir.INT64),
    "Neg.operand": lambda v: ir.Neg(B if v else A, ir.INT64),
    "Cast.dtype": lambda v: ir.Cast(A, ir.INT32 if v else ir.INT16),
    "Call.op": lambda v: call("tensor.mul" if v else "tensor.add", [A]),
    "Call.args length": lambda v: call("f", [A, B] if v else [A]),
    "Call.args item": lambda v: call("f", [B if v else A]),
    "Call.kwargs value": lambda v: call("f", [], kwargs={"k": 2 if v else 1}),
    "Call.kwargs value type": lambda v: call("f", [], kwargs={"k": True if v else 1}),
    "Call.kwargs key": lambda v: call("f", [], kwargs={"j" if v else "k": 1}),
    "Call.kwargs enum": lambda v: call("f", [], kwargs={"m": ir.Mem.Mat if v else ir.Mem.Vec}),
    "Call.kwargs dtype": lambda v: call("f", [], kwargs={"d": ir.FP16 if v else ir.FP32}),
    "Call.attrs": lambda v: call(
        "f", [], attrs={"arg_directions": [ir.ArgDirection.Output if v else ir.ArgDirection.Input]}
    ),
    "Call.type": lambda v: call("f", [], type=ir.TensorType([8], ir.FP16 if v else ir.FP32)),
    "Call vs Submit": lambda v: (
        ir.Submit(ir.GlobalVar("k"), [A], [], ir.ScalarType(DataType.TASK_ID))
        if v
        else ir.Call(ir.GlobalVar("k"), [A], ir.ScalarType(DataType.TASK_ID))
    ),
    "Op vs GlobalVar": lambda v: ir.Call(ir.GlobalVar("k") if v else ir.Op("k"), []),
    "Submit.deps": lambda v: submit(v, "deps"),
    "Submit.core_num": lambda v: submit(v, "core_num"),
    "Submit.sync_start": lambda v: submit(v, "sync_start"),
    "Submit.allow_early_resolve": lambda v: submit(v, "allow_early_resolve"),
    "Submit.predicate": lambda v: submit(v, "predicate"),
    "MakeTuple.elements": lambda v: ir.MakeTuple([A, B] if v else [A]),
    "TupleGetItemExpr.index": lambda v: ir.TupleGetItemExpr(ir.MakeTuple([A, B]), 1 if v else 0),
    "AssignStmt.value": lambda v: seq(ir.AssignStmt(ir.Var("x", I64), B if v else A)),
    "AssignStmt.var type": lambda v: seq(ir.AssignStmt(ir.Var("x", ir.ScalarType(ir.INDEX if v else ir.INT64)), A)),
    "EvalStmt.expr": lambda v: ir.EvalStmt(B if v else A),
    "SeqStmts length": lambda v: seq(*([ir.EvalStmt(A)] * (2 if v else 1))),
    "YieldStmt.value": lambda v: ir.YieldStmt([A, B] if v else [A]),
    "ReturnStmt.value": lambda v: ir.ReturnStmt([B] if v else [A]),
    "Break vs Continue": lambda v: ir.ContinueStmt() if v else ir.BreakStmt(),
    "InlineStmt.body": lambda v: ir.InlineStmt("y = 2" if v else "x = 1"),
    "IfStmt.condition": lambda v: if_stmt(v, "condition"),
    "IfStmt.then_body": lambda v: if_stmt(v, "then"),
    "IfStmt.else_body": lambda v: if_stmt(v, "else"),
    "IfStmt.return_vars": lambda v: if_stmt(v, "return_vars"),
    "WhileStmt.condition": lambda v: while_loop(v, "condition"),
    "WhileStmt.body": lambda v: while_loop(v, "body"),
    "IterArg.initValue": lambda v: for_loop(v, "init"),
    "MemRef.base": lambda v: memref(v, "base"),
    "MemRef.byte_offset": lambda v: memref(v, "offset"),
    "MemRef.size": lambda v: memref(v, "size"),
    "MemRef.is_pinned": lambda v: memref(v, "is_pinned"),
    "MemRef.slot_count": lambda v: memref(v, "slots"),
    "MemRef.slot_index": lambda v: memref(v, "slot"),
    "ScalarType.dtype": lambda v: ir.ScalarType(ir.INT32 if v else ir.INT64),
    "UnknownType vs PtrType": lambda v: ir.PtrType() if v else ir.UnknownType(),
    "TupleType.types": lambda v: ir.TupleType([I64, I64] if v else [I64]),
    "ArrayType.extent": lambda v: ir.ArrayType(ir.INT32, 8 if v else 4),
    "ArrayType.dtype": lambda v: ir.ArrayType(ir.INT16 if v else ir.INT32, 4),
    "Function.func_type": lambda v: function_field(v, "type"),
    "Function.param_directions": lambda v: function_field(v, "direction"),
    "Function.return_types": lambda v: function_field(v, "return_types"),
    "Function.attrs": lambda v: function_field(v, "attrs"),
    "Function.requires_runtime_binding": lambda v: function_field(v, "requires_runtime_binding"),
    "Function.params": lambda v: function_field(v, "params"),
    "Function.param type": lambda v: function_field(v, "param_type"),
    "Function.body": lambda v: function(v, body=seq(ir.ReturnStmt([]))),
    "Program.functions": lambda v: ir.Program(
        [function(False), *([ir.Function("g", [], [], seq())] if v else [])], "p"
    ),
}
for _field in ("start", "stop", "step", "kind", "attrs", "body", "iter_args", "loop_var_type"):
    DIFFERING[f"ForStmt.{_field}"] = lambda v, f=_field: for_loop(v, f)
_TILE_FIELDS = ("valid_shape", "stride", "start_offset", "blayout", "slayout", "fractal", "pad", "compact")
for _field in (*_TILE_FIELDS, "memory_space"):
    DIFFERING[f"TileType.{_field}"] = lambda v, f=_field: tile(v, f)
for _field in ("stride", "layout", "valid_shape", "pad", "rank", "dim", "dtype", "no_view"):
    DIFFERING[f"TensorType.{_field}"] = lambda v, f=_field: tensor(v, f)
for _kind, _fields in {
    "incore": ("split", "name_hint", "body", "attrs"),
    "hierarchy": ("level", "role", "name_hint"),
    "spmd": ("core_num", "sync_start", "name_hint"),
    "runtime": ("manual", "name_hint"),
    "split_aiv": ("split", "count", "name_hint"),
    "cluster": ("name_hint", "attrs"),
}.items():
    for _field in _fields:
        DIFFERING[f"{_kind}_scope.{_field}"] = lambda v, k=_kind, f=_field: scope(k, v, f)


# Cases that differ only in which free variable is used: auto mapping makes them equal.
AUTO_EQUAL = {
    "Add.left",
    "AssignStmt.value",
    "Call.args item",
    "EvalStmt.expr",
    "IterArg.initValue",
    "Neg.operand",
    "ReturnStmt.value",
}


@pytest.mark.parametrize("name", sorted(DIFFERING))
def test_one_field_makes_nodes_differ(name: str) -> None:
    build = DIFFERING[name]
    lhs, rhs = build(False), build(True)
    assert not ir.structural_equal(lhs, rhs)
    assert not ir.structural_equal(rhs, lhs)
    assert ir.structural_equal(lhs, rhs, enable_auto_mapping=True) == (name in AUTO_EQUAL)
    assert ir.structural_equal(rhs, lhs, enable_auto_mapping=True) == (name in AUTO_EQUAL)
    with pytest.raises(ValueError, match="^Structural equality assertion failed at: "):
        ir.assert_structural_equal(lhs, rhs)


@pytest.mark.parametrize("name", sorted(DIFFERING))
def test_separately_built_trees_are_equal_and_hash_alike(name: str) -> None:
    build = DIFFERING[name]
    for variant in (False, True):
        lhs, rhs = build(variant), build(variant)
        ir.assert_structural_equal(lhs, rhs)
        assert ir.structural_hash(lhs) == ir.structural_hash(rhs)
        assert ir.structural_equal(lhs, rhs, enable_auto_mapping=True)
        assert ir.structural_hash(lhs, True) == ir.structural_hash(rhs, True)


# ---------------------------------------------------------------- variable mapping


def test_params_and_defs_map_positionally_without_auto_mapping() -> None:
    f, g = function(False), function(False)
    assert f.params[0] is not g.params[0]
    assert ir.structural_equal(f, g)


def test_renamed_function_and_variables_are_equal_and_hash_alike() -> None:
    x, y, z = ir.Var("p", I64), ir.Var("q", I64), ir.Var("r", I64)
    g = ir.Function("other", [x, y], [I64], seq(ir.AssignStmt(z, add(x, y)), ir.ReturnStmt([z])))
    f = function(False)
    assert ir.structural_equal(f, g)
    assert ir.structural_hash(f) == ir.structural_hash(g)
    assert ir.structural_equal(ir.Program([f], "p1"), ir.Program([g], "p2"))
    assert ir.structural_hash(ir.Program([f], "p1")) == ir.structural_hash(ir.Program([g], "p2"))


def test_swapped_params_differ() -> None:
    x, y, z = ir.Var("x", I64), ir.Var("y", I64), ir.Var("z", I64)
    g = ir.Function("f", [y, x], [I64], seq(ir.AssignStmt(z, add(x, y)), ir.ReturnStmt([z])))
    assert not ir.structural_equal(function(False), g)


def test_free_vars_need_auto_mapping() -> None:
    x, y = ir.Var("x", I64), ir.Var("y", I64)
    assert not ir.structural_equal(add(x, ci(1)), add(y, ci(1)))
    assert ir.structural_equal(add(x, ci(1)), add(y, ci(1)), enable_auto_mapping=True)
    assert ir.structural_equal(add(x, ci(1)), add(x, ci(1)))


def test_auto_mapping_is_consistent_in_both_directions() -> None:
    x, y, z = ir.Var("x", I64), ir.Var("y", I64), ir.Var("z", I64)
    assert not ir.structural_equal(add(x, x), add(y, z), enable_auto_mapping=True)
    assert not ir.structural_equal(add(y, z), add(x, x), enable_auto_mapping=True)
    assert ir.structural_equal(add(x, y), add(y, x), enable_auto_mapping=True)


def test_auto_mapping_requires_equal_types() -> None:
    x, y = ir.Var("x", I64), ir.Var("y", ir.ScalarType(ir.INT32))
    assert not ir.structural_equal(x, y, enable_auto_mapping=True)


def test_var_and_iter_arg_are_different_kinds() -> None:
    assert not ir.structural_equal(ir.Var("x", I64), ir.IterArg("x", I64, A), enable_auto_mapping=True)


def test_use_of_def_must_follow_the_mapping() -> None:
    x, y = ir.Var("x", I64), ir.Var("y", I64)
    lhs = seq(ir.AssignStmt(x, A), ir.EvalStmt(x))
    rhs = seq(ir.AssignStmt(y, A), ir.EvalStmt(A))
    assert not ir.structural_equal(lhs, rhs)
    assert not ir.structural_equal(lhs, rhs, enable_auto_mapping=True)


def test_reassigned_var_keeps_its_mapping() -> None:
    def build() -> ir.SeqStmts:
        x = ir.Var("x", I64)
        return seq(ir.AssignStmt(x, A), ir.AssignStmt(x, add(x, ci(1))))

    assert ir.structural_equal(build(), build())
    x, y = ir.Var("x", I64), ir.Var("y", I64)
    two_vars = seq(ir.AssignStmt(x, A), ir.AssignStmt(y, add(x, ci(1))))
    assert not ir.structural_equal(build(), two_vars)


def test_dynamic_dims_in_param_types_are_defined_by_the_params() -> None:
    def build() -> ir.Function:
        n = ir.Var("N", IDX)
        t = ir.Var("t", ir.TensorType([n, 16], ir.FP32))
        u = ir.Var("u", ir.TensorType([n, 16], ir.FP32))
        return ir.Function("f", [t], [u.type], seq(ir.AssignStmt(u, call("tensor.neg", [t], type=u.type)),
                                                  ir.ReturnStmt([u])))

    f, g = build(), build()
    assert ir.structural_equal(f, g)
    assert ir.structural_hash(f) == ir.structural_hash(g)


def test_while_condition_reads_iter_args() -> None:
    assert ir.structural_equal(while_loop(False, ""), while_loop(False, ""))


def test_loop_var_and_const_int_treat_index_as_int64() -> None:
    assert ir.structural_equal(ci(3, ir.INDEX), ci(3, ir.INT64))
    assert ir.structural_hash(ci(3, ir.INDEX)) == ir.structural_hash(ci(3, ir.INT64))
    assert not ir.structural_equal(ci(3, ir.INDEX), ci(3, ir.INT32))

    def loop(dtype: DataType) -> ir.ForStmt:
        i = ir.Var("i", ir.ScalarType(dtype))
        return ir.ForStmt(i, 0, 4, 1, [], seq(ir.EvalStmt(i)), [])

    assert ir.structural_equal(loop(ir.INDEX), loop(ir.INT64))
    assert ir.structural_hash(loop(ir.INDEX)) == ir.structural_hash(loop(ir.INT64))
    assert not ir.structural_equal(loop(ir.INDEX), loop(ir.INT32))
    assert not ir.structural_equal(IDX, I64)
    assert not ir.structural_equal(ir.Var("x", IDX), ir.Var("x", I64), enable_auto_mapping=True)


def test_shape_dims_compare_const_int_index_as_int64() -> None:
    assert ir.TensorType([ci(4, ir.INT64)], ir.FP32) == ir.TensorType([4], ir.FP32)


# ---------------------------------------------------------------- ignored fields


def test_spans_names_and_comments_are_ignored() -> None:
    span = ir.Span("k.py", 3, 4, 3, 9)

    def build(span: ir.Span, name: str, comment: list[str]) -> ir.Program:
        x = ir.Var(name, I64, span)
        z = ir.Var(name + "_z", I64, span)
        assign = ir.attach_leading_comments(ir.AssignStmt(z, ir.Add(x, ci(1), ir.INT64, span), span), comment)
        f = ir.Function(name, [x], [I64], ir.SeqStmts([assign, ir.ReturnStmt([z], span)], span), span)
        return ir.Program([f], name, span)

    lhs, rhs = build(ir.Span.unknown(), "a", []), build(span, "b", ["a comment"])
    ir.assert_structural_equal(lhs, rhs)
    assert ir.structural_hash(lhs) == ir.structural_hash(rhs)


def test_tensor_and_tile_memrefs_are_not_compared() -> None:
    one = ir.TileType([16, 16], ir.FP16, ir.MemRef("mem_vec_0", 0, 512))
    two = ir.TileType([16, 16], ir.FP16, ir.MemRef("mem_vec_3", 1024, 256))
    assert one.memory_space == two.memory_space == ir.Mem.Vec
    assert one == two
    assert hash(one) == hash(two)
    assert ir.TileType([16, 16], ir.FP16, None, None, ir.Mem.Vec) == one


def test_kwargs_compare_as_maps() -> None:
    lhs = call("f", [], kwargs={"a": 1, "b": ir.FP16})
    rhs = call("f", [], kwargs={"b": ir.FP16, "a": 1})
    assert ir.structural_equal(lhs, rhs)
    assert ir.structural_hash(lhs) == ir.structural_hash(rhs)
    assert not ir.structural_equal(call("f", [], kwargs={"a": 1}), call("f", [], kwargs={"a": 1.0}))


def test_nan_constants_are_equal() -> None:
    nan = float("nan")
    assert ir.structural_equal(ir.ConstFloat(nan, ir.FP32), ir.ConstFloat(nan, ir.FP32))
    assert ir.structural_hash(ir.ConstFloat(nan, ir.FP32)) == ir.structural_hash(ir.ConstFloat(nan, ir.FP32))


def test_none_against_node() -> None:
    assert not ir.structural_equal(None, A)
    assert ir.structural_equal(None, None)


# ---------------------------------------------------------------- assert message


def _patch_printer(monkeypatch: pytest.MonkeyPatch) -> None:
    def show(node: Any, *args: Any, **kwargs: Any) -> str:
        return f"<{type(node).__name__}>"

    def show_type(t: Any, *args: Any, **kwargs: Any) -> str:
        return f"<type {type(t).__name__}>"

    monkeypatch.setattr(printer_module, "python_print", show, raising=False)
    monkeypatch.setattr(printer_module, "python_print_type", show_type, raising=False)


def _main(value: ir.Expr) -> ir.Program:
    x, y, z = ir.Var("x", I64), ir.Var("y", I64), ir.Var("z", I64)
    body = seq(ir.AssignStmt(y, add(x, ci(1))), ir.AssignStmt(z, value), ir.ReturnStmt([z]))
    return ir.Program([ir.Function("main", [x], [I64], body)], "prog")


def test_assert_message_shows_path_both_sides_and_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    _patch_printer(monkeypatch)
    lhs = _main(ir.Mul(A, ci(2), ir.INT64))
    rhs = _main(ir.Add(A, ci(2), ir.INT64))
    with pytest.raises(ValueError) as info:
        ir.assert_structural_equal(lhs, rhs)
    assert str(info.value) == (
        "Structural equality assertion failed at: ['main'].body[1].value\n"
        "lhs:\n<Mul>\n"
        "rhs:\n<Add>\n"
        "Reason: node kinds differ: Mul vs Add"
    )


def test_assert_message_prints_the_innermost_nodes_around_a_value(monkeypatch: pytest.MonkeyPatch) -> None:
    _patch_printer(monkeypatch)
    lhs = seq(ir.EvalStmt(call("f", [], kwargs={"k": 1})))
    rhs = seq(ir.EvalStmt(call("f", [], kwargs={"k": 2})))
    with pytest.raises(ValueError) as info:
        ir.assert_structural_equal(lhs, rhs)
    assert str(info.value) == (
        "Structural equality assertion failed at: [0].expr.kwargs['k']\n"
        "lhs:\n<Call>\nrhs:\n<Call>\nReason: values differ: 1 vs 2"
    )


def test_assert_message_for_types_and_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    _patch_printer(monkeypatch)
    with pytest.raises(ValueError) as info:
        ir.assert_structural_equal(ir.TensorType([4], ir.FP32), ir.TensorType([4, 4], ir.FP32))
    assert str(info.value) == (
        "Structural equality assertion failed at: shape\n"
        "lhs:\n<type TensorType>\nrhs:\n<type TensorType>\nReason: lengths differ: 1 vs 2"
    )
    x, y = ir.Var("x", I64), ir.Var("y", I64)
    with pytest.raises(ValueError) as info:
        ir.assert_structural_equal(add(x, ci(1)), add(y, ci(1)))
    assert str(info.value) == (
        "Structural equality assertion failed at: left\n"
        "lhs:\n<Var>\nrhs:\n<Var>\n"
        "Reason: variables 'x' and 'y' are not mapped to each other "
        "(a free variable equals only itself unless enable_auto_mapping=True)"
    )


def test_assert_message_on_the_root(monkeypatch: pytest.MonkeyPatch) -> None:
    _patch_printer(monkeypatch)
    with pytest.raises(ValueError) as info:
        ir.assert_structural_equal(ir.BreakStmt(), ir.ContinueStmt())
    assert str(info.value) == (
        "Structural equality assertion failed at: <root>\n"
        "lhs:\n<BreakStmt>\nrhs:\n<ContinueStmt>\nReason: node kinds differ: BreakStmt vs ContinueStmt"
    )


def test_assert_message_uses_the_real_printer() -> None:
    with pytest.raises(ValueError) as info:
        ir.assert_structural_equal(_main(ir.Mul(A, ci(2), ir.INT64)), _main(ir.Add(A, ci(2), ir.INT64)))
    text = str(info.value)
    assert text.startswith("Structural equality assertion failed at: ['main'].body[1].value\nlhs:\n")
    assert text.endswith("\nReason: node kinds differ: Mul vs Add")


def test_assert_passes_silently_on_equal_input() -> None:
    assert ir.assert_structural_equal(function(False), function(False)) is None


# ---------------------------------------------------------------- types use structural == / hash


def test_types_compare_and_hash_structurally() -> None:
    assert ir.TensorType([64, 128], ir.FP32) == ir.TensorType([64, 128], ir.FP32)
    assert ir.TensorType([64, 128], ir.FP32) != ir.TensorType([64, 128], ir.FP16)
    assert len({ir.TensorType([64], ir.FP32), ir.TensorType([64], ir.FP32), ir.ScalarType(ir.FP32)}) == 2
    assert ir.TileView(valid_shape=[4, 4]) == ir.TileView(valid_shape=[4, 4])
    assert hash(ir.TileView(valid_shape=[4, 4])) == hash(ir.TileView(valid_shape=[4, 4]))
    assert ir.TensorView([1], ir.TensorLayout.DN) != ir.TensorView([1], ir.TensorLayout.ND)


# ---------------------------------------------------------------- properties

_LEAVES = st.sampled_from(["v0", "v1", "v2", "c0", "c1", "c7"])
_RECIPES = st.recursive(
    _LEAVES,
    lambda inner: st.tuples(st.sampled_from(["Add", "Sub", "Mul", "Min", "Neg", "Call"]), inner, inner),
    max_leaves=12,
)


def _build(recipe: Any, env: list[ir.Var]) -> ir.Expr:
    if isinstance(recipe, str):
        return env[int(recipe[1])] if recipe[0] == "v" else ci(int(recipe[1]))
    kind, lhs, rhs = recipe
    left, right = _build(lhs, env), _build(rhs, env)
    if kind == "Neg":
        return ir.Neg(left, ir.INT64)
    if kind == "Call":
        return call("f", [left, right], kwargs={"k": 1})
    return getattr(ir, kind)(left, right, ir.INT64)


def _as_function(recipe: Any) -> ir.Function:
    env = [ir.Var(f"p{i}", I64) for i in range(3)]
    out = ir.Var("out", I64)
    return ir.Function("f", env, [I64], seq(ir.AssignStmt(out, _build(recipe, env)), ir.ReturnStmt([out])))


@settings(max_examples=60, deadline=None)
@given(_RECIPES)
def test_property_rebuilt_functions_are_equal_and_hash_alike(recipe: Any) -> None:
    f, g = _as_function(recipe), _as_function(recipe)
    assert ir.structural_equal(f, g)
    assert ir.structural_hash(f) == ir.structural_hash(g)


@settings(max_examples=150, deadline=None)
@given(_RECIPES, _RECIPES, st.booleans())
def test_property_equal_implies_same_hash(r1: Any, r2: Any, auto: bool) -> None:
    env = [ir.Var(f"v{i}", I64) for i in range(3)]
    other = [ir.Var(f"w{i}", I64) for i in range(3)]
    for lhs, rhs in ((_build(r1, env), _build(r2, env)), (_build(r1, env), _build(r2, other))):
        if ir.structural_equal(lhs, rhs, enable_auto_mapping=auto):
            assert ir.structural_hash(lhs, auto) == ir.structural_hash(rhs, auto)
        assert ir.structural_equal(lhs, rhs, auto) == ir.structural_equal(rhs, lhs, auto)
    fa, fb = _as_function(r1), _as_function(r2)
    if r1 == r2:
        assert ir.structural_equal(fa, fb)
    if ir.structural_equal(fa, fb):
        assert ir.structural_hash(fa) == ir.structural_hash(fb)


def test_deep_trees_do_not_hit_the_recursion_limit() -> None:
    def chain(depth: int) -> ir.Expr:
        e: ir.Expr = A
        for i in range(depth):
            e = add(e, ci(i))
        return e

    deep_l, deep_r = chain(5000), chain(5000)
    assert ir.structural_equal(deep_l, deep_r)
    assert ir.structural_hash(deep_l) == ir.structural_hash(deep_r)
