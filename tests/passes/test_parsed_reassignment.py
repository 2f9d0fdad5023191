"""A freshly parsed kernel that re-assigns names is in SSA form (a new variable per straight-line
assignment), so passes requiring SSAForm run on it alone, as the established tests do."""

from __future__ import annotations

import pytest

import pypto.language as pl
from pypto import ir, passes
from pypto.ir.errors import VerificationError

HEAD = """
import pypto.language as pl

@pl.program
class P:
"""

KERNEL = HEAD + """
    @pl.function(type=pl.FunctionType.InCore)
    def k(
        self, a: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]
    ) -> pl.Tensor[[16, 16], pl.FP32]:
        t = pl.load(a, [0, 0], [16, 16])
        t = pl.add(t, t)
        out = pl.store(t, [0, 0], out)
        return out
"""

KERNEL_PLACED = HEAD + """
    @pl.function(type=pl.FunctionType.InCore)
    def k(
        self, a: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]
    ) -> pl.Tensor[[16, 16], pl.FP32]:
        t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(
            a, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec
        )
        t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.add(t, t)
        out: pl.Tensor[[16, 16], pl.FP32] = pl.tile.store(t, [0, 0], out)
        return out
"""

NESTED = HEAD + """
    @pl.function
    def main(self, x: pl.Tensor[[16], pl.FP32]) -> pl.Tensor[[16], pl.FP32]:
        x = pl.add(x, pl.mul(x, 2.0))
        x = pl.exp(pl.add(x, x))
        return x
"""

FLAT = HEAD + """
    @pl.function
    def main(self, x: pl.Tensor[[16], pl.FP32]) -> pl.Tensor[[16], pl.FP32]:
        t__tmp_v0: pl.Tensor[[16], pl.FP32] = pl.tensor.muls(x, 2.0)
        x: pl.Tensor[[16], pl.FP32] = pl.tensor.add(x, t__tmp_v0)
        t__tmp_v1: pl.Tensor[[16], pl.FP32] = pl.tensor.add(x, x)
        x: pl.Tensor[[16], pl.FP32] = pl.tensor.exp(t__tmp_v1)
        return x
"""


@pytest.mark.parametrize(("source", "pass_", "expected"), [
    (KERNEL, passes.infer_tile_memory_space, KERNEL_PLACED),
    (NESTED, passes.flatten_call_expr, FLAT),
])
def test_a_pass_needing_ssa_runs_on_the_parsed_program(source: str, pass_, expected: str) -> None:
    program = pl.parse(source)
    passes.run_verifier(["SSAForm"])(program)
    ir.assert_structural_equal(pass_()(program), pl.parse(expected))


def test_a_loop_reassigning_an_outer_name_is_not_ssa_until_converted() -> None:
    program = pl.parse(HEAD + """
    @pl.function
    def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        acc: pl.Scalar[pl.INDEX] = 0
        acc = acc + 1
        for i in pl.range(n):
            acc = acc + i
        return acc
""")
    with pytest.raises(VerificationError, match="MULTIPLE_ASSIGNMENT"):
        passes.run_verifier(["SSAForm"])(program)
    converted = passes.convert_to_ssa()(program)
    passes.run_verifier(["SSAForm"])(converted)
    loop = converted.get_function("main").body.stmts[2]
    assert [ia.initValue.name_hint for ia in loop.iter_args] == ["acc__ssa_v1"]
