"""Deep programs written in the DSL go through the whole default front pipeline (surface -> ssa,
verification on) and keep their meaning: a 1,000-term sum (Simplify folds it to one product) and 90
nested ifs."""

from __future__ import annotations

import pytest
from front_programs import parse

from pypto import ir, passes
from pypto.interp.testing import assert_pass_preserves


def long_sum(terms: int) -> str:
    return f"""
        @pl.program
        class LongSum:
            @pl.function
            def main(self, x: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
                y: pl.Scalar[pl.INDEX] = {" + ".join(["x"] * terms)}
                return y
    """


def nested_ifs(depth: int) -> str:
    lines = [
        "@pl.program",
        "class NestedIfs:",
        "    @pl.function",
        "    def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:",
        "        x: pl.Scalar[pl.INDEX] = 0",
    ]
    for d in range(depth):
        lines += [" " * (8 + 4 * d) + f"if n > {d}:", " " * (12 + 4 * d) + f"x = x + {d + 1}"]
    return "\n".join(lines + ["        return x"]) + "\n"


@pytest.mark.parametrize("terms", [300, 1_000])
def test_a_long_sum_compiles(terms: int) -> None:
    pipeline = passes.PassManager.get_strategy(plugins=False)
    result = assert_pass_preserves(pipeline, parse(long_sum(terms)), [3])
    value = result.get_function("main").body.stmts[0].value
    assert ir.python_print(value) == f"x * {terms}"  # Simplify's affine form collects the deep sum


def test_ninety_nested_ifs_compile() -> None:
    pipeline = passes.PassManager.get_strategy(plugins=False)
    result = assert_pass_preserves(pipeline, parse(nested_ifs(90)), [45])
    branch, ret = result.get_function("main").body.stmts  # x = 0 was substituted
    assert isinstance(branch, ir.IfStmt) and ret.value[0] is branch.return_vars[0]
