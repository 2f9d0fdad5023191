"""IR helpers of spec/ir.md §10: flatten, def collection, yields, substitution, deep_clone, parents."""

from __future__ import annotations

from typing import Any, Iterator

import pytest
from typeguard import suppress_type_checks

from pypto import ir
from pypto.ir.errors import IRTypeError
from pypto.ir.node import ModelBase
from pypto.ir.datatype import DataType
from pypto.ir.transforms import copy_children, transform
from pypto.ir.traversal import iter_children

I64 = ir.ScalarType(ir.INT64)
IDX = ir.ScalarType(ir.INDEX)


def ci(v: int, dtype: Any = ir.INT64) -> ir.ConstInt:
    return ir.ConstInt(v, dtype)


def build() -> dict[str, Any]:
    n = ir.Var("n", IDX)
    x = ir.Var("x", I64)
    t = ir.Var("t", ir.TensorType([n, 4], ir.FP32))
    i = ir.Var("i", IDX)
    acc = ir.IterArg("acc", I64, x)
    s = ir.Var("s", I64)
    acc_out = ir.Var("acc_out", I64)
    inner_yield = ir.YieldStmt([s])
    loop = ir.ForStmt(
        i, 0, n, 1, [acc], ir.SeqStmts([ir.AssignStmt(s, ir.Add(acc, x, ir.INT64)), inner_yield]), [acc_out]
    )
    r = ir.Var("r", I64)
    branch = ir.IfStmt(
        ir.Lt(acc_out, ci(0), ir.BOOL), ir.SeqStmts([ir.YieldStmt([x])]), ir.SeqStmts([ir.YieldStmt([acc_out])]), [r]
    )
    u = ir.Var("u", ir.TensorType([n, 4], ir.FP32))
    assign_u = ir.AssignStmt(u, ir.Call(ir.Op("tensor.neg"), [t], u.type))
    ret = ir.ReturnStmt([u])
    body = ir.SeqStmts([loop, ir.SeqStmts([branch, assign_u]), ret])
    f = ir.Function("f", [x, n, t], [u.type], body)
    return dict(locals())


def ir_objects(node: Any) -> Iterator[ModelBase]:
    todo, seen = [node], set()
    while todo:
        n = todo.pop()
        if id(n) in seen:
            continue
        seen.add(id(n))
        yield n
        todo.extend(iter_children(n))


# ---------------------------------------------------------------- flatten / collect / yields


def test_flatten_to_stmts_splices_nested_blocks() -> None:
    p = build()
    assert ir.flatten_to_stmts(p["body"]) == [p["loop"], p["branch"], p["assign_u"], p["ret"]]
    assert ir.flatten_to_stmts(p["ret"]) == [p["ret"]]
    assert ir.flatten_to_stmts(ir.SeqStmts([ir.SeqStmts([])])) == []


def test_collect_def_vars_in_binding_order() -> None:
    p = build()
    names = [v.name_hint for v in ir.collect_def_vars(p["f"])]
    assert names == ["x", "n", "t", "i", "acc", "s", "acc_out", "r", "u"]
    assert [v.name_hint for v in ir.collect_def_vars(p["body"])] == ["i", "acc", "s", "acc_out", "r", "u"]


def test_collect_def_vars_reports_a_reassigned_var_once() -> None:
    x = ir.Var("x", I64)
    w = ir.IterArg("w", I64, x)
    w_out = ir.Var("w_out", I64)
    body = ir.SeqStmts(
        [
            ir.AssignStmt(x, ci(1)),
            ir.AssignStmt(x, ir.Add(x, ci(1), ir.INT64)),
            ir.WhileStmt(ir.Lt(w, ci(3), ir.BOOL), [w], ir.SeqStmts([ir.YieldStmt([w])]), [w_out]),
        ]
    )
    assert [v.name_hint for v in ir.collect_def_vars(body)] == ["x", "w", "w_out"]


