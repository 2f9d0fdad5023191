"""The statement-rewriting framework (pypto.transform.rewrite): splicing, deletion, hoisting, scopes, the
remap (inside types too), identity of untouched nodes, and deep inputs."""

from __future__ import annotations

from typing import Any

import pytest
from front_programs import parse

from pypto import ir, passes
from pypto.ir.op_registry import OpValueError
from pypto.ir.transforms import transform
from pypto.transform.base import ProgramPass
from pypto.transform.rewrite import Result, Rewrite, RewritePass, on

INDEX = ir.ScalarType(ir.INDEX)


def c(v: int) -> ir.ConstInt:
    return ir.ConstInt(v, ir.INDEX)


def run(rewrite: Rewrite, body: ir.Stmt) -> ir.Stmt:
    rewrite.start()
    return rewrite.reblock(body, rewrite.block(ir.flatten_to_stmts(body)))


class Duplicate(Rewrite):
    """Every EvalStmt twice; every ReturnStmt deleted; every call hoisted into a temporary."""

    @on(ir.EvalStmt)
    def _eval(self, node: ir.EvalStmt) -> Result:
        return [node, node]

    @on(ir.ReturnStmt)
    def _return(self, node: ir.ReturnStmt) -> Result:
        return None

    @on(ir.Call)
    def _call(self, node: ir.Call) -> ir.Expr:
        tmp = ir.Var(f"t{self.names.number('t')}", node.type)
        self.emit(ir.AssignStmt(tmp, node))
        return tmp


def _block() -> tuple[ir.Var, ir.SeqStmts]:
    x, y = ir.Var("x", INDEX), ir.Var("y", INDEX)
    return x, ir.SeqStmts([ir.AssignStmt(y, x + 1), ir.EvalStmt(x), ir.ReturnStmt([y])])


def test_a_list_is_spliced_and_none_deletes() -> None:
    x, body = _block()
    new = run(Duplicate(), body)
    assert [type(s).__name__ for s in new.stmts] == ["AssignStmt", "EvalStmt", "EvalStmt"]
    assert new.stmts[0] is body.stmts[0] and new.stmts[1] is new.stmts[2] is body.stmts[1]


def test_emitted_statements_go_before_the_current_one_in_its_block() -> None:
    x, y = ir.Var("x", INDEX), ir.Var("y", INDEX)
    call = ir.Call(ir.Op("f"), [x], INDEX)
    loop = ir.ForStmt(ir.Var("i", INDEX), 0, 4, 1, [], ir.AssignStmt(y, call + 1))
    new = run(Duplicate(), ir.SeqStmts([ir.AssignStmt(x, c(1)), loop]))
    inner = new.stmts[1].body
    assert [type(s).__name__ for s in inner.stmts] == ["AssignStmt", "AssignStmt"]
    assert inner.stmts[0].var.name_hint == "t0" and inner.stmts[0].value is call
    assert inner.stmts[1].value.left is inner.stmts[0].var


def test_untouched_subtrees_are_the_same_objects() -> None:
    x, y = ir.Var("x", INDEX), ir.Var("y", INDEX)
    then = ir.SeqStmts([ir.AssignStmt(y, x * 2), ir.YieldStmt([y])])
    branch = ir.IfStmt(x < 3, then, ir.SeqStmts([ir.EvalStmt(x), ir.YieldStmt([x])]), [ir.Var("r", INDEX)])
    body = ir.SeqStmts([branch, ir.AssignStmt(ir.Var("z", INDEX), x)])
    assert run(Rewrite(), body) is body
    new = run(Duplicate(), body)
    assert new.stmts[0].then_body is then and new.stmts[1] is body.stmts[1]
    assert new.stmts[0].condition is branch.condition


class Ranges(Rewrite):
    """Records in the scoped environment the loop variable of each loop; reads it in the body."""

    @on(ir.ForStmt)
    def _for(self, node: ir.ForStmt) -> Result:
        return ir.replace(node, body=self.body(node.body, {"loop": node.loop_var.name_hint}))

    @on(ir.EvalStmt)
    def _eval(self, node: ir.EvalStmt) -> Result:
        self.seen.append((self.env.get("loop"), len(self.env.maps)))
        return node


def test_scopes_are_pushed_and_popped_automatically() -> None:
    i, j, x = ir.Var("i", INDEX), ir.Var("j", INDEX), ir.Var("x", INDEX)
    inner = ir.ForStmt(j, 0, 2, 1, [], ir.EvalStmt(x))
    outer = ir.ForStmt(i, 0, 2, 1, [], ir.SeqStmts([ir.EvalStmt(x), inner, ir.EvalStmt(x)]))
    ranges = Ranges()
    ranges.seen = []
    run(ranges, ir.SeqStmts([ir.EvalStmt(x), outer, ir.EvalStmt(x)]))
    assert ranges.seen == [(None, 1), ("i", 2), ("j", 3), ("i", 2), (None, 1)]


