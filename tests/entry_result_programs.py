"""Orchestration entries that return tensors they create (ExportEntryResults), shared by the
preservation cases, the compile and interpreter tests and the simulator test."""

from __future__ import annotations

import pypto.language as pl

T16 = pl.Tensor[[16, 16], pl.FP32]


@pl.program
class CreatedResult:
    @pl.function(type=pl.FunctionType.InCore)
    def double(self, a: T16, out: pl.Out[T16]) -> T16:
        t = pl.load(a, [0, 0], [16, 16])
        out = pl.store(pl.mul(t, 2.0), [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: T16) -> T16:
        out = pl.create_tensor([16, 16], dtype=pl.FP32)
        out = self.double(a, out)
        return out


@pl.program
class CreatedInline:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: T16) -> T16:
        out = pl.create_tensor([16, 16], dtype=pl.FP32)
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(a, [0, 0], [16, 16])
            out = pl.store(pl.add(t, 1.0), [0, 0], out)
        return out


@pl.program
class CreatedMixed:
    """Created tensors beside an Out parameter, in a manual scope and after a loop: y = 2a, o = 4a, z = 5a."""

    @pl.function(type=pl.FunctionType.InCore)
    def double(self, a: T16, out: pl.Out[T16]) -> T16:
        t = pl.load(a, [0, 0], [16, 16])
        out = pl.store(pl.mul(t, 2.0), [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.InCore)
    def accumulate(self, a: T16, acc: pl.InOut[T16]) -> T16:
        t = pl.load(a, [0, 0], [16, 16])
        u = pl.load(acc, [0, 0], [16, 16])
        acc = pl.store(pl.add(t, u), [0, 0], acc)
        return acc

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: T16, o: pl.Out[T16]) -> tuple[T16, T16, T16]:
        x = pl.create_tensor([16, 16], dtype=pl.FP32)
        x = self.double(a, x)
        o = self.double(x, o)
        with pl.manual_scope():
            y = pl.create_tensor([16, 16], dtype=pl.FP32)
            y = self.double(a, y)
        z = pl.create_tensor([16, 16], dtype=pl.FP32)
        z = self.double(a, z)
        for i in pl.range(3):
            z = self.accumulate(a, z)
        return y, o, z
