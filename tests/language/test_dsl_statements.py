"""Statements: assignments and re-assignment, tuple unpacking, augmented assignment, comments
and docstrings, loop kinds and attrs, pre-SSA loops, returns, function attributes."""

from __future__ import annotations

import textwrap

from dsl_helpers import assert_roundtrip

import pypto.language as pl
from pypto import ir


def parse(body: str, params: str = "n: pl.INDEX, a: pl.INT64, x: pl.Tensor[[64, 64], pl.FP32]", ret: str = "pl.INDEX") -> ir.Function:
    text = f"@pl.function\ndef f({params}) -> {ret}:\n" + textwrap.indent(textwrap.dedent(body).strip("\n"), "    ") + "\n"
    return pl.parse(text)


def body_lines(func: ir.Function) -> list[str]:
    return [line[4:] for line in func.as_python().splitlines()[2:]]


def test_a_straight_line_reassignment_makes_a_new_variable() -> None:
    func = parse("y = n + 1\ny = y * 2\nreturn y")
    first, second, ret = func.body.stmts
    assert first.var is not second.var and first.var.name_hint == second.var.name_hint == "y"
    assert second.value.left is first.var and ret.value[0] is second.var
    assert body_lines(func) == [
        "y: pl.Scalar[pl.INDEX] = n + 1",
        "y_1: pl.Scalar[pl.INDEX] = y * 2",
        "return y_1",
    ]
    assert_roundtrip(func)


def test_a_body_reassigning_an_outer_name_redefines_its_variable() -> None:
    func = parse(
        """
        y = n + 1
        for i in pl.range(4):
            y = y + i
            y = y * 2
            t = y + 1
            t = t * 3
        if n > 2:
            y = y + 1
        else:
            y = y - 1
        return y
        """
    )
    first, loop, branch, ret = func.body.stmts
    body = loop.body.stmts
    assert body[0].var is body[1].var is first.var  # pre-SSA: ConvertToSSA carries it
    assert body[2].var is not body[3].var  # a name of the body itself: a new variable
    assert branch.then_body.var is branch.else_body.var is first.var is ret.value[0]
    assert_roundtrip(func)


def test_a_loop_that_yields_rebinds_its_iter_args_as_new_variables() -> None:
    yielding = parse(
        """
        for i, (acc,) in pl.range(4, init_values=(n,)):
            acc = acc + i
            r = pl.yield_(acc)
        return r
        """
    )
    loop = yielding.body.stmts[0]
    assert loop.body.stmts[0].var is not loop.iter_args[0]
    pre_ssa = parse(
        """
        for (x,) in pl.while_(init_values=(n,)):
            pl.cond(x < 10)
            x = x + 1
        return n
        """
    )
    loop = pre_ssa.body.stmts[0]
    assert loop.body.var is loop.iter_args[0]  # no yield: ConvertToSSA yields the re-defined iter_arg
    for func in (yielding, pre_ssa):
        assert_roundtrip(func)


def test_annotated_literals_take_the_annotated_dtype() -> None:
    func = parse("b: pl.INT64 = 0\nc: pl.FP16 = 1\nd: pl.FP32 = 2.5\ne: pl.INDEX = 3\nreturn n")
    values = [s.value for s in func.body.stmts[:-1]]
    assert [(type(v).__name__, v.dtype) for v in values] == [
        ("ConstInt", pl.INT64), ("ConstFloat", pl.FP16), ("ConstFloat", pl.FP32), ("ConstInt", pl.INDEX)
    ]
    assert_roundtrip(func)


def test_annotation_kind_mismatch_is_rejected() -> None:
    import pytest

    from pypto.language.parser.diagnostics import ParserTypeError

    with pytest.raises(ParserTypeError, match="the annotation declares pl.Tile"):
        parse("t: pl.Tile[[64, 64], pl.FP32] = pl.exp(x)\nreturn n")


def test_tile_annotation_without_placement_takes_the_deduced_placement() -> None:
    func = parse("t: pl.Tile[[64, 64], pl.FP32] = pl.load(x, [0, 0], [64, 64], target_memory=pl.Mem.Mat)\nreturn n")
    assert func.body.stmts[0].var.type.memory_space == pl.Mem.Mat
    assert_roundtrip(func)


def test_tuple_unpacking() -> None:
    func = parse("p, q = n, a\nreturn p")
    assert [(s.var.name_hint, s.value.name_hint) for s in func.body.stmts[:2]] == [("p", "n"), ("q", "a")]
    assert_roundtrip(func)


