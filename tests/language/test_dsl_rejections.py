"""Every rejection the DSL specification describes: error class, message and location."""

from __future__ import annotations

import textwrap

import pytest

import pypto.language as pl
from pypto.language.parser.diagnostics import (
    InvalidOperationError,
    ParserError,
    ParserSyntaxError,
    ParserTypeError,
    SSAViolationError,
    UndefinedVariableError,
    UnsupportedFeatureError,
)


def parse_body(body: str, params: str = "x: pl.Tensor[[64, 64], pl.FP32], i: pl.INDEX, n: pl.INDEX") -> None:
    """Parse one function with ``body`` (dedented) as its statements."""
    text = f"@pl.function\ndef f({params}):\n" + textwrap.indent(textwrap.dedent(body).strip("\n"), "    ") + "\n"
    pl.parse(text)


def rejects(cls: type[ParserError], message: str, body: str, params: str | None = None, line: int | None = None) -> None:
    with pytest.raises(cls) as err:
        if params is None:
            parse_body(body)
        else:
            parse_body(body, params)
    assert type(err.value) is cls
    assert message in err.value.message, err.value.message
    if line is not None:
        assert err.value.location.begin_line == line


# ----- parameters ------------------------------------------------------------------------------


def test_scalar_inout_parameter() -> None:
    rejects(ParserTypeError, "Scalar parameters cannot be InOut", "pass", "s: pl.InOut[pl.Scalar[pl.FP32]]", line=2)


def test_direction_outside_a_parameter() -> None:
    rejects(ParserTypeError, "pl.Out[...] can only annotate a function parameter", "y: pl.Out[pl.INT64] = 1")


def test_parameter_without_annotation() -> None:
    rejects(ParserTypeError, "parameter 'y' needs a type annotation", "pass", "y")


# ----- yields ----------------------------------------------------------------------------------


def test_bare_yield_in_while_with_init_values() -> None:
    rejects(
        ParserSyntaxError,
        "a loop with init_values requires assignment-form pl.yield_",
        """
        for (k,) in pl.while_(init_values=(i,)):
            pl.cond(k < n)
            pl.yield_(k + 1)
        """,
        line=5,
    )


def test_bare_yield_in_range_with_init_values() -> None:
    rejects(
        ParserSyntaxError,
        "a loop with init_values requires assignment-form pl.yield_",
        """
        for j, (acc,) in pl.range(n, init_values=(i,)):
            pl.yield_(acc + j)
        """,
    )


def test_yield_in_a_loop_without_init_values() -> None:
    rejects(ParserSyntaxError, "pl.yield_ with values needs a loop with init_values", "for j in pl.range(n):\n    y = pl.yield_(j)")


def test_yield_count_must_match_the_carried_values() -> None:
    rejects(
        ParserTypeError,
        "the loop carries 1 value(s) but the yield gives 2",
        "for j, (a,) in pl.range(n, init_values=(i,)):\n    a2, b2 = pl.yield_(a, j)",
    )


def test_yield_must_be_last() -> None:
    rejects(
        ParserSyntaxError,
        "pl.yield_ must be the last statement of its block",
        "if i > 0:\n    y = pl.yield_(i)\n    z = i\nelse:\n    y = pl.yield_(n)",
    )


def test_yield_outside_if_or_loop() -> None:
    rejects(ParserSyntaxError, "pl.yield_ can only end an if branch or a loop body", "y = pl.yield_(i)")


def test_if_branches_must_both_yield() -> None:
    rejects(ParserSyntaxError, "both branches of an if must end with pl.yield_", "if i > 0:\n    y = pl.yield_(i)")
    rejects(
        ParserSyntaxError,
        "both branches of an if must end with pl.yield_",
        "if i > 0:\n    y = pl.yield_(i)\nelse:\n    z = i",
    )


def test_if_branches_must_yield_the_same_variables() -> None:
    rejects(
        ParserSyntaxError,
        "the branches of an if yield different variables: (y) and (z)",
        "if i > 0:\n    y = pl.yield_(i)\nelse:\n    z = pl.yield_(n)",
    )