def test_find_and_last_yield() -> None:
    p = build()
    loop_body = p["loop"].body
    assert ir.find_yield_stmt(loop_body) is p["inner_yield"]
    assert ir.get_last_yield_stmt(loop_body) is p["inner_yield"]
    # yields of nested control flow belong to it
    assert ir.find_yield_stmt(p["body"]) is None
    assert ir.get_last_yield_stmt(p["body"]) is None
    y = ir.YieldStmt([p["x"]])
    scoped = ir.SeqStmts([ir.InCoreScopeStmt(body=ir.SeqStmts([ir.EvalStmt(p["x"]), y]))])
    assert ir.find_yield_stmt(scoped) is y and ir.get_last_yield_stmt(scoped) is y
    early = ir.SeqStmts([y, ir.EvalStmt(p["x"])])
    assert ir.find_yield_stmt(early) is y and ir.get_last_yield_stmt(early) is None
    assert ir.get_last_yield_stmt(ir.SeqStmts([])) is None
    assert ir.get_last_yield_stmt(y) is y


# ---------------------------------------------------------------- substitution


def test_substitute_expr_replaces_vars_and_shares_the_rest() -> None:
    x, y, z = ir.Var("x", I64), ir.Var("y", I64), ir.Var("z", I64)
    keep = ir.Mul(z, ci(2), ir.INT64)
    e = ir.Add(ir.Add(x, ci(1), ir.INT64), keep, ir.INT64)
    new = ir.substitute_expr(e, {x: y})
    assert new.left.left is y and new.right is keep
    assert ir.substitute_expr(e, {}) is e
    assert ir.substitute_expr(x, {x: ci(4)}).value == 4


def test_substitute_reaches_types_of_calls() -> None:
    p = build()
    m = ir.Var("m", IDX)
    stmt = ir.substitute_stmt(p["assign_u"], {p["n"]: m})
    assert stmt.value.type.shape[0] is m
    assert stmt.var is p["u"]  # variables are identities: their own types are not rewritten


def test_substitute_stmt_renews_iter_args_consistently() -> None:
    p = build()
    y = ir.Var("y", I64)
    loop = ir.substitute_stmt(p["loop"], {p["x"]: y})
    (acc,) = loop.iter_args
    assert acc is not p["acc"] and acc.initValue is y
    assert loop.body[0].value.left is acc and loop.body[0].value.right is y
    assert loop.loop_var is p["i"] and loop.return_vars[0] is p["acc_out"]


def test_substitute_stmt_replaces_def_positions() -> None:
    p = build()
    s2 = ir.Var("s2", I64)
    loop = ir.substitute_stmt(p["loop"], {p["s"]: s2})
    assert loop.body[0].var is s2 and loop.body[1].value == [s2]


def test_substitution_mapping_is_checked() -> None:
    message = "^substitution mapping must be Var -> Expr, got str -> ConstInt$"
    with suppress_type_checks(), pytest.raises(IRTypeError, match=message):
        ir.substitute_expr(ci(1), {"x": ci(1)})  # type: ignore[dict-item]


# ---------------------------------------------------------------- deep_clone


def test_deep_clone_is_equal_and_shares_no_statement_or_expression() -> None:
    p = build()
    f = p["f"]
    g = ir.deep_clone(f)
    ir.assert_structural_equal(f, g)
    old = {id(o) for o in ir_objects(f) if isinstance(o, (ir.Expr, ir.Stmt, ir.Function))}
    new = [o for o in ir_objects(g) if isinstance(o, (ir.Expr, ir.Stmt, ir.Function))]
    assert [o for o in new if id(o) in old] == []


def test_deep_clone_uses_fresh_vars_consistently() -> None:
    p = build()
    g = ir.deep_clone(p["f"])
    x, n, t = g.params
    assert x is not p["x"] and x.name_hint == "x"
    assert t.type.shape[0] is n
    loop = g.body[0]
    assert loop.stop is n and loop.iter_args[0].initValue is x
    assert loop.body[0].value.left is loop.iter_args[0]
    assert g.body[1][1].value.type.shape[0] is n and g.body[1][1].value.args[0] is t
    assert g.body[2].value[0] is g.body[1][1].var


