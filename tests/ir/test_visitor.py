"""IRVisitor and IRMutator (spec/ir.md §10)."""

from __future__ import annotations

from typing import Any

import pytest

from pypto import ir
from pypto.ir.errors import IRTypeError
from pypto.ir.visitor import snake_case

I64 = ir.ScalarType(ir.INT64)
IDX = ir.ScalarType(ir.INDEX)


def ci(v: int, dtype: Any = ir.INT64) -> ir.ConstInt:
    return ir.ConstInt(v, dtype)


def build() -> dict[str, Any]:
    """``def f(x, n): acc_out = for i, (acc,) in range(n, init=(x,)): yield acc + i; while ...; return``."""
    n = ir.Var("n", IDX)
    x = ir.Var("x", I64)
    i = ir.Var("i", IDX)
    acc = ir.IterArg("acc", I64, x)
    s = ir.Var("s", I64)
    acc_out = ir.Var("acc_out", I64)
    loop = ir.ForStmt(
        i,
        0,
        n,
        1,
        [acc],
        ir.SeqStmts([ir.AssignStmt(s, ir.Add(acc, ci(1), ir.INT64)), ir.YieldStmt([s])]),
        [acc_out],
    )
    w = ir.IterArg("w", I64, acc_out)
    w_out = ir.Var("w_out", I64)
    wloop = ir.WhileStmt(ir.Lt(w, ci(10), ir.BOOL), [w], ir.SeqStmts([ir.YieldStmt([ir.Sub(w, ci(1), ir.INT64)])]),
                         [w_out])
    t = ir.Var("t", ir.TensorType([n], ir.FP32))
    call = ir.Call(ir.Op("tensor.full"), [x], {"k": 1}, {"extra": ci(5)}, t.type)
    body = ir.SeqStmts([loop, wloop, ir.AssignStmt(t, call), ir.ReturnStmt([w_out])])
    f = ir.Function("f", [x, n], [I64], body)
    return dict(f=f, n=n, x=x, i=i, acc=acc, s=s, loop=loop, wloop=wloop, w=w, call=call, body=body, t=t)


class Recorder(ir.IRVisitor):
    def __init__(self) -> None:
        super().__init__()
        self.seen: list[str] = []

    def visit_var(self, op: ir.Var) -> None:
        self.seen.append(op.name_hint)

    def visit_iter_arg(self, op: ir.IterArg) -> None:
        self.seen.append("iter:" + op.name_hint)
        super().visit_iter_arg(op)

    def visit_const_int(self, op: ir.ConstInt) -> None:
        self.seen.append(str(op.value))

    def visit_binary_expr(self, op: ir.BinaryExpr) -> None:
        self.seen.append(type(op).__name__)
        super().visit_binary_expr(op)


def test_visitor_walks_in_field_order() -> None:
    parts = build()
    rec = Recorder()
    rec.visit_function(parts["f"])
    assert rec.seen == [
        # params
        "x", "n",
        # for: loop var, range, iter_args (init value once), body, return vars
        "i", "0", "n", "1", "iter:acc", "x", "s", "Add", "iter:acc", "1", "s", "acc_out",
        # while: iter_args first, then condition, body, return vars
        "iter:w", "acc_out", "Lt", "iter:w", "10", "Sub", "iter:w", "1", "w_out",
        # assignment: target, then the call's args and attrs (not its type, not the op)
        "t", "x", "5",
        "w_out",
    ]  # fmt: skip


def test_visit_program_and_visit_dispatch() -> None:
    parts = build()
    rec = Recorder()
    rec.visit_program(ir.Program([parts["f"]], "p"))
    first = list(rec.seen)
    rec2 = Recorder()
    rec2.visit(parts["f"])
    assert first == rec2.seen and first[:2] == ["x", "n"]
    rec3 = Recorder()
    rec3.visit_stmt(parts["loop"])
    assert rec3.seen[:3] == ["i", "0", "n"]
    rec4 = Recorder()
    rec4.visit_expr(ir.Mul(parts["x"], ci(3), ir.INT64))
    assert rec4.seen == ["Mul", "x", "3"]


def test_specific_override_beats_abstract_override() -> None:
    class Adds(Recorder):
        def visit_add(self, op: ir.Add) -> None:
            self.seen.append("ADD!")

    rec = Adds()
    x = ir.Var("x", I64)
    rec.visit_expr(ir.Sub(ir.Add(x, x, ir.INT64), x, ir.INT64))
    assert rec.seen == ["Sub", "ADD!", "x"]


def test_var_handler_does_not_catch_iter_args() -> None:
    class Vars(ir.IRVisitor):
        def __init__(self) -> None:
            super().__init__()
            self.names: list[str] = []

        def visit_var(self, op: ir.Var) -> None:
            self.names.append(op.name_hint)

    v = Vars()
    v.visit_stmt(build()["loop"])
    assert v.names == ["i", "n", "x", "s", "s", "acc_out"]