def test_bare_yield_with_values_in_an_if() -> None:
    rejects(ParserSyntaxError, "an if branch yields values with the assignment form", "if i > 0:\n    pl.yield_(i)")


def test_yield_as_an_expression() -> None:
    rejects(ParserSyntaxError, "pl.yield_ cannot be used inside an expression", "y = 1 + pl.yield_(i)")


def test_cond_outside_while() -> None:
    rejects(ParserSyntaxError, "pl.cond can only be the first statement of a pl.while_ loop", "pl.cond(i < n)")


def test_while_without_cond_first() -> None:
    rejects(
        ParserSyntaxError,
        "the first statement of a pl.while_ loop must be pl.cond(<condition>)",
        "for (k,) in pl.while_(init_values=(i,)):\n    k2 = k + 1\n    pl.cond(k < n)",
    )


# ----- loops, break and continue -------------------------------------------------------------


def test_break_in_parallel_and_unroll_loops() -> None:
    rejects(ParserSyntaxError, "'break' is not supported inside a pl.parallel loop", "for j in pl.parallel(n):\n    break")
    rejects(
        ParserSyntaxError, "'continue' is not supported inside a pl.unroll loop", "for j in pl.unroll(4):\n    continue"
    )
    rejects(
        ParserSyntaxError,
        "'break' is not supported inside a pl.parallel loop",
        "for j in pl.range(n):\n    for k in pl.parallel(n):\n        break",
    )


def test_break_outside_a_loop() -> None:
    rejects(ParserSyntaxError, "'break' outside of a loop", "break")


def test_range_arity() -> None:
    rejects(ParserTypeError, "pl.range takes 1 to 3 positional arguments", "for j in pl.range():\n    pass")
    rejects(ParserTypeError, "pl.range takes 1 to 3 positional arguments", "for j in pl.range(0, 1, 2, 3):\n    pass")


def test_unroll_cannot_carry_values() -> None:
    rejects(ParserTypeError, "pl.unroll got an unexpected keyword argument 'init_values'", "for j in pl.unroll(4, init_values=(i,)):\n    pass")


def test_python_range_is_not_a_dsl_loop() -> None:
    with pytest.raises(ParserSyntaxError, match=r"'range\(\.\.\.\)' is not a DSL loop") as err:

        @pl.function
        def f(n: pl.INDEX) -> pl.INDEX:
            for j in range(4):
                pass
            return n

    assert err.value.hint == "use pl.range(...)"
    with pytest.raises(UndefinedVariableError, match="undefined variable 'range'") as err:
        parse_body("for j in range(4):\n    pass")  # text has no Python builtins
    assert err.value.hint == "use pl.range(...)"


# ----- static_print / static_assert ----------------------------------------------------------


def test_static_print_needs_an_argument() -> None:
    rejects(ParserSyntaxError, "pl.static_print needs at least one positional argument", "pl.static_print()")


def test_static_print_rejects_conversions_and_format_specs() -> None:
    rejects(ParserSyntaxError, "do not support !r / !s / !a", 'pl.static_print(f"{x!r}")')
    rejects(ParserSyntaxError, "do not support format specs", 'pl.static_print(f"{n:>4}")')


def test_static_assert_failure() -> None:
    rejects(ParserError, "static assertion failed: N too small", 'pl.static_assert(1 > 32, "N too small")')
    rejects(ParserError, "static assertion failed: 2 < 1", "pl.static_assert(2 < 1)")


def test_static_assert_message_must_be_a_literal() -> None:
    rejects(ParserSyntaxError, "the message of pl.static_assert must be a string literal", "pl.static_assert(True, n)")


def test_static_assert_needs_a_constant() -> None:
    rejects(ParserSyntaxError, "the condition of pl.static_assert must be a compile-time constant", "pl.static_assert(i > 1)")