def test_deep_clone_keeps_free_vars_and_applies_var_map() -> None:
    p = build()
    body = p["loop"]  # x and n are free here
    clone = ir.deep_clone(body)
    assert clone.stop is p["n"] and clone.iter_args[0].initValue is p["x"]
    assert clone.loop_var is not p["i"] and clone.iter_args[0] is not p["acc"]
    bound = ir.deep_clone(body, {p["x"]: ci(7), p["n"]: ci(16, ir.INDEX)})
    assert bound.stop.value == 16 and bound.iter_args[0].initValue.value == 7
    assert bound.body[0].value.right.value == 7


def test_deep_clone_preserves_internal_sharing_and_reassignment() -> None:
    x = ir.Var("x", I64)
    twice = ir.Add(x, x, ir.INT64)
    body = ir.SeqStmts([ir.AssignStmt(x, ci(1)), ir.AssignStmt(x, twice), ir.EvalStmt(twice)])
    clone = ir.deep_clone(body)
    new_x = clone[0].var
    assert new_x is not x and clone[1].var is new_x
    assert clone[1].value.left is new_x and clone[1].value.left is clone[1].value.right
    assert clone[2].expr is clone[1].value


def test_deep_clone_copies_every_node_field_for_field() -> None:
    # Nodes whose children were copied are rebuilt without validating them again: every plain field
    # (spans, dtypes, loop kinds, derived types) still comes over.
    f = build()["f"]
    g = ir.deep_clone(f)
    pairs = list(zip(ir_objects(f), ir_objects(g)))
    assert len(pairs) == len(list(ir_objects(f))) == len(list(ir_objects(g)))
    for old, new in pairs:
        assert type(old) is type(new) and old.__dict__.keys() == new.__dict__.keys()
        plain = {k for k, v in old.__dict__.items() if not isinstance(v, (ModelBase, list)) and k != "unique_id"}
        assert {k: new.__dict__[k] for k in plain} == {k: old.__dict__[k] for k in plain}


def test_deep_clone_rebuilds_tuples_and_shaped_types_of_fresh_variables() -> None:
    # Tuples, tensor and tile types (views included) are copied without validating them again: a
    # tuple's type is made anew from its new elements', a type over a fresh variable mentions it.
    n = ir.Var("n", IDX)
    v = ir.Var("v", ir.TileType([n, 16], ir.FP32, memory_space=ir.MemorySpace.Vec,
                                tile_view=ir.TileView(valid_shape=[n, 8], blayout=ir.TileLayout.row_major)))
    pair = ir.MakeTuple([v, ci(3, ir.INDEX)])
    body = ir.SeqStmts([ir.AssignStmt(n, ci(4, ir.INDEX)), ir.AssignStmt(v, ir.Call(ir.Op("tile.neg"), [v], v.type)),
                        ir.EvalStmt(pair)])
    clone = ir.deep_clone(body)
    ir.assert_structural_equal(body, clone)
    new_n, new_v, new_pair = clone[0].var, clone[1].var, clone[2].expr
    assert new_v.type.shape[0] is new_n and new_v.type.tile_view.valid_shape[0] is new_n
    assert new_pair.elements[0] is new_v and new_pair.type.types[0] is new_v.type
    assert new_pair.type.types[1] is pair.type.types[1]
    # A var_map of variables of the same class and type copies the same way.
    m = ir.Var("m", IDX)
    w = ir.Var("w", ir.TensorType([m, 4], ir.FP32))
    use = ir.EvalStmt(ir.MakeTuple([w, m]))
    w2 = ir.Var("w2", w.type)
    mapped = ir.deep_clone(use, {w: w2})
    assert mapped.expr.elements[0] is w2 and mapped.expr.elements[1] is m
    assert mapped.expr.type.types == [w.type, m.type]