def test_unpacking_a_tuple_value_goes_through_a_temporary() -> None:
    text = textwrap.dedent(
        """
        @pl.program
        class P:
            @pl.function
            def pair(self, n: pl.INDEX) -> tuple[pl.INDEX, pl.INDEX]:
                return n, n + 1

            @pl.function
            def main(self, n: pl.INDEX) -> pl.INDEX:
                lo, hi = self.pair(n)
                _, hi2 = self.pair(hi)
                return lo + hi2
        """
    )
    prog = pl.parse(text)
    text = prog.as_python()
    start = text.index("_tuple_tmp:")
    lines = [line.strip() for line in text[start:].splitlines()[:5]]
    assert lines == [
        "_tuple_tmp: pl.Tuple[pl.Scalar[pl.INDEX], pl.Scalar[pl.INDEX]] = self.pair(n)",
        "lo: pl.Scalar[pl.INDEX] = _tuple_tmp[0]",
        "hi: pl.Scalar[pl.INDEX] = _tuple_tmp[1]",
        "_tuple_tmp_1: pl.Tuple[pl.Scalar[pl.INDEX], pl.Scalar[pl.INDEX]] = self.pair(hi)",
        "hi2: pl.Scalar[pl.INDEX] = _tuple_tmp_1[1]",
    ]
    assert_roundtrip(prog)


def test_augmented_assignment() -> None:
    func = parse("y = n\ny += 2\ny <<= 1\nreturn y")
    assert [type(s.value).__name__ for s in func.body.stmts[1:3]] == ["Add", "BitShiftLeft"]
    first, second, third = (s.var for s in func.body.stmts[:3])
    assert func.body.stmts[1].value.left is first and func.body.stmts[2].value.left is second
    assert len({id(first), id(second), id(third)}) == 3
    assert_roundtrip(func)


def test_comments_and_docstrings_become_leading_comments() -> None:
    func = parse(
        '''
        """Doc line one.

        Doc line three."""
        # leading comment
        y = n + 1  # trailing comments are not kept
        #   indented comment
        return y
        '''
    )
    assign, ret = func.body.stmts
    assert assign.leading_comments == ["Doc line one.", "", "Doc line three.", "leading comment"]
    assert ret.leading_comments == ["  indented comment"]
    assert body_lines(func)[:4] == ["# Doc line one.", "#", "# Doc line three.", "# leading comment"]
    assert_roundtrip(func)


def test_loop_kinds_attrs_and_pipeline_stages() -> None:
    func = parse(
        """
        for i in pl.pipeline(16, stage=2):
            pass
        for j in pl.range(4, attrs={"unroll_hint": 2}):
            pass
        for k in pl.unroll(4):
            pass
        return n
        """
    )
    pipe, ranged, unrolled, _ = func.body.stmts
    assert pipe.kind == pl.ForKind.Pipeline and pipe.attrs == {"pipeline_stages": 2}
    assert ranged.attrs == {"unroll_hint": 2} and unrolled.kind == pl.ForKind.Unroll
    assert body_lines(func)[:5] == [
        "for i in pl.pipeline(16, stage=2):",
        "    pass",
        'for j in pl.range(4, attrs={"unroll_hint": 2}):',
        "    pass",
        "for k in pl.unroll(4):",
    ]
    assert_roundtrip(func)


def test_loop_bounds_keep_their_dtype() -> None:
    func = parse("for i in pl.range(pl.const(0, pl.INT64), a):\n    pass\nreturn n")
    loop = func.body.stmts[0]
    assert loop.start.dtype == pl.INT64 and loop.loop_var.type == ir.ScalarType(pl.INDEX)
    assert body_lines(func)[0] == "for i in pl.range(pl.const(0, pl.INT64), a):"
    assert_roundtrip(func)


def test_pre_ssa_loop_carries_without_yield() -> None:
    func = parse("for i, (acc,) in pl.range(n, init_values=(a,)):\n    acc = acc + i\nreturn n")
    loop = func.body.stmts[0]
    assert len(loop.iter_args) == 1 and loop.return_vars == []
    assert loop.body.var is loop.iter_args[0]
    assert_roundtrip(func)


def test_loop_variables_are_scoped_to_the_loop_but_body_definitions_leak() -> None:
    func = parse("for i in pl.range(n):\n    inner = i\nz = inner\nreturn n")
    loop, after, _ = func.body.stmts
    assert after.value is loop.body.var
    import pytest

    from pypto.language.parser.diagnostics import UndefinedVariableError

    with pytest.raises(UndefinedVariableError, match="undefined variable 'i'"):
        parse("for i in pl.range(n):\n    pass\nz = i\nreturn n")


def test_elif_chain_with_yields() -> None:
    func = parse(
        """
        if n < 1:
            y = pl.yield_(1)
        elif n < 2:
            y = pl.yield_(2)
        else:
            y = pl.yield_(3)
        return y
        """
    )
    outer = func.body.stmts[0]
    inner = outer.else_body.stmts[0]
    assert isinstance(inner, ir.IfStmt)
    assert outer.else_body.stmts[1].value == [inner.return_vars[0]]
    assert_roundtrip(func)


