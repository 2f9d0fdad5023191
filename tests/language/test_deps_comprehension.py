"""``deps=`` given as a list comprehension over ``range`` of int constants lists one TaskId per
index, the same program as the list written out; other comprehensions are a ParserSyntaxError."""

from __future__ import annotations

import pytest

import pypto.language as pl
from pypto import ir
from pypto.language.parser import ParserSyntaxError

PROGRAM = """
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]],
             n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[64], pl.FP32]:
        tids = pl.array.create(4, pl.TASK_ID)
        out, t = pl.submit(self.k, x, out, deps={deps})
        return out
"""


def _parse(deps: str) -> ir.Program:
    return pl.parse_program(PROGRAM.format(deps=deps), filename="deps.py")


@pytest.mark.parametrize(
    ("comprehension", "written_out"),
    [
        ("[tids[i] for i in range(1, 4)]", "[tids[1], tids[2], tids[3]]"),
        ("[tids[2 * j] for j in pl.range(2)]", "[tids[0], tids[2]]"),
        ("[tids[i] for i in pl.unroll(3, 0, -2)]", "[tids[3], tids[1]]"),
    ],
)
def test_a_comprehension_over_range_is_the_written_out_list(comprehension: str, written_out: str) -> None:
    ir.assert_structural_equal(_parse(comprehension), _parse(written_out))


@pytest.mark.parametrize(
    ("deps", "message"),
    [
        ("[tids[i] for i in range(4) if i > 1]", "this deps= comprehension is not supported"),
        ("[tids[i] for i in range(2) for j in range(2)]", "this deps= comprehension is not supported"),
        ("[t for t in tids]", "this deps= comprehension is not supported"),
        ("[tids[i] for i in pl.pipeline(4)]", "a deps= comprehension iterates over range(...)"),
        ("[tids[i] for i in range(n)]", "the range of a deps= comprehension needs int constants, got 'range(n)'"),
    ],
)
def test_other_comprehensions_are_a_syntax_error(deps: str, message: str) -> None:
    with pytest.raises(ParserSyntaxError) as info:
        _parse(deps)
    err = info.value
    assert err.message == message
    assert "deps=[tids[i] for i in range(N)]" in err.hint
    assert err.span["filename"] == "deps.py" and err.span["begin_line"] == 14