def test_deep_clone_normalises_a_view_whose_dimensions_a_var_map_merged() -> None:
    # f(k, k) maps n and m to one variable: a valid_shape [m, 64] of a [n, 64] tensor becomes its
    # shape, which the constructor drops (the clone equals the type built afresh).
    n, m = ir.Var("n", IDX), ir.Var("m", IDX)
    view = ir.TensorView(valid_shape=[m, ci(64, ir.INDEX)], layout=ir.TensorLayout.ND)
    t = ir.TensorType([n, 64], ir.FP32, tensor_view=view)
    clone = ir.deep_clone(ir.AssignStmt(ir.Var("x", t), ir.Var("p", t)), {m: n})
    assert clone.var.type.tensor_view is None
    assert clone.var.type == ir.TensorType([n, 64], ir.FP32)


def test_deep_clone_of_a_program() -> None:
    p = build()
    prog = ir.Program([p["f"]], "prog")
    clone = ir.deep_clone(prog)
    ir.assert_structural_equal(prog, clone)
    assert clone.get_function("f").params[0] is not p["x"]


# ---------------------------------------------------------------- parents


def test_parent_stmt_analysis() -> None:
    p = build()
    analysis = ir.ParentStmtAnalysis(p["f"])
    assert analysis.get_parent(p["loop"]) is p["body"]
    assert analysis.get_parent(p["branch"]) is p["body"][1]
    assert analysis.get_parent(p["inner_yield"]) is p["loop"].body
    assert analysis.get_parent(p["loop"].body) is p["loop"]
    assert analysis.get_parent(p["branch"].else_body) is p["branch"]
    assert not analysis.has_parent(p["body"]) and analysis.get_parent(p["body"]) is None
    assert analysis.has_parent(p["ret"])
    stranger = ir.BreakStmt()
    assert analysis.get_parent(stranger) is None and not analysis.has_parent(stranger)
    later = ir.ParentStmtAnalysis()
    later.build_map(p["loop"])
    assert later.get_parent(p["inner_yield"]) is p["loop"].body and not later.has_parent(p["ret"])


def test_deep_clone_gives_a_defined_memref_a_fresh_object() -> None:
    buf = ir.MemRef("mem_vec_0", 0, 1024)
    stmt = ir.SeqStmts([ir.AssignStmt(buf, ir.MemRef("mem_vec_1", 0, 1024))])
    copy = ir.deep_clone(stmt)
    new = copy.stmts[0].var
    assert isinstance(new, ir.MemRef) and new is not buf
    assert (new.name_hint, new.size_) == ("mem_vec_0", 1024)
    ir.assert_structural_equal(copy, stmt)


def test_replace_takes_a_public_field_spelling() -> None:
    from pypto.ir.node import replace

    tile = ir.TileType([16, 32], ir.FP32, None, None, ir.MemorySpace.Vec)
    moved = replace(tile, memory_space=ir.MemorySpace.Mat)
    assert moved.memory_space is ir.MemorySpace.Mat and tile.memory_space is ir.MemorySpace.Vec
    assert replace(tile, memory_space_=ir.MemorySpace.Left).memory_space is ir.MemorySpace.Left


def test_copy_children_copies_calls_and_submits_whose_children_keep_their_classes() -> None:
    # A call or submit whose changed children are of the classes they replace is copied (the copy
    # equals the one its constructor builds); a child of another class goes through the constructor,
    # which still refuses a malformed one.
    x, y = ir.Var("x", IDX), ir.Var("y", IDX)
    t = ir.TupleType([IDX, ir.ScalarType(DataType.TASK_ID)])
    submit = ir.Submit(ir.GlobalVar("k"), [x, ci(1, ir.INDEX)], [], {}, {}, t, core_num=ci(2, ir.INDEX),
                       sync_start=True)
    renamed = ir.substitute_expr(submit, {x: y})
    copied = transform(submit, lambda n: y if n is x else None, types=False, memo={}, rebuild=copy_children)
    ir.assert_structural_equal(copied, renamed)
    assert copied.args[0] is y and copied.core_num is submit.core_num and copied.sync_start
    call = ir.Call(ir.Op("tensor.neg"), [x], IDX)
    assert copy_children(call, lambda n: y if n is x else n).args == [y]
    with pytest.raises(IRTypeError):
        copy_children(call, lambda n: IDX if n is x else n)  # a type where an expression goes
