"""InlineFunctions: splicing, renaming, fixpoint, and rejected programs."""

from __future__ import annotations

import pytest
from front_programs import INLINE_FUNCTIONS, parse
from pass_helpers import before_after, check_preserves
from pypto.languages.invariants import InlineFunctionsEliminated
from pypto.passes import PassError

from pypto import ir, passes


@pytest.mark.parametrize("name", sorted(INLINE_FUNCTIONS))
def test_snapshot(name: str, snapshot) -> None:
    before = parse(INLINE_FUNCTIONS[name])
    after = check_preserves(passes.inline_functions(), before)
    assert InlineFunctionsEliminated.check(after) == []
    assert all(f.func_type is not ir.FunctionType.Inline for f in after.functions.values())
    assert before_after("InlineFunctions", before, after) == snapshot


def test_spec_example_structure() -> None:
    after = passes.inline_functions()(parse(INLINE_FUNCTIONS["assign_call"]))
    expected = parse(
        """
        @pl.program
        class AssignCall:
            @pl.function
            def main(self, a: pl.Tensor[[16, 16], pl.FP32]) -> pl.Tensor[[16, 16], pl.FP32]:
                y_inline0: pl.Tensor[[16, 16], pl.FP32] = pl.mul(a, a)
                r: pl.Tensor[[16, 16], pl.FP32] = y_inline0
                return r
        """
    )
    ir.assert_structural_equal(after, expected)
    assert after.get_function("main").body.stmts[0].var.name_hint == "y_inline0"


def test_each_call_site_gets_its_own_copies() -> None:
    after = passes.inline_functions()(parse(INLINE_FUNCTIONS["loop_inside_two_sites"]))
    stmts = after.get_function("main").body.stmts
    loops = [s for s in stmts if isinstance(s, ir.ForStmt)]
    assert [loop.loop_var.name_hint for loop in loops] == ["i_inline0", "i_inline1"]
    assert loops[0].loop_var is not loops[1].loop_var


def test_program_without_inline_functions_is_unchanged() -> None:
    program = parse(
        INLINE_FUNCTIONS["assign_call"].replace("type=pl.FunctionType.Inline", "type=pl.FunctionType.Opaque")
    )
    assert passes.inline_functions()(program) is program


def test_recursion_names_the_cycle() -> None:
    program = parse(
        """
        @pl.program
        class Rec:
            @pl.function(type=pl.FunctionType.Inline)
            def f(self, x: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
                y = self.g(x)
                return y

            @pl.function(type=pl.FunctionType.Inline)
            def g(self, x: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
                y = self.f(x)
                return y

            @pl.function
            def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
                r = self.f(n)
                return r
        """
    )
    with pytest.raises(PassError, match=r"^InlineFunctions: recursive inline functions: f -> g -> f\n  --> <string>:7:5\n"):
        passes.inline_functions()(program)


def test_call_nested_in_an_expression_is_rejected() -> None:
    program = parse(
        """
        @pl.program
        class Nested:
            @pl.function(type=pl.FunctionType.Inline)
            def one(self, x: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
                return x

            @pl.function
            def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
                r = self.one(n) + 1
                return r
        """
    )
    with pytest.raises(PassError) as err:
        passes.inline_functions()(program)
    assert str(err.value).startswith(
        "InlineFunctions: call to inline function 'one' inside an expression; assign its result to a "
        "variable first\n   --> <string>:12:13\n"
    )
    assert (err.value.span.begin_line, err.value.span.begin_column) == (12, 13)


def test_early_return_is_rejected() -> None:
    program = parse(
        """
        @pl.program
        class Early:
            @pl.function(type=pl.FunctionType.Inline)
            def pick(self, x: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
                if x > 2:
                    return x
                return x + 1

            @pl.function
            def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
                r = self.pick(n)
                return r
        """
    )
    with pytest.raises(PassError, match="inline function 'pick' returns before its end"):
        passes.inline_functions()(program)