def test_static_constructs_are_statements() -> None:
    rejects(ParserSyntaxError, "pl.static_print cannot be used inside an expression", "y = pl.static_print(i)")


# ----- subscripts (v1 limits) ---------------------------------------------------------------


def test_slice_step() -> None:
    rejects(UnsupportedFeatureError, "slice steps are not supported", "y = x[0:8:2, :]")


def test_non_static_tile_slice_start() -> None:
    rejects(
        UnsupportedFeatureError,
        "the start of a tile slice must be a static integer",
        "t = pl.load(x, [0, 0], [64, 64])\ny = t[i:i + 8, :]",
    )


def test_ellipsis_none_negative_and_advanced_indexing() -> None:
    rejects(UnsupportedFeatureError, "'...' (ellipsis) indexing is not supported", "y = x[..., 0]")
    rejects(UnsupportedFeatureError, "None (new axis) indexing is not supported", "y = x[None, 0]")
    rejects(UnsupportedFeatureError, "negative indices are not supported", "y = x[-1, 0]")
    rejects(UnsupportedFeatureError, "advanced indexing", "y = x[[0, 1], 0]")
    rejects(UnsupportedFeatureError, "advanced indexing", "y = x[x, 0]")


def test_chained_subscript_write() -> None:
    rejects(UnsupportedFeatureError, "chained subscript assignment (C[i][j] = v) is not supported", "x[i][0] = x[0, 0]")


def test_too_many_indices() -> None:
    rejects(ParserTypeError, "too many indices for a rank-2 tensor: got 3", "y = x[0, 0, 0]")


# ----- expressions ---------------------------------------------------------------------------


def test_undefined_variable_with_suggestion() -> None:
    with pytest.raises(UndefinedVariableError) as err:
        parse_body("y = nn + 1")
    assert err.value.message == "undefined variable 'nn'"
    assert err.value.hint == "did you mean 'n'?"


def test_misspelled_op() -> None:
    with pytest.raises(UndefinedVariableError) as err:
        parse_body("t = pl.tile.lod(x, [0, 0], [64, 64])")
    assert err.value.message == "'pl.tile' has no attribute 'lod'"
    assert err.value.hint == "did you mean 'pl.tile.load'?"


def test_operators_need_scalars() -> None:
    rejects(ParserTypeError, "operators work on scalars, but this operand is a Tensor", "y = x + x")


def test_op_errors_become_parser_errors() -> None:
    rejects(ParserTypeError, "missing", "t = pl.tile.load(x)")
    rejects(InvalidOperationError, "target_memory", "t = pl.tile.load(x, [0, 0], [64, 64], target_memory=pl.Mem.Acc)")


def test_unsupported_expressions() -> None:
    rejects(UnsupportedFeatureError, "conditional expressions (x if c else y) are not supported", "y = i if n else n")
    rejects(UnsupportedFeatureError, "lambda expressions are not supported", "y = lambda: 1")
    rejects(UnsupportedFeatureError, "list comprehensions are not supported", "y = [j for j in n]")
    rejects(UnsupportedFeatureError, "f-strings are only supported as arguments of pl.static_print", 'y = f"{n}"')


def test_unsupported_statements() -> None:
    rejects(UnsupportedFeatureError, "assert is not supported in DSL code", "assert n")
    rejects(UnsupportedFeatureError, "try statements are not supported", "try:\n    pass\nexcept Exception:\n    pass")
    rejects(UnsupportedFeatureError, "nested function definitions are not supported", "def g():\n    pass")
    rejects(UnsupportedFeatureError, "imports are not supported inside a DSL function", "import os")


def test_calling_a_python_function() -> None:
    def helper(v: int) -> int:
        return v

    with pytest.raises(ParserTypeError, match="cannot call function helper in DSL code"):

        @pl.function
        def f(n: pl.INDEX) -> pl.INDEX:
            return helper(n)


