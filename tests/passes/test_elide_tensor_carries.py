"""ElideTensorCarries: kernel tensor carries become the buffer they carry; other carries are refused."""

from __future__ import annotations

import pytest

import pypto.language as pl
from pypto import ir, passes
from pypto.transform.errors import PassError

T16 = pl.Tensor[[16, 16], pl.FP32]


def _at_pass(program: ir.Program) -> ir.Program:
    for p in passes.front_passes():
        program = p(program)
    for p in passes.lowering_passes():
        if p.name == "ElideTensorCarries":
            return program
        program = p(program)
    raise AssertionError("ElideTensorCarries is not in the pipeline")


@pl.program
class Loop:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: T16, out: pl.Out[pl.Tensor[[64, 16], pl.FP32]]) -> pl.Tensor[[64, 16], pl.FP32]:
        t = pl.load(x, [0, 0], [16, 16])
        for i in pl.range(4):
            out = pl.store(t, [i * 16, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: T16, out: pl.Out[pl.Tensor[[64, 16], pl.FP32]]) -> pl.Tensor[[64, 16], pl.FP32]:
        out = self.k(x, out)
        return out


@pl.program
class Swap:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: T16, n: pl.Scalar[pl.INDEX], a: pl.Out[T16], b: pl.Out[T16]) -> tuple[T16, T16]:
        t = pl.load(x, [0, 0], [16, 16])
        a = pl.store(t, [0, 0], a)
        b = pl.store(t, [0, 0], b)
        if n > 0:
            y = a
        else:
            y = b
        y = pl.store(pl.add(t, 1.0), [0, 0], y)
        return a, b

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: T16, n: pl.Scalar[pl.INDEX], a: pl.Out[T16], b: pl.Out[T16]) -> tuple[T16, T16]:
        a, b = self.k(x, n, a, b)
        return a, b


def test_a_loop_storing_into_its_output_carries_nothing() -> None:
    after = passes.elide_tensor_carries()(_at_pass(Loop))
    body = after.get_function("k").as_python(concise=True)
    assert "for i in pl.range(4):" in body
    assert "out__ssa_v1 = pl.tile.store(t, [i * 16, 0], out)" in body
    assert body.rstrip().endswith("return out")


def test_an_if_yielding_two_different_outputs_is_refused() -> None:
    with pytest.raises(PassError, match=r"this kernel if carries tensor 'a' but yields 'b'.*another buffer") as err:
        passes.elide_tensor_carries()(_at_pass(Swap))
    assert "store into the same output" in err.value.hint
