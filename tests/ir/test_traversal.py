"""Generic child access: child_fields, iter_children, map_children."""

from __future__ import annotations

from typing import Any

import pytest

from pypto import ir
from pypto.ir.errors import IRTypeError
from pypto.ir.node import ModelBase
from pypto.ir.traversal import child_fields, iter_children, map_children

I64 = ir.ScalarType(ir.INT64)
IDX = ir.ScalarType(ir.INDEX)


def test_child_fields_of_every_kind() -> None:
    assert child_fields(ir.Add) == ("left", "right")
    assert child_fields(ir.Neg) == ("operand",)
    assert child_fields(ir.ConstInt) == ()
    assert child_fields(ir.Var) == ("type",)
    assert child_fields(ir.IterArg) == ("type", "initValue")
    assert child_fields(ir.MemRef) == ("base_", "byte_offset_")
    assert child_fields(ir.Call) == ("type", "op", "args", "kwargs", "attrs")
    assert child_fields(ir.Submit) == ("type", "op", "args", "deps", "kwargs", "attrs", "core_num", "predicate")
    assert child_fields(ir.MakeTuple) == ("elements",)
    assert child_fields(ir.TupleGetItemExpr) == ("tuple",)
    assert child_fields(ir.ForStmt) == (
        "loop_var", "start", "stop", "step", "iter_args", "body", "return_vars", "attrs"
    )
    assert child_fields(ir.WhileStmt) == ("condition", "iter_args", "body", "return_vars")
    assert child_fields(ir.IfStmt) == ("condition", "then_body", "else_body", "return_vars")
    assert child_fields(ir.SeqStmts) == ("stmts",)
    assert child_fields(ir.SpmdScopeStmt) == ("body", "attrs", "core_num")
    assert child_fields(ir.BreakStmt) == ()
    assert child_fields(ir.InlineStmt) == ()
    assert child_fields(ir.Function) == ("params", "return_types", "body", "attrs")
    assert child_fields(ir.Program) == ("functions",)
    assert child_fields(ir.TensorType) == ("shape", "memref", "tensor_view")
    assert child_fields(ir.TileType) == ("shape", "memref", "tile_view")
    assert child_fields(ir.TileView) == ("valid_shape", "stride", "start_offset")
    assert child_fields(ir.TensorView) == ("stride", "valid_shape")
    assert child_fields(ir.TupleType) == ("types",)
    assert child_fields(ir.ArrayType) == ("extent",)
    assert child_fields(ir.ScalarType) == ()


def test_iter_children_flattens_containers_in_field_order() -> None:
    x = ir.Var("x", I64)
    t = ir.TensorType([4], ir.FP32)
    k = ir.ConstInt(3, ir.INT64)
    call = ir.Call(ir.Op("f"), [x, x], {"a": 1}, {"e": k, "l": [x, (k,)]}, t)
    assert [type(c).__name__ for c in iter_children(call)] == ["TensorType", "Op", "Var", "Var", "ConstInt", "Var",
                                                               "ConstInt"]
    assert list(iter_children(k)) == []


def _identity(node: ModelBase) -> ModelBase:
    return node


def _deep(node: Any, old: ir.Var, new: ir.Expr) -> Any:
    def fn(c: Any) -> Any:
        return new if c is old else map_children(c, fn)

    return fn(node)


def test_map_children_returns_the_node_itself_when_nothing_changes() -> None:
    x = ir.Var("x", I64)
    nodes: list[ModelBase] = [
        ir.Add(x, x, ir.INT64),
        ir.Call(ir.Op("f"), [x], {"k": 1}, {"e": [x]}, ir.TensorType([x], ir.FP32)),
        ir.SeqStmts([ir.EvalStmt(x)]),
        ir.TileType([16, 16], ir.FP16, ir.MemRef("mem_vec_0", 0, 64), ir.TileView(stride=[16, 1])),
        ir.Function("f", [x], [], ir.SeqStmts([])),
        ir.Program([ir.Function("f", [x], [], ir.SeqStmts([]))], "p"),
        x,
        ir.IterArg("a", I64, x),
    ]
    for node in nodes:
        assert map_children(node, _identity) is node


def test_map_children_rebuilds_through_the_constructor() -> None:
    x, y = ir.Var("x", I64), ir.Var("y", I64)
    n, m = ir.Var("n", IDX), ir.Var("m", IDX)
    add = ir.Add(x, ir.ConstInt(1, ir.INT64), ir.INT64)
    new = _deep(add, x, y)
    assert new.left is y and new.right is add.right and new.dtype == ir.INT64 and new.type == I64

    tile = ir.TileType([n, 16], ir.FP16, ir.MemRef("mem_vec_0", 0, 512), ir.TileView(valid_shape=[n, 8]))
    new_tile = _deep(tile, n, m)
    assert new_tile.shape[0] is m and new_tile.tile_view.valid_shape[0] is m
    assert new_tile.memory_space == ir.Mem.Vec and new_tile.memref is tile.memref

    call = ir.Call(ir.Op("f"), [x], {"k": 1}, {"e": [x], "t": (x,)}, ir.TensorType([n], ir.FP32))
    new_call = _deep(call, x, y)
    assert new_call.args == [y] and new_call.attrs["e"][0] is y and new_call.attrs["t"] == (y,)
    assert new_call.type is call.type and new_call.kwargs == {"k": 1}


def test_map_children_keeps_comments_and_derived_fields() -> None:
    x, y = ir.Var("x", I64), ir.Var("y", I64)
    stmt = ir.attach_leading_comments(ir.EvalStmt(x, ir.Span("a.py", 2, 1)), ["note"])
    new = _deep(stmt, x, y)
    assert new.expr is y and new.leading_comments == ["note"] and new.span.begin_line == 2

    f = ir.Function("k", [(x, ir.ParamDirection.Out)], [], ir.SeqStmts([stmt]), type=ir.FunctionType.InCore)
    g = _deep(f, x, y)
    assert g.params == [y] and g.param_directions == [ir.ParamDirection.Out]
    assert (g.func_type, g.level, g.role) == (ir.FunctionType.InCore, ir.Level.CHIP_DIE, ir.Role.SubWorker)


def test_variables_are_leaves_for_rebuilding() -> None:
    x, y = ir.Var("x", I64), ir.Var("y", I64)
    ia = ir.IterArg("a", I64, x)
    assert map_children(ia, lambda c: y if c is x else c) is ia
    assert list(iter_children(ia)) == [I64, x]


def test_program_rebuild_renames_global_vars() -> None:
    f = ir.Function("f", [], [], ir.SeqStmts([]))
    prog = ir.Program([f], "p")
    new = map_children(prog, lambda c: ir.replace(c, name="g") if isinstance(c, ir.Function) else c)
    assert [gv.name for gv in new.functions] == ["g"] and new.name == "p"


def test_map_children_validates_the_result() -> None:
    x = ir.Var("x", I64)
    with pytest.raises(IRTypeError) as info:
        map_children(ir.AssignStmt(x, x), lambda c: ir.BreakStmt())
    assert str(info.value) == (
        "AssignStmt: field 'var': Input should be an instance of Var (got BreakStmt)\n"
        "AssignStmt: field 'value': Input should be an instance of Expr (got BreakStmt)"
    )