class Rename(Rewrite):
    """Binds ``n`` to 8 (types rewritten too)."""

    types = True

    @on(ir.AssignStmt)
    def _assign(self, node: ir.AssignStmt) -> Result:
        if node.var.name_hint == "n":
            self.bind(node.var, c(8))
            return None
        return self.children(node)


def test_the_remap_reaches_uses_and_types() -> None:
    n = ir.Var("n", INDEX)
    t = ir.Var("t", ir.TensorType([n, 4], ir.FP32))
    create = ir.Call(ir.Op("tensor.create"), [ir.MakeTuple([n, c(4)])], t.type)
    u = ir.Var("u", ir.TensorType([n, 4], ir.FP32))
    body = ir.SeqStmts([ir.AssignStmt(n, c(3)), ir.AssignStmt(t, create), ir.AssignStmt(u, t), ir.ReturnStmt([u])])
    new = run(Rename(), body)
    t2, u2 = new.stmts[0].var, new.stmts[1].var
    assert t2 is not t and t2.type == ir.TensorType([8, 4], ir.FP32)
    assert new.stmts[0].value.type == ir.TensorType([8, 4], ir.FP32)
    assert new.stmts[0].value.args[0].elements[0].value == 8
    assert new.stmts[1].value is t2 and new.stmts[2].value[0] is u2


class TypesKept(Rewrite):
    """No cases, types entered."""

    types = True


class Widen(Rewrite):
    """Every constant 4 becomes 5, inside types too."""

    types = True

    @on(ir.ConstInt)
    def _const(self, node: ir.ConstInt) -> ir.Expr:
        return c(5) if node.value == 4 else node


def test_values_and_types_left_untouched_are_rewritten_by_a_later_rewrite() -> None:
    # The first rewrite changes nothing (each value and type is kept as it is, without its walk);
    # rewrites with a handler or a remap meeting the same objects afterwards still reach inside them.
    n = ir.Var("n", INDEX)
    t = ir.Var("t", ir.TensorType([n, 4], ir.FP32))
    create = ir.Call(ir.Op("tensor.create"), [ir.MakeTuple([n, c(4)])], t.type)
    body = ir.SeqStmts([ir.AssignStmt(t, create), ir.ReturnStmt([t])])
    assert run(TypesKept(), body) is body
    widened = run(Widen(), body)
    assert widened.stmts[0].var.type == ir.TensorType([n, 5], ir.FP32)
    assert widened.stmts[0].value.type == ir.TensorType([n, 5], ir.FP32)
    assert widened.stmts[0].value.args[0].elements[1].value == 5
    renamed = run(Rename(), ir.SeqStmts([ir.AssignStmt(n, c(3)), *body.stmts]))
    assert renamed.stmts[0].var.type == ir.TensorType([8, 4], ir.FP32)
    assert renamed.stmts[0].value.type == ir.TensorType([8, 4], ir.FP32)


class Keep(RewritePass):
    """A pass with no cases."""


def test_a_pass_without_cases_returns_its_input() -> None:
    program = parse(
        """
        @pl.program
        class P:
            @pl.function
            def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
                acc: pl.Scalar[pl.INDEX] = 0
                for i in pl.range(n):
                    if i > 2:
                        acc = acc + i
                return acc
        """
    )
    assert Keep.name == "Keep"
    assert Keep()(program) is program


def test_handlers_are_inherited() -> None:
    class More(Duplicate):
        @on(ir.AssignStmt)
        def _assign(self, node: ir.AssignStmt) -> Result:
            return None

    x, body = _block()
    assert [type(s).__name__ for s in run(More(), body).stmts] == ["EvalStmt", "EvalStmt"]
    assert len(run(Duplicate(), body).stmts) == 3


# ---- deep inputs ---------------------------------------------------------------------------------


def _long_sum(x: ir.Var, terms: int) -> ir.Expr:
    e: ir.Expr = x
    for _ in range(terms - 1):
        e = ir.Add(e, x, ir.INDEX)
    return e


def test_the_kernel_needs_no_recursion() -> None:
    x, y = ir.Var("x", INDEX), ir.Var("y", INDEX)
    deep = _long_sum(x, 3_000)
    assert transform(deep) is deep
    swapped = transform(deep, enter=lambda n: y if n is x else None)
    assert ir.substitute_expr(deep, {x: y}).left.right is y and swapped.right is y


