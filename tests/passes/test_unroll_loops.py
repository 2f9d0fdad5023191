"""UnrollLoops: one body copy per iteration, nested unrolls, and rejected loops."""

from __future__ import annotations

import pytest
from front_programs import UNROLL_LOOPS, parse
from pass_helpers import before_after, check_preserves
from pypto.languages.invariants import UnrollResolved
from pypto.passes import PassError

from pypto import ir, passes


@pytest.mark.parametrize("name", sorted(UNROLL_LOOPS))
def test_snapshot(name: str, snapshot) -> None:
    before = parse(UNROLL_LOOPS[name])
    after = check_preserves(passes.unroll_loops(), before)
    assert UnrollResolved.check(after) == []
    assert before_after("UnrollLoops", before, after) == snapshot


def test_spec_example_structure() -> None:
    after = passes.unroll_loops()(parse(UNROLL_LOOPS["spec_example"]))
    expected = parse(
        """
        @pl.program
        class Unroll2:
            @pl.function
            def main(self, x: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
                x = x + 0
                x = x + 1
                return x
        """
    )
    ir.assert_structural_equal(after, expected)


def test_loops_of_other_kinds_stay() -> None:
    program = parse(UNROLL_LOOPS["unroll_in_loop_with_iter_args"])
    after = passes.unroll_loops()(program)
    outer = after.get_function("main").body.stmts[1]
    assert isinstance(outer, ir.ForStmt) and outer.kind is ir.ForKind.Sequential
    program_without = parse(
        """
        @pl.program
        class P:
            @pl.function
            def main(self, x: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
                for i in pl.range(2):
                    x = x + i
                return x
        """
    )
    assert passes.unroll_loops()(program_without) is program_without


def test_dynamic_bound_is_rejected() -> None:
    program = parse(
        """
        @pl.program
        class P:
            @pl.function
            def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
                acc: pl.Scalar[pl.INDEX] = 0
                for i in pl.unroll(n):
                    acc = acc + i
                return acc
        """
    )
    with pytest.raises(PassError, match=r"^UnrollLoops: pl.unroll needs a constant stop at <string>:9:9$"):
        passes.unroll_loops()(program)