def test_nested_loops_and_ifs_with_carried_values() -> None:
    func = parse(
        """
        for i, (acc,) in pl.range(n, init_values=(a,)):
            for j, (inner,) in pl.parallel(4, init_values=(acc,)):
                if j > i:
                    v = pl.yield_(inner + 1)
                else:
                    v = pl.yield_(inner)
                inner_next = pl.yield_(v)
            acc_next = pl.yield_(inner_next)
        return n
        """
    )
    assert_roundtrip(func)


def test_returns_of_zero_one_and_several_values() -> None:
    none = parse("return", ret="None")
    assert isinstance(none.body, ir.ReturnStmt) and none.body.value == [] and none.return_types == []
    several = parse("return n, a", ret="tuple[pl.INDEX, pl.INT64]")
    assert len(several.body.value) == 2
    for func in (none, several):
        assert_roundtrip(func)


def test_expression_statements() -> None:
    func = parse("pl.system.bar_all()\nn + 1\nreturn n")
    assert isinstance(func.body.stmts[0], ir.EvalStmt) and isinstance(func.body.stmts[1], ir.EvalStmt)
    assert_roundtrip(func)


def test_function_attributes_and_decorator_options() -> None:
    text = textwrap.dedent(
        """
        @pl.function(type=pl.FunctionType.Orchestration, auto_scope=False, external_source="k.cpp")
        def f(n: pl.INDEX) -> pl.INDEX:
            pl.func_attr({"split": pl.SplitMode.UP_DOWN, "note": "x"})
            return n
        """
    )
    func = pl.parse(text)
    assert func.attrs == {"auto_scope": False, "external_source": "k.cpp", "split": pl.SplitMode.UP_DOWN, "note": "x"}
    assert func.as_python().splitlines()[:3] == [
        (
            "@pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP, role=pl.Role.Orchestrator, "
            'auto_scope=False, external_source="k.cpp")'
        ),
        "def f(n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:",
        "    pl.func_attr({\"split\": pl.SplitMode.UP_DOWN, \"note\": 'x'})",
    ]
    assert_roundtrip(func)


def test_requires_runtime_binding() -> None:
    func = parse("...\ny = n\nreturn y")
    assert func.requires_runtime_binding
    assert body_lines(func)[0] == "..."
    assert_roundtrip(func)


def test_call_attrs_keyword() -> None:
    func = parse('s = pl.tensor.add(x, x, attrs={"arg_directions": [pl.adir.input, pl.adir.input]})\nreturn n')
    assert func.body.stmts[0].value.attrs == {"arg_directions": [pl.ArgDirection.Input, pl.ArgDirection.Input]}
    assert_roundtrip(func)


def test_parallel_assignment_reads_values_from_before_the_statement() -> None:
    func = parse("p = n\nq = n + 1\np, q = q, p + q\nreturn q")
    assert body_lines(func) == [
        "p: pl.Scalar[pl.INDEX] = n",
        "q: pl.Scalar[pl.INDEX] = n + 1",
        "p_1: pl.Scalar[pl.INDEX] = q",
        "q_1: pl.Scalar[pl.INDEX] = p + q",
        "return q_1",
    ]
    assert_roundtrip(func)
    in_loop = parse("p = n\nq = n + 1\nfor i in pl.range(4):\n    p, q = q, p + q\nreturn q")
    assert [line.strip() for line in body_lines(in_loop)[3:6]] == [
        "_unpack_tmp: pl.Scalar[pl.INDEX] = p + q",  # the body re-defines p before q's value reads it
        "p: pl.Scalar[pl.INDEX] = q",
        "q: pl.Scalar[pl.INDEX] = _unpack_tmp",
    ]


def test_parallel_assignment_without_overlap_needs_no_temporary() -> None:
    func = parse("p = n\nq = n + 1\np, q = n * 2, q + 1\nreturn p")
    assert "_unpack_tmp" not in func.as_python()


def test_parallel_assignment_runs_like_python() -> None:
    from pypto import interp

    fib = pl.parse(
        "@pl.function\n"
        "def fib(n: pl.INDEX) -> pl.INDEX:\n"
        "    p = pl.const(0, pl.INDEX)\n"
        "    q = pl.const(1, pl.INDEX)\n"
        "    for i in pl.range(n):\n"
        "        p, q = q, p + q\n"
        "    return p\n"
    )
    assert [interp.run(fib, k).value for k in range(8)] == [0, 1, 1, 2, 3, 5, 8, 13]