def _nested_ifs(x: ir.Var, depth: int) -> ir.Stmt:
    body: ir.Stmt = ir.EvalStmt(x)
    for d in range(depth):
        body = ir.IfStmt(x < d, ir.SeqStmts([ir.EvalStmt(_long_sum(x, 3)), body]))
    return body


def test_deep_statements_and_expressions_rewrite() -> None:
    x = ir.Var("x", INDEX)
    body = ir.SeqStmts([ir.EvalStmt(_long_sum(x, 2_000)), _nested_ifs(x, 150)])
    new = run(Duplicate(), body)
    assert len(new.stmts) == 3
    assert run(Rewrite(), body) is body


def _deep_program(terms: int, depth: int) -> ir.Program:
    x, y = ir.Var("x", INDEX), ir.Var("y", INDEX)
    body: ir.Stmt = ir.AssignStmt(y, y + 1)
    for d in range(depth):
        body = ir.IfStmt(x > d, ir.SeqStmts([ir.AssignStmt(y, y + d), body]))
    stmts = [ir.AssignStmt(y, _long_sum(x, terms)), body, ir.ReturnStmt([y])]
    return ir.Program([ir.Function("main", [x], [INDEX], ir.SeqStmts(stmts))], "Deep")


def test_a_deep_expression_goes_through_the_front_pipeline() -> None:
    program = _deep_program(1_000, 3)
    out = passes.PassManager.get_strategy(plugins=False).run(program)
    main: Any = out.get_function("main")
    assert isinstance(main.body, ir.SeqStmts)


class BadOp(RewritePass):
    """Builds an ill-typed op, with no span, for every assignment (as a buggy lowering would)."""

    @on(ir.AssignStmt)
    def _assign(self, node: ir.AssignStmt) -> Result:
        from pypto.ir import op_registry

        op_registry.create_op_call("tile.exp", [node.value], {})
        return node


def test_an_op_error_without_a_span_is_located_at_the_statement_being_rewritten() -> None:
    program = parse(
        """
        @pl.program
        class P:
            @pl.function
            def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
                acc: pl.Scalar[pl.INDEX] = n + 1
                return acc
        """
    )
    with pytest.raises(passes.PassError) as err:
        BadOp()(program)
    assert str(err.value) == (
        "BadOp: Operator 'tile.exp': argument 'tile' must be a Tile, got Scalar[index]\n"
        "  --> <string>:8:9\n"
        "  |\n"
        "8 |         acc: pl.Scalar[pl.INDEX] = n + 1\n"
        "  |         ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^")
    assert isinstance(err.value.__cause__, ir.IRTypeError)


class BadProgram(ProgramPass):
    """Raises an op error (with the span of the call it checked) from a whole-program pass."""

    def run(self, program: ir.Program) -> ir.Program:
        raise OpValueError("Operator 'tile.sub': requires compatible shapes", "tile.sub", program.span)


def test_an_op_error_escaping_a_pass_becomes_a_pass_error_naming_the_pass_and_the_place() -> None:
    program = parse(
        """
        @pl.program
        class P:
            @pl.function
            def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
                return n
        """
    )
    with pytest.raises(passes.PassError) as err:
        BadProgram()(program)
    assert str(err.value) == (
        "BadProgram: Operator 'tile.sub': requires compatible shapes\n"
        f"  --> {program.span}\n"
        "  |\n"
        "5 | class P:\n"
        "  | ^^^^^^^^")
    assert str(program.span).startswith("<string>:")


class _Rename(Rewrite):
    """Every variable named ``x`` read as ``y`` (a remap the return statement sees)."""

    @on(ir.AssignStmt)
    def _assign(self, node: ir.AssignStmt) -> Result:
        if node.var.name_hint != "y":
            return node
        self.bind(self.func.params[0], node.var)
        return node


def test_function_with_a_new_body_keeps_its_other_fields() -> None:
    # Only the body changed: the function is copied with it (and a return whose values changed is
    # copied with them), every other field the same object.
    x = ir.Var("x", INDEX)
    y = ir.Var("y", INDEX)
    ret = ir.ReturnStmt([x])
    body = ir.SeqStmts([ir.AssignStmt(y, c(1)), ret])
    func = ir.Function("f", [(x, ir.ParamDirection.In)], [INDEX], body, attrs={"split": ir.SplitMode.UP_DOWN})
    rewrite = _Rename()
    rewrite.start(func)
    new = rewrite.function(func)
    assert new is not func and new.body is not func.body
    for name in ("name", "params", "param_directions", "return_types", "func_type", "attrs", "span"):
        assert getattr(new, name) is getattr(func, name)
    new_ret = new.body.stmts[1]
    assert type(new_ret) is ir.ReturnStmt and new_ret.value[0] is y and new_ret.span is ret.span
    assert new.body.stmts[0] is func.body.stmts[0]
