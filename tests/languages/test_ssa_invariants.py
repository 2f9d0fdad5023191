"""SSAForm and UseAfterDef: one violating program per rule, and accepted programs."""

from __future__ import annotations

import textwrap

from inv_helpers import INDEX, found, prog, single, with_body
from pypto.languages.invariants import SSAForm, UseAfterDef

import pypto.language as pl
from pypto import ir, passes

_SPAN = ir.Span.unknown()


def _loop(iter_args: list[ir.IterArg], body: list[ir.Stmt], return_vars: list[ir.Var]) -> ir.ForStmt:
    return ir.ForStmt(ir.Var("i", INDEX), 0, 4, 1, iter_args, ir.SeqStmts(body, _SPAN), return_vars, _SPAN)


def test_multiple_assignment_and_missing_yield() -> None:
    program = prog(
        """
        @pl.program
        class A:
            @pl.function
            def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
                x: pl.Scalar[pl.INDEX] = 1
                if n > 0:
                    x = x + n
                for (k,) in pl.while_(init_values=(x,)):
                    pl.cond(k < 10)
                    k = k + 1
                return x
        """
    )
    assert found(SSAForm, program) == [
        ("MULTIPLE_ASSIGNMENT", "variable 'x' is defined more than once", "x: pl.Scalar[pl.INDEX] = x + n"),
        (
            "ITER_ARGS_RETURN_VARS_MISMATCH",
            "1 iter_args but 0 return vars",
            "for (k,) in pl.while_(init_values=(x,)): ...",
        ),
        ("MULTIPLE_ASSIGNMENT", "variable 'k' is defined more than once", "k: pl.Scalar[pl.INDEX] = k + 1"),
        ("MISSING_YIELD", "a loop body does not end with a yield", "for (k,) in pl.while_(init_values=(x,)): ..."),
    ]
    (first, *_) = SSAForm.check(program)
    assert (first.rule, first.function, first.span.begin_line, first.span.begin_column) == ("SSAForm", "main", 9, 13)


def test_a_straight_line_reassignment_is_a_new_variable_in_ssa_form() -> None:
    program = prog(
        """
        @pl.program
        class A:
            @pl.function
            def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
                x: pl.Scalar[pl.INDEX] = 1
                x = x + n
                n = n * x
                return n
        """
    )
    assert found(SSAForm, program) == []


def test_name_shadowing() -> None:
    program = prog(
        """
        @pl.program
        class A:
            @pl.function
            def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
                x: pl.Scalar[pl.INDEX] = n
                for i, (x,) in pl.range(3, init_values=(x,)):
                    x2 = pl.yield_(x + 1)
                return x2
        """
    )
    assert [(c, m) for c, m, _ in found(SSAForm, program)] == [
        ("NAME_SHADOWING", "'x' shadows another variable of the same name"),
    ]


def test_yield_count_misplaced_yield_and_scope() -> None:
    n = ir.Var("n", INDEX)
    acc = ir.IterArg("acc", INDEX, n)
    rv = ir.Var("rv", INDEX)
    early = ir.YieldStmt([acc])
    loop = _loop([acc], [early, ir.YieldStmt([acc, n])], [rv])
    program = single("main", [n], ir.SeqStmts([loop, ir.ReturnStmt([acc])], _SPAN), [INDEX])
    assert found(SSAForm, program) == [
        ("MISPLACED_YIELD", "a yield that is not the last statement of its block", "pl.yield_(acc)"),
        ("YIELD_COUNT_MISMATCH", "a loop body yields 2 values for 1 carried values", "pl.yield_(acc, n)"),
        ("SCOPE_VIOLATION", "'acc' is used outside the scope that defines it", "return acc"),
    ]


def test_assignments_in_nested_blocks_report_each_rule() -> None:
    # The walker checks an assignment in its block directly when nothing can be wrong with it; each
    # way one can be wrong is reported as by the general path, and a name whose scope closed is free.
    n = ir.Var("n", INDEX)
    x, inner_x, t, late_t, z = (ir.Var(name, INDEX) for name in ("x", "x", "t", "t", "z"))
    acc = ir.IterArg("acc", INDEX, n)
    rv = ir.Var("rv", INDEX)
    body = [
        ir.AssignStmt(inner_x, acc + 1, _SPAN),  # shadows the outer x
        ir.AssignStmt(t, inner_x, _SPAN),
        ir.AssignStmt(t, t + 1, _SPAN),  # t again
        ir.YieldStmt([t]),
    ]
    stmts = [
        ir.AssignStmt(x, n, _SPAN),
        _loop([acc], body, [rv]),
        ir.AssignStmt(z, t + rv, _SPAN),  # t is the loop body's
        ir.AssignStmt(late_t, z, _SPAN),  # a new t: the loop's scope is closed
        ir.ReturnStmt([late_t]),
    ]
    program = single("main", [n], ir.SeqStmts(stmts, _SPAN), [INDEX])
    assert found(SSAForm, program) == [
        ("NAME_SHADOWING", "'x' shadows another variable of the same name", "x: pl.Scalar[pl.INDEX] = acc + 1"),
        ("MULTIPLE_ASSIGNMENT", "variable 't' is defined more than once", "t: pl.Scalar[pl.INDEX] = t + 1"),
        ("SCOPE_VIOLATION", "'t' is used outside the scope that defines it", "z: pl.Scalar[pl.INDEX] = t + rv"),
    ]