def test_scope_statements_dispatch_to_their_own_and_abstract_handlers() -> None:
    class Scopes(ir.IRVisitor):
        def __init__(self) -> None:
            super().__init__()
            self.kinds: list[str] = []

        def visit_scope_stmt(self, op: ir.ScopeStmt) -> None:
            self.kinds.append(op.scope_kind.name)
            super().visit_scope_stmt(op)

        def visit_spmd_scope_stmt(self, op: ir.SpmdScopeStmt) -> None:
            self.kinds.append("spmd!")
            super().visit_spmd_scope_stmt(op)

    inner = ir.SpmdScopeStmt(4, body=ir.SeqStmts([ir.BreakStmt()]))
    outer = ir.InCoreScopeStmt(body=ir.SeqStmts([ir.ClusterScopeStmt(body=inner)]))
    v = Scopes()
    v.visit_stmt(outer)
    assert v.kinds == ["InCore", "Cluster", "spmd!"]


def test_snake_case_names() -> None:
    assert [snake_case(n) for n in ("ForStmt", "TupleGetItemExpr", "MemRef", "IRNode", "Add", "SplitAivScopeStmt")] == [
        "for_stmt",
        "tuple_get_item_expr",
        "mem_ref",
        "ir_node",
        "add",
        "split_aiv_scope_stmt",
    ]
    for name in ("visit_add", "visit_for_stmt", "visit_while_stmt", "visit_call", "visit_submit", "visit_iter_arg",
                 "visit_in_core_scope_stmt", "visit_tuple_get_item_expr", "visit_function", "visit_program"):
        assert callable(getattr(ir.IRVisitor, name)) and callable(getattr(ir.IRMutator, name))


# ---------------------------------------------------------------- mutator


def test_mutator_returns_the_same_objects_when_nothing_changes() -> None:
    parts = build()
    prog = ir.Program([parts["f"]], "p")
    assert ir.IRMutator().visit_program(prog) is prog
    assert ir.IRMutator().visit_stmt(parts["loop"]) is parts["loop"]


class BumpConstants(ir.IRMutator):
    def visit_const_int(self, op: ir.ConstInt) -> ir.Expr:
        return ir.ConstInt(op.value + 100, op.dtype, op.span) if op.value == 10 else op


def test_mutator_copies_only_the_path_to_a_change() -> None:
    parts = build()
    f = parts["f"]
    g = BumpConstants().visit_function(f)
    assert g is not f
    assert g.body[0] is f.body[0]  # the for loop is untouched and shared
    assert g.body[2] is f.body[2]
    assert g.body[1] is not f.body[1]
    assert g.body[1].condition.right.value == 110
    assert g.params == f.params


def test_mutator_renews_iter_args_whose_init_value_changes() -> None:
    parts = build()
    x, y = parts["x"], ir.Var("y", I64)

    class Rename(ir.IRMutator):
        def visit_var(self, op: ir.Var) -> ir.Expr:
            return y if op is x else op

    loop = Rename().visit_stmt(parts["loop"])
    (acc,) = loop.iter_args
    assert acc is not parts["acc"] and acc.initValue is y and acc.name_hint == "acc"
    assert loop.body[0].value.left is acc
    assert loop.return_vars[0] is parts["loop"].return_vars[0]


def test_mutator_renews_while_iter_args_before_the_condition() -> None:
    parts = build()
    old = parts["wloop"].iter_args[0].initValue
    new_init = ir.Var("z", I64)

    class Rename(ir.IRMutator):
        def visit_var(self, op: ir.Var) -> ir.Expr:
            return new_init if op is old else op

    wloop = Rename().visit_stmt(parts["wloop"])
    (w,) = wloop.iter_args
    assert w.initValue is new_init
    assert wloop.condition.left is w and wloop.body[0].value[0].left is w


def test_mutator_rewrites_kwargs_and_attrs_expressions() -> None:
    class Five(ir.IRMutator):
        def visit_const_int(self, op: ir.ConstInt) -> ir.Expr:
            return ci(6) if op.value == 5 else op

    call = Five().visit_expr(build()["call"])
    assert call.attrs["extra"].value == 6 and call.kwargs == {"k": 1}


def test_mutator_result_is_validated() -> None:
    class Bad(ir.IRMutator):
        def visit_assign_stmt(self, op: ir.AssignStmt) -> ir.Stmt:
            return ir.AssignStmt(ci(1), op.value)

    with pytest.raises(IRTypeError, match="^AssignStmt: field 'var': Input should be an instance of Var"):
        Bad().visit_function(build()["f"])

    class WrongKind(ir.IRMutator):
        def visit_const_int(self, op: ir.ConstInt) -> Any:
            return ir.BreakStmt()

    with pytest.raises(IRTypeError, match="^Add: field 'right': Input should be an instance of Expr"):
        WrongKind().visit_expr(ir.Add(build()["x"], ci(1), ir.INT64))


def test_subclasses_need_not_call_the_base_constructor() -> None:
    class Count(ir.IRVisitor):
        def __init__(self) -> None:
            self.iter_args = 0

        def visit_iter_arg(self, op: ir.IterArg) -> None:
            self.iter_args += 1
            super().visit_iter_arg(op)

    counter = Count()
    counter.visit_stmt(build()["loop"])
    assert counter.iter_args == 2

    y = ir.Var("y", I64)

    class Rename(ir.IRMutator):
        def __init__(self, old: ir.Var) -> None:
            self.old = old

        def visit_var(self, op: ir.Var) -> ir.Expr:
            return y if op is self.old else op

    parts = build()
    loop = Rename(parts["x"]).visit_stmt(parts["loop"])
    assert loop.iter_args[0].initValue is y and loop.body[0].value.left is loop.iter_args[0]
