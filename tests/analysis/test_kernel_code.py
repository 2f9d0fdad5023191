"""One definition of kernel code: every call of a kernel function, and in other functions the calls
inside pl.at / pl.spmd / pl.cluster / pl.split_aiv bodies; runtime scopes run where their function runs."""

from __future__ import annotations

import pypto.language as pl
from pypto.analysis.kernel_code import placed_calls


@pl.program
class Placed:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.FP32],
          out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t: pl.Tile[[16, 64], pl.FP32] = pl.load(x, [0, 0], [16, 64])
        out = pl.store(t, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 64], pl.FP32],
             out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        a = pl.create_tensor([16, 64], dtype=pl.FP32)
        with pl.manual_scope():
            a = self.k(x, a)
        with pl.at(level=pl.Level.CORE_GROUP):
            out = pl.add(a, x)
        b = pl.create_tensor([16, 64], dtype=pl.FP32)
        with pl.spmd(2):
            b = self.k(x, b)
        out = self.k(b, out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def nested(self, x: pl.Tensor[[16, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        with pl.spmd(2):
            for i in pl.range(2):
                with pl.at(level=pl.Level.CORE_GROUP):
                    out = pl.add(out, x)
                out = self.k(x, out)
        out = pl.add(out, x)
        for j in pl.range(2):
            with pl.at(level=pl.Level.CORE_GROUP):
                out = pl.add(out, x)
            out = self.k(x, out)
        return out


def _names(func_name: str) -> list[tuple[str, bool]]:
    func = Placed.get_function(func_name)
    return [(getattr(call.op, "name", ""), inside) for call, inside in placed_calls(func)]


def test_every_call_of_a_kernel_function_runs_in_a_kernel() -> None:
    assert _names("k") == [("tile.load", True), ("tile.store", True)]


def test_only_kernel_scopes_of_an_orchestration_run_in_a_kernel() -> None:
    assert _names("main") == [
        ("tensor.create", False), ("k", False), ("tensor.add", True), ("tensor.create", False), ("k", True),
        ("k", False),
    ]


def test_a_scope_in_a_scope_and_the_calls_after_them() -> None:
    assert _names("nested") == [("tensor.add", True), ("k", True), ("tensor.add", False), ("tensor.add", True), ("k", False)]