def test_reads_of_evaluations_yields_and_returns_in_nested_blocks() -> None:
    # The walkers check a statement that defines nothing in its block directly when its reads are
    # visible; a read that is not is reported as by the general path.
    n, late, t, z = (ir.Var(name, INDEX) for name in ("n", "late", "t", "z"))
    acc, acc2 = ir.IterArg("acc", INDEX, n), ir.IterArg("acc2", INDEX, n)
    rv, rv2 = ir.Var("rv", INDEX), ir.Var("rv2", INDEX)
    reads = [ir.AssignStmt(t, acc + 1, _SPAN), ir.EvalStmt(late + 1, _SPAN), ir.YieldStmt([t + late])]
    first = _loop([acc], reads, [rv])
    second = _loop([acc2], [ir.EvalStmt(t * 2, _SPAN), ir.YieldStmt([acc2 + t])], [rv2])
    stmts = [first, ir.AssignStmt(late, rv, _SPAN), second, ir.ReturnStmt([late + z + t])]
    program = single("main", [n], ir.SeqStmts(stmts, _SPAN), [INDEX])
    assert found(UseAfterDef, program) == [
        ("401", "'late' is used before it is defined", "late + 1"),
        ("401", "'late' is used before it is defined", "pl.yield_(t + late)"),
        ("401", "'t' is used before it is defined", "t * 2"),
        ("401", "'t' is used before it is defined", "pl.yield_(acc2 + t)"),
        ("401", "'z' is used before it is defined", "return late + z + t"),
        ("401", "'t' is used before it is defined", "return late + z + t"),
    ]
    assert found(SSAForm, program) == [
        ("SCOPE_VIOLATION", "'t' is used outside the scope that defines it", "t * 2"),
        ("SCOPE_VIOLATION", "'t' is used outside the scope that defines it", "pl.yield_(acc2 + t)"),
        ("SCOPE_VIOLATION", "'t' is used outside the scope that defines it", "return late + z + t"),
    ]


def test_if_with_return_vars_needs_else_and_yields() -> None:
    n = ir.Var("n", INDEX)
    phi = ir.Var("phi", INDEX)
    branch = ir.IfStmt(n < 3, ir.AssignStmt(ir.Var("t", INDEX), n), None, [phi], _SPAN)
    program = single("main", [n], ir.SeqStmts([branch, ir.ReturnStmt([phi])], _SPAN), [INDEX])
    assert [(c, m) for c, m, _ in found(SSAForm, program)] == [
        ("MISSING_YIELD", "an if with return vars has no else branch"),
        ("MISSING_YIELD", "an if branch does not end with a yield"),
    ]


def test_ssa_output_is_accepted() -> None:
    program = prog(
        """
        @pl.program
        class A:
            @pl.function
            def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
                x: pl.Scalar[pl.INDEX] = 0
                for i in pl.range(n):
                    if i > 2:
                        x = x + i
                while x < 100:
                    x = x * 2
                return x
        """
    )
    assert found(SSAForm, program) != []
    assert found(SSAForm, passes.convert_to_ssa()(program)) == []


def test_use_before_definition() -> None:
    n, x, y = ir.Var("n", INDEX), ir.Var("x", INDEX), ir.Var("y", INDEX)
    body = ir.SeqStmts([ir.AssignStmt(y, x + 1), ir.AssignStmt(x, n), ir.ReturnStmt([y])], _SPAN)
    assert found(UseAfterDef, single("main", [n], body, [INDEX])) == [
        ("401", "'x' is used before it is defined", "y: pl.Scalar[pl.INDEX] = x + 1"),
    ]


def test_loop_binders_and_branch_locals_do_not_outlive_their_scope() -> None:
    n = ir.Var("n", INDEX)
    acc = ir.IterArg("acc", INDEX, n)
    rv, t = ir.Var("rv", INDEX), ir.Var("t", INDEX)
    loop = _loop([acc], [ir.YieldStmt([acc + 1])], [rv])
    phi = ir.Var("phi", INDEX)
    branch = ir.IfStmt(
        n < 3, ir.SeqStmts([ir.AssignStmt(t, n), ir.YieldStmt([t])], _SPAN), ir.YieldStmt([n]), [phi], _SPAN
    )
    body = ir.SeqStmts([loop, branch, ir.ReturnStmt([loop.loop_var + acc + t + rv + phi])], _SPAN)
    assert [m for _, m, _ in found(UseAfterDef, single("main", [n], body, [INDEX]))] == [
        "'i' is used before it is defined",
        "'acc' is used before it is defined",
        "'t' is used before it is defined",
    ]