def test_strict_ssa_reassignment() -> None:
    with pytest.raises(SSAViolationError, match="variable 'y' is assigned more than once"):
        pl.parse("@pl.function(strict_ssa=True)\ndef f(n: pl.INDEX) -> pl.INDEX:\n    y = n\n    y = n + 1\n    return y\n")


def test_return_count_must_match_the_annotation() -> None:
    rejects(ParserTypeError, "declares 1 return value(s) but returns 2", "return i, n", "i: pl.INDEX, n: pl.INDEX) -> (pl.INDEX")


def test_deps_on_a_plain_call() -> None:
    text = textwrap.dedent(
        """
        @pl.program
        class P:
            @pl.function
            def k(self, a: pl.INDEX) -> pl.INDEX:
                return a

            @pl.function
            def main(self, a: pl.INDEX) -> pl.INDEX:
                b = self.k(a, deps=[a])
                return b
        """
    )
    with pytest.raises(ParserSyntaxError, match="deps= is not accepted by a plain call of 'k'") as err:
        pl.parse(text)
    assert "use pl.submit" in err.value.hint


# ----- functions and programs ----------------------------------------------------------------


def test_inline_arity() -> None:
    @pl.inline
    def twice(a: pl.INDEX) -> pl.INDEX:
        return a + a

    with pytest.raises(ParserTypeError, match=r"inline function 'twice' takes 1 argument\(s\) but 2 were given"):

        @pl.function
        def f(n: pl.INDEX) -> pl.INDEX:
            return twice(n, n)


def test_external_function_name_clashes() -> None:
    @pl.function
    def helper(a: pl.INDEX) -> pl.INDEX:
        return a

    with pytest.raises(InvalidOperationError, match="external function 'helper' clashes with the function 'helper'"):

        @pl.program
        class Clash:
            @pl.function
            def helper(self, a: pl.INDEX) -> pl.INDEX:
                return a

            @pl.function
            def main(self, a: pl.INDEX) -> pl.INDEX:
                return helper(a)

    other = pl.parse("@pl.function\ndef helper(a: pl.INDEX) -> pl.INDEX:\n    return a + 1\n")
    with pytest.raises(InvalidOperationError, match="two different external functions are both named 'helper'"):

        @pl.program
        class Twice:
            @pl.function
            def main(self, a: pl.INDEX) -> pl.INDEX:
                b = helper(a)
                return other(b)


def test_self_call_of_an_unknown_function() -> None:
    text = "@pl.program\nclass P:\n    @pl.function\n    def main(self, a: pl.INDEX) -> pl.INDEX:\n        return self.nope(a)\n"
    with pytest.raises(UndefinedVariableError, match="program 'P' has no function 'nope'"):
        pl.parse(text)


def test_self_call_arity() -> None:
    text = (
        "@pl.program\nclass P:\n    @pl.function\n    def k(self, a: pl.INDEX) -> pl.INDEX:\n        return a\n\n"
        "    @pl.function\n    def main(self, a: pl.INDEX) -> pl.INDEX:\n        return self.k(a, a)\n"
    )
    with pytest.raises(ParserTypeError, match=r"function 'k' takes 1 argument\(s\) but 2 were given"):
        pl.parse(text)


# ----- empty tiles ------------------------------------------------------------------------------


@pytest.mark.parametrize("shape", [[0, 64], [64, 0]])
def test_a_tile_without_rows_or_columns_is_refused_with_a_hint(shape: list[int]) -> None:
    # pto-isa's Tile static_asserts Rows > 0 && Cols > 0: the kernel's C++ build would fail.
    with pytest.raises(InvalidOperationError) as err:
        parse_body(f"t = pl.load(x, [0, 0], {shape})")
    assert err.value.message == (f"Operator 'tile.load': the result tile {shape} is empty: a tile needs at least one "
                                 "element along each axis")
    assert err.value.location.begin_line == 3
    assert err.value.hint == ("give each axis at least one element (valid_shape marks a partly filled tile), or skip "
                              "the op when there is nothing to compute")