def test_pre_ssa_code_may_read_branch_and_loop_definitions_later() -> None:
    program = prog(
        """
        @pl.program
        class A:
            @pl.function
            def main(self, n: pl.Scalar[pl.INDEX], x: pl.Tensor[[n], pl.FP32]) -> pl.Scalar[pl.INDEX]:
                if n > 2:
                    y: pl.Scalar[pl.INDEX] = 1
                else:
                    y: pl.Scalar[pl.INDEX] = 2
                for i in pl.range(n):
                    last = i
                return y + last
        """
    )
    assert found(UseAfterDef, program) == []


_SIXTEEN = ir.ConstInt(16, ir.INDEX, _SPAN)


def _viewed(n: ir.Var, *, stride: bool) -> ir.TensorType:
    view = ir.TensorView([n, 1], ir.TensorLayout.ND) if stride else ir.TensorView([], ir.TensorLayout.ND, [n, 64])
    return ir.TensorType([16, 64], ir.FP32, None, view)


def test_a_view_reads_its_valid_shape_and_strides_before_the_definition() -> None:
    x, n = ir.Var("x", ir.TensorType([16, 64], ir.FP32)), ir.Var("n", INDEX)
    for stride, text in ((False, "valid_shape=[n, 64], stride=[]"), (True, "stride=[n, 1]")):
        y = ir.Var("y", _viewed(n, stride=stride))
        late = ir.SeqStmts([ir.AssignStmt(y, x), ir.AssignStmt(n, _SIXTEEN), ir.ReturnStmt([])], _SPAN)
        assert found(UseAfterDef, single("main", [x], late)) == [
            ("401", "'n' is used in the type of 'y' before it is defined",
             f"y: pl.Tensor[[16, 64], pl.FP32, pl.TensorView({text}, layout=pl.TensorLayout.ND)] = x"),
        ]
        early = ir.SeqStmts([ir.AssignStmt(n, _SIXTEEN), ir.AssignStmt(y, x), ir.ReturnStmt([])], _SPAN)
        assert found(UseAfterDef, single("main", [x], early)) == []


def test_a_dynamic_dimension_in_a_view_is_defined_at_entry() -> None:
    x, n = ir.Var("x", ir.TensorType([16, 64], ir.FP32)), ir.Var("n", INDEX)
    y = ir.Var("y", _viewed(n, stride=False))
    body = ir.SeqStmts([ir.AssignStmt(y, x), ir.ReturnStmt([])], _SPAN)
    assert found(UseAfterDef, single("main", [x], body)) == []


def test_function_attrs_read_parameters_not_body_values() -> None:
    n, m = ir.Var("n", INDEX), ir.Var("m", INDEX)
    body = ir.SeqStmts([ir.AssignStmt(m, n + 1), ir.ReturnStmt([])], _SPAN)
    for attr, want in ((m, [("401", "function attribute uses 'm', which only the body defines", "function main")]),
                       (n, [])):
        func = ir.Function("main", [n], [], body, _SPAN, attrs={"core_num": attr})
        assert found(UseAfterDef, ir.Program([func], "P", _SPAN)) == want


def test_the_task_id_of_a_scope_is_defined_for_the_code_after_it() -> None:
    program = prog(
        """
        @pl.program
        class A:
            @pl.function
            def main(self, x: pl.Tensor[[16, 64], pl.FP32], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]
                     ) -> pl.Tensor[[16, 64], pl.FP32]:
                with pl.manual_scope():
                    with pl.at(level=pl.Level.CORE_GROUP) as tid:
                        y = pl.store(pl.load(x, [0, 0], [16, 64]), [0, 0], y)
                    first = tid
                    barrier = pl.system.task_dummy(deps=[first])
                return y
        """
    )
    assert found(UseAfterDef, program) == []


def test_a_use_in_a_statement_without_a_span_is_reported_at_the_nearest_node_with_one() -> None:
    # A pass dropped x's definition and rebuilt the statement reading it without a span.
    program = pl.parse(textwrap.dedent("""
        import pypto.language as pl

        @pl.program
        class A:
            @pl.function
            def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
                x: pl.Scalar[pl.INDEX] = n
                for i in pl.range(4):
                    y: pl.Scalar[pl.INDEX] = n * (x + 1)
                return n
        """), filename="prog.py")
    main = program.get_function("main")
    _, loop, ret = main.body.stmts
    use = loop.body

    def report(stmt: ir.Stmt) -> str:
        body = ir.SeqStmts([ir.replace(loop, body=stmt), ret], main.body.span)
        [violation] = UseAfterDef.check(with_body(program, "main", body))
        return violation.render()

    message = "UseAfterDef 401 in 'main': 'x' is used before it is defined\n    y: pl.Scalar[pl.INDEX] = n * (x + 1)\n"
    assert report(use) == message + "    at prog.py:10:13"
    # The statement has no span: the innermost expression reading x that has one (x + 1).
    assert report(ir.replace(use, span=_SPAN)) == message + "    at prog.py:10:43"
    # Nor have n * (x + 1) and x + 1: the enclosing loop.
    value = ir.replace(use.value, span=_SPAN, right=ir.replace(use.value.right, span=_SPAN))
    bare = ir.AssignStmt(use.var, value, _SPAN)
    assert report(bare) == message + "    at prog.py:9:9"
