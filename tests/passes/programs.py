"""DSL programs with concrete inputs for the meaning-preservation tests (``test_preservation.py``).

``CASES`` maps each pass name to the programs whose IR that pass actually rewrites: Inline calls
for InlineFunctions, ``pl.unroll`` loops for UnrollLoops, break/continue in kernels for
CtrlFlowTransform, re-assignments for ConvertToSSA, foldable arithmetic, decidable branches and
0/1-trip loops for Simplify, nested blocks for NormalizeStmtStructure, nested calls for
FlattenCallExpr. Each program is run on every input set of its :class:`Case`; the sets are chosen
so that every branch and loop exit of the program is taken by at least one of them. The mix covers
tile kernels called from orchestration, scalar programs and tensor programs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

import pypto.language as pl
from pypto import ir

_RNG = np.random.default_rng(2024)


def rand(*shape: int) -> np.ndarray:
    """Fixed pseudo-random FP32 data of ``shape``."""
    return _RNG.standard_normal(shape).astype(np.float32)


def out(*shape: int) -> np.ndarray:
    """Initial contents of an Out tensor (never read before written)."""
    return np.zeros(shape, dtype=np.float32)


@dataclass(frozen=True)
class Case:
    """One program and the input sets it runs on (one tuple of entry arguments per set)."""

    program: ir.Program
    inputs: tuple[tuple[Any, ...], ...]

    @property
    def name(self) -> str:
        """The program's name (the id of its tests)."""
        return self.program.name


# ------------------------------------------------------------------------------------------------
# InlineFunctions: Inline functions called from kernels, orchestration and plain functions.
# ------------------------------------------------------------------------------------------------


@pl.program
class InlineTileHelper:
    @pl.function(type=pl.FunctionType.Inline)
    def fma(self, a: pl.Tile[[16, 16], pl.FP32], b: pl.Tile[[16, 16], pl.FP32]) -> pl.Tile[[16, 16], pl.FP32]:
        p: pl.Tile[[16, 16], pl.FP32] = pl.mul(a, b)
        s: pl.Tile[[16, 16], pl.FP32] = pl.add(p, a)
        return s

    @pl.function(type=pl.FunctionType.InCore)
    def block(
        self,
        a: pl.Tensor[[64, 16], pl.FP32],
        b: pl.Tensor[[64, 16], pl.FP32],
        r: pl.Scalar[pl.INDEX],
        dst: pl.InOut[pl.Tensor[[64, 16], pl.FP32]],
    ) -> pl.Tensor[[64, 16], pl.FP32]:
        ta: pl.Tile[[16, 16], pl.FP32] = pl.load(a, [r * 16, 0], [16, 16])
        tb: pl.Tile[[16, 16], pl.FP32] = pl.load(b, [r * 16, 0], [16, 16])
        s: pl.Tile[[16, 16], pl.FP32] = self.fma(ta, tb)
        s = self.fma(s, tb)
        dst = pl.store(s, [r * 16, 0], dst)
        return dst

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self,
        a: pl.Tensor[[64, 16], pl.FP32],
        b: pl.Tensor[[64, 16], pl.FP32],
        dst: pl.Out[pl.Tensor[[64, 16], pl.FP32]],
    ) -> pl.Tensor[[64, 16], pl.FP32]:
        for i in pl.range(4):
            dst = self.block(a, b, i, dst)
        return dst


@pl.program
class InlineScalarShadowing:
    @pl.function(type=pl.FunctionType.Inline)
    def step(self, x: pl.Scalar[pl.INDEX], k: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        acc: pl.Scalar[pl.INDEX] = x
        for i in pl.range(k):
            acc = acc + i * x
        x = acc - k
        return x

    @pl.function(type=pl.FunctionType.Inline)
    def divmod_(
        self, a: pl.Scalar[pl.INDEX], b: pl.Scalar[pl.INDEX]
    ) -> tuple[pl.Scalar[pl.INDEX], pl.Scalar[pl.INDEX]]:
        q = a // b
        r = a % b
        return q, r

    @pl.function
    def main(self, n: pl.Scalar[pl.INDEX], m: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        acc: pl.Scalar[pl.INDEX] = 1
        x: pl.Scalar[pl.INDEX] = n
        for i in pl.range(3):
            acc = self.step(acc, i + 1)
        q, r = self.divmod_(acc + x, m)
        y: pl.Scalar[pl.INDEX] = 0
        if q > r:
            y = self.step(x, 2)
        return acc * 100000 + x * 1000 + y * 10 + q + r


@pl.program
class InlineTensorHelper:
    @pl.function(type=pl.FunctionType.Inline)
    def smooth(self, x: pl.Tensor[[8, 32], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[8, 32], pl.FP32]:
        y: pl.Tensor[[8, 32], pl.FP32] = x
        for i in pl.range(n):
            h: pl.Tensor[[8, 32], pl.FP32] = pl.mul(y, 0.5)
            y = pl.add(h, x)
        return y

    @pl.function(type=pl.FunctionType.Inline)
    def both(
        self, x: pl.Tensor[[8, 32], pl.FP32]
    ) -> tuple[pl.Tensor[[8, 32], pl.FP32], pl.Tensor[[8, 32], pl.FP32]]:
        e: pl.Tensor[[8, 32], pl.FP32] = pl.exp(x)
        s: pl.Tensor[[8, 32], pl.FP32] = self.smooth(e, 2)
        return e, s

    @pl.function
    def main(self, a: pl.Tensor[[8, 32], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[8, 32], pl.FP32]:
        if n > 2:
            r: pl.Tensor[[8, 32], pl.FP32] = self.smooth(a, n)
        else:
            e, r = self.both(a)
            r = pl.sub(r, e)
        return r


@pl.program
class InlineOrchestration:
    @pl.function(type=pl.FunctionType.InCore)
    def scale(
        self, x: pl.Tensor[[16, 32], pl.FP32], f: pl.Scalar[pl.FP32], y: pl.Out[pl.Tensor[[16, 32], pl.FP32]]
    ) -> pl.Tensor[[16, 32], pl.FP32]:
        t: pl.Tile[[16, 32], pl.FP32] = pl.load(x, [0, 0], [16, 32])
        u: pl.Tile[[16, 32], pl.FP32] = pl.mul(t, f)
        y = pl.store(u, [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Inline)
    def twice(self, x: pl.Tensor[[16, 32], pl.FP32], f: pl.Scalar[pl.FP32]) -> pl.Tensor[[16, 32], pl.FP32]:
        tmp: pl.Tensor[[16, 32], pl.FP32] = pl.create_tensor([16, 32], dtype=pl.FP32)
        tmp = self.scale(x, f, tmp)
        res: pl.Tensor[[16, 32], pl.FP32] = pl.create_tensor([16, 32], dtype=pl.FP32)
        res = self.scale(tmp, f, res)
        return res

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self, x: pl.Tensor[[16, 32], pl.FP32], y: pl.Out[pl.Tensor[[16, 32], pl.FP32]]
    ) -> pl.Tensor[[16, 32], pl.FP32]:
        a: pl.Tensor[[16, 32], pl.FP32] = self.twice(x, 2.0)
        b: pl.Tensor[[16, 32], pl.FP32] = self.twice(a, -1.5)
        y = self.scale(b, 1.0, y)
        return y


INLINE_FUNCTIONS = [
    Case(InlineTileHelper, ((rand(64, 16), rand(64, 16), out(64, 16)),)),
    Case(InlineScalarShadowing, ((5, 3), (0, 7), (-4, 5), (9, -2))),
    Case(InlineTensorHelper, ((rand(8, 32), 0), (rand(8, 32), 4))),
    Case(InlineOrchestration, ((rand(16, 32), out(16, 32)),)),
]

# ------------------------------------------------------------------------------------------------
# UnrollLoops: pl.unroll loops over tiles, scalars and kernel calls.
# ------------------------------------------------------------------------------------------------


@pl.program
class UnrollTileRows:
    @pl.function(type=pl.FunctionType.InCore)
    def rows(
        self, x: pl.Tensor[[64, 16], pl.FP32], y: pl.Out[pl.Tensor[[64, 16], pl.FP32]]
    ) -> pl.Tensor[[64, 16], pl.FP32]:
        acc: pl.Tile[[16, 16], pl.FP32] = pl.load(x, [0, 0], [16, 16])
        for i in pl.unroll(1, 4):
            t: pl.Tile[[16, 16], pl.FP32] = pl.load(x, [i * 16, 0], [16, 16])
            acc = pl.add(acc, t)
            y = pl.store(acc, [i * 16, 0], y)
        first: pl.Tile[[16, 16], pl.FP32] = pl.load(x, [0, 0], [16, 16])
        y = pl.store(first, [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self, x: pl.Tensor[[64, 16], pl.FP32], y: pl.Out[pl.Tensor[[64, 16], pl.FP32]]
    ) -> pl.Tensor[[64, 16], pl.FP32]:
        y = self.rows(x, y)
        return y


@pl.program
class UnrollScalars:
    @pl.function
    def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        acc: pl.Scalar[pl.INDEX] = 0
        for j in pl.range(n):
            for k in pl.unroll(6, 0, -2):
                t = k * j
                if k > j:
                    acc = acc + t
                else:
                    acc = acc - 1
        for k in pl.unroll(3):
            t = acc + k
            acc = t * 2
        return acc


@pl.program
class UnrollKernelCalls:
    @pl.function(type=pl.FunctionType.InCore)
    def block(
        self,
        x: pl.Tensor[[32, 64], pl.FP32],
        c: pl.Scalar[pl.INDEX],
        y: pl.InOut[pl.Tensor[[32, 64], pl.FP32]],
    ) -> pl.Tensor[[32, 64], pl.FP32]:
        t: pl.Tile[[32, 16], pl.FP32] = pl.load(x, [0, c * 16], [32, 16])
        e: pl.Tile[[32, 16], pl.FP32] = pl.exp(t)
        y = pl.store(e, [0, c * 16], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self, x: pl.Tensor[[32, 64], pl.FP32], y: pl.Out[pl.Tensor[[32, 64], pl.FP32]]
    ) -> pl.Tensor[[32, 64], pl.FP32]:
        for c in pl.unroll(4):
            y = self.block(x, c, y)
        return y


@pl.program
class UnrollTensorSlices:
    @pl.function
    def main(self, x: pl.Tensor[[32, 32], pl.FP32]) -> pl.Tensor[[8, 32], pl.FP32]:
        acc: pl.Tensor[[8, 32], pl.FP32] = pl.tensor.slice(x, [8, 32], [0, 0])
        for i in pl.unroll(1, 4):
            part: pl.Tensor[[8, 32], pl.FP32] = pl.tensor.slice(x, [8, 32], [i * 8, 0])
            acc = pl.maximum(acc, part)
        return acc


UNROLL_LOOPS = [
    Case(UnrollTileRows, ((rand(64, 16), out(64, 16)),)),
    Case(UnrollScalars, ((0,), (1,), (4,), (7,))),
    Case(UnrollKernelCalls, ((rand(32, 64), out(32, 64)),)),
    Case(UnrollTensorSlices, ((rand(32, 32),),)),
]

# ------------------------------------------------------------------------------------------------
# CtrlFlowTransform: break and continue in InCore kernels.
# ------------------------------------------------------------------------------------------------


@pl.program
class BreakContinueTiles:
    @pl.function(type=pl.FunctionType.InCore)
    def rows(
        self,
        x: pl.Tensor[[64, 16], pl.FP32],
        skip: pl.Scalar[pl.INDEX],
        limit: pl.Scalar[pl.INDEX],
        y: pl.Out[pl.Tensor[[16, 16], pl.FP32]],
    ) -> pl.Tensor[[16, 16], pl.FP32]:
        acc: pl.Tile[[16, 16], pl.FP32] = pl.load(x, [0, 0], [16, 16])
        for r in pl.range(1, 4):
            if r == skip:
                continue
            if r > limit:
                break
            t: pl.Tile[[16, 16], pl.FP32] = pl.load(x, [r * 16, 0], [16, 16])
            acc = pl.add(acc, t)
        y = pl.store(acc, [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self,
        x: pl.Tensor[[64, 16], pl.FP32],
        skip: pl.Scalar[pl.INDEX],
        limit: pl.Scalar[pl.INDEX],
        y: pl.Out[pl.Tensor[[16, 16], pl.FP32]],
    ) -> pl.Tensor[[16, 16], pl.FP32]:
        y = self.rows(x, skip, limit, y)
        return y


@pl.program
class BreakOnData:
    @pl.function(type=pl.FunctionType.InCore)
    def first_above(
        self, x: pl.Tensor[[16, 16], pl.FP32], thr: pl.Scalar[pl.FP32], y: pl.Out[pl.Tensor[[16, 16], pl.FP32]]
    ) -> pl.Tensor[[16, 16], pl.FP32]:
        t: pl.Tile[[16, 16], pl.FP32] = pl.load(x, [0, 0], [16, 16])
        i: pl.Scalar[pl.INDEX] = 0
        while i < 16:
            v: pl.Scalar[pl.FP32] = pl.tile.read(t, [i, 0])
            if v > thr:
                break
            t = pl.mul(t, 2.0)
            i = i + 1
        y = pl.store(t, [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self, x: pl.Tensor[[16, 16], pl.FP32], thr: pl.Scalar[pl.FP32], y: pl.Out[pl.Tensor[[16, 16], pl.FP32]]
    ) -> pl.Tensor[[16, 16], pl.FP32]:
        y = self.first_above(x, thr, y)
        return y


@pl.program
class JumpsInNestedLoops:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, n: pl.Scalar[pl.INDEX], m: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        acc: pl.Scalar[pl.INDEX] = 0
        for i in pl.range(0, n, 3):
            if i % 2 == 1:
                continue
            for j in pl.range(m, 0, -1):
                if j == i:
                    continue
                if acc > 50:
                    acc = acc - 7
                else:
                    if j + i > 9:
                        break
                    acc = acc + j
                acc = acc + 1
            if acc > 80:
                break
        k: pl.Scalar[pl.INDEX] = 0
        while k < n:
            k = k + 1
            if k % 3 == 0:
                continue
            acc = acc + k
        return acc


CTRL_FLOW_TRANSFORM = [
    Case(BreakContinueTiles, tuple((rand(64, 16), s, lim, out(16, 16)) for s, lim in ((2, 9), (0, 2), (3, 0)))),
    Case(BreakOnData, tuple((rand(16, 16), thr, out(16, 16)) for thr in (-5.0, 0.5, 1.5, 9.0))),
    Case(JumpsInNestedLoops, ((0, 0), (7, 4), (13, 11), (30, 6))),
]

# ------------------------------------------------------------------------------------------------
# ConvertToSSA: re-assignment in if/for/while, loop-carried values, values first defined in loops.
# ------------------------------------------------------------------------------------------------


@pl.program
class ReassignTiles:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self, x: pl.Tensor[[16, 64], pl.FP32], n: pl.Scalar[pl.INDEX], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]
    ) -> pl.Tensor[[16, 64], pl.FP32]:
        t: pl.Tile[[16, 64], pl.FP32] = pl.load(x, [0, 0], [16, 64])
        u: pl.Tile[[16, 64], pl.FP32] = t
        for i in pl.range(n):
            if i % 2 == 0:
                t = pl.add(t, u)
            else:
                u = pl.mul(u, 0.5)
                t = pl.sub(t, u)
        if n > 2:
            t = pl.exp(pl.mul(t, 0.1))
        y = pl.store(t, [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self, x: pl.Tensor[[16, 64], pl.FP32], n: pl.Scalar[pl.INDEX], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]
    ) -> pl.Tensor[[16, 64], pl.FP32]:
        y = self.kernel(x, n, y)
        return y


@pl.program
class ReassignScalars:
    @pl.function
    def main(self, n: pl.Scalar[pl.INDEX], m: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        a: pl.Scalar[pl.INDEX] = n
        b: pl.Scalar[pl.INDEX] = m
        steps: pl.Scalar[pl.INDEX] = 0
        while a != b:
            if a > b:
                a = a - b
            else:
                b = b - a
            steps = steps + 1
        total: pl.Scalar[pl.INDEX] = 0
        for i in pl.range(4):
            sq = i * i
            for j in pl.range(i):
                total = total + sq + j
                sq = sq - 1
            if total > 10:
                total = total - sq
        for i in pl.range(2):
            total = total * 3
        return a * 10000 + steps * 100 + total


@pl.program
class ReassignOutInLoop:
    @pl.function(type=pl.FunctionType.InCore)
    def bump(
        self,
        x: pl.Tensor[[16, 16], pl.FP32],
        acc: pl.Tensor[[16, 16], pl.FP32],
        y: pl.Out[pl.Tensor[[16, 16], pl.FP32]],
    ) -> pl.Tensor[[16, 16], pl.FP32]:
        tx: pl.Tile[[16, 16], pl.FP32] = pl.load(x, [0, 0], [16, 16])
        ta: pl.Tile[[16, 16], pl.FP32] = pl.load(acc, [0, 0], [16, 16])
        s: pl.Tile[[16, 16], pl.FP32] = pl.add(tx, ta)
        y = pl.store(s, [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self, x: pl.Tensor[[16, 16], pl.FP32], n: pl.Scalar[pl.INDEX], y: pl.Out[pl.Tensor[[16, 16], pl.FP32]]
    ) -> pl.Tensor[[16, 16], pl.FP32]:
        cur: pl.Tensor[[16, 16], pl.FP32] = x
        for i in pl.range(n):
            nxt: pl.Tensor[[16, 16], pl.FP32] = pl.create_tensor([16, 16], dtype=pl.FP32)
            nxt = self.bump(x, cur, nxt)
            if i > 1:
                nxt = pl.mul(nxt, 0.5)
            cur = nxt
        y = self.bump(x, cur, y)
        return y


@pl.program
class PreSSALoops:
    @pl.function
    def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        x_init: pl.Scalar[pl.INDEX] = 1
        for (x,) in pl.while_(init_values=(x_init,)):
            pl.cond(x < n)
            x = x * 2 + 1
        s_init: pl.Scalar[pl.INDEX] = 0
        for i, (s,) in pl.range(n, init_values=(s_init,)):
            s = s + i
            if s > 6:
                s = s - 2
        r: pl.Scalar[pl.INDEX] = 5
        for i in pl.range(3):
            r = r + i
        return r


CONVERT_TO_SSA = [
    Case(ReassignTiles, tuple((rand(16, 64), n, out(16, 64)) for n in (0, 1, 2, 5))),
    Case(ReassignScalars, ((12, 18), (7, 7), (1, 9), (21, 6))),
    Case(ReassignOutInLoop, tuple((rand(16, 16), n, out(16, 16)) for n in (0, 1, 4))),
    Case(PreSSALoops, ((0,), (1,), (5,), (40,))),
]

# ------------------------------------------------------------------------------------------------
# Simplify: constant folding, identities, range-decided branches, 0/1-trip loops, dead scalars.
# ------------------------------------------------------------------------------------------------


@pl.program
class FoldScalars:
    @pl.function
    def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        base: pl.Scalar[pl.INDEX] = (7 * 3 - 1) // 3
        neg: pl.Scalar[pl.INDEX] = -7 // 2 + -7 % 3
        zero = n * 0 + (n - n)
        one = min(n, n) - n + 1
        acc: pl.Scalar[pl.INDEX] = n * 1 + 0
        for i in pl.range(10, 0, -3):
            if i > 0:
                acc = acc + i
            if i < 10:
                acc = acc * 2
            if i % 3 == 1:
                acc = acc + 1000
        for j in pl.range(5, 2):
            acc = acc + 77
        for j in pl.range(3, 1, -2):
            acc = acc - j
        for j in pl.range(0, 10, 7):
            acc = acc + j
        dead = n * 99
        return acc + base * 100 + neg * 10 + zero + one


@pl.program
class FoldTileShapes:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self, x: pl.Tensor[[32, 32], pl.FP32], n: pl.Scalar[pl.INDEX], y: pl.Out[pl.Tensor[[32, 32], pl.FP32]]
    ) -> pl.Tensor[[32, 32], pl.FP32]:
        h: pl.Scalar[pl.INDEX] = 4 * 4
        w: pl.Scalar[pl.INDEX] = h * 2
        t: pl.Tile[[16, 32], pl.FP32] = pl.load(x, [0, 0], [h, w])
        for k in pl.range(h // 16):
            t = pl.add(t, t)
        for k in pl.range(h - 16):
            t = pl.mul(t, 100.0)
        if h > 8:
            t = pl.sub(t, 1.0)
        else:
            t = pl.exp(t)
        for r in pl.range(2):
            if r + 0 < 2:
                y = pl.store(t, [r * h, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self, x: pl.Tensor[[32, 32], pl.FP32], n: pl.Scalar[pl.INDEX], y: pl.Out[pl.Tensor[[32, 32], pl.FP32]]
    ) -> pl.Tensor[[32, 32], pl.FP32]:
        y = self.kernel(x, n, y)
        return y


@pl.program
class FoldTensorBranches:
    @pl.function
    def main(self, x: pl.Tensor[[8, 16], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[8, 16], pl.FP32]:
        rows: pl.Scalar[pl.INDEX] = 2 * 4
        y: pl.Tensor[[8, 16], pl.FP32] = pl.create_tensor([rows, 16], dtype=pl.FP32)
        y = pl.add(x, x)
        if n > 5:
            if n > 3:
                y = pl.mul(y, x)
            else:
                y = pl.exp(y)
        else:
            if n > 5:
                y = pl.neg(y)
            unused = n + 1
            if n <= 5:
                y = pl.sub(y, x)
        for i in pl.range(n):
            if i >= 0:
                if i < n:
                    y = pl.add(y, 1.0)
        return y


@pl.program
class FoldNarrowInts:
    @pl.function
    def main(self, n: pl.Scalar[pl.INT32]) -> pl.Scalar[pl.INT32]:
        big: pl.Scalar[pl.INT32] = 2147483647
        wrapped = big + 1
        r: pl.Scalar[pl.INT32] = n
        if wrapped < 0:
            r = r + 1
        return r


SIMPLIFY = [
    Case(FoldScalars, ((0,), (3,), (-5,))),
    Case(FoldTileShapes, ((rand(32, 32), 1, out(32, 32)),)),
    Case(FoldTensorBranches, tuple((rand(8, 16), n) for n in (0, 4, 6))),
    Case(FoldNarrowInts, ((3,),)),
]

# ------------------------------------------------------------------------------------------------
# NormalizeStmtStructure: blocks nested by the passes before it (splices, unrolled copies,
# collapsed branches and loops).
# ------------------------------------------------------------------------------------------------


@pl.program
class NestedTileBlocks:
    @pl.function(type=pl.FunctionType.Inline)
    def twice(self, t: pl.Tile[[16, 16], pl.FP32]) -> pl.Tile[[16, 16], pl.FP32]:
        u: pl.Tile[[16, 16], pl.FP32] = pl.add(t, t)
        return u

    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self, x: pl.Tensor[[16, 16], pl.FP32], y: pl.Out[pl.Tensor[[16, 16], pl.FP32]]
    ) -> pl.Tensor[[16, 16], pl.FP32]:
        t: pl.Tile[[16, 16], pl.FP32] = pl.load(x, [0, 0], [16, 16])
        for k in pl.unroll(2):
            t = self.twice(t)
            for j in pl.range(1):
                t = pl.sub(t, 1.0)
        y = pl.store(t, [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self, x: pl.Tensor[[16, 16], pl.FP32], y: pl.Out[pl.Tensor[[16, 16], pl.FP32]]
    ) -> pl.Tensor[[16, 16], pl.FP32]:
        y = self.kernel(x, y)
        return y


@pl.program
class NestedScalarBlocks:
    @pl.function
    def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        acc: pl.Scalar[pl.INDEX] = n
        for i in pl.range(4):
            if 1 < 2:
                acc = acc + i
                for j in pl.unroll(2):
                    acc = acc * 2 - j
            else:
                acc = 0
        return acc


@pl.program
class NestedTensorBlocks:
    @pl.function(type=pl.FunctionType.Inline)
    def shift(self, x: pl.Tensor[[8, 8], pl.FP32], d: pl.Scalar[pl.FP32]) -> pl.Tensor[[8, 8], pl.FP32]:
        y: pl.Tensor[[8, 8], pl.FP32] = pl.add(x, d)
        return y

    @pl.function
    def main(self, x: pl.Tensor[[8, 8], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[8, 8], pl.FP32]:
        y: pl.Tensor[[8, 8], pl.FP32] = x
        if n > 0:
            for k in pl.range(1):
                y = self.shift(y, 2.0)
            y = self.shift(y, -0.5)
        return y


NORMALIZE_STMT_STRUCTURE = [
    Case(NestedTileBlocks, ((rand(16, 16), out(16, 16)),)),
    Case(NestedScalarBlocks, ((0,), (5,))),
    Case(NestedTensorBlocks, ((rand(8, 8), 0), (rand(8, 8), 3))),
]

# ------------------------------------------------------------------------------------------------
# FlattenCallExpr: calls nested in arguments, operands, conditions, bounds, returns and yields.
# ------------------------------------------------------------------------------------------------


@pl.program
class NestedTileCalls:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        a: pl.Tensor[[16, 32], pl.FP32],
        b: pl.Tensor[[16, 32], pl.FP32],
        y: pl.Out[pl.Tensor[[16, 32], pl.FP32]],
    ) -> pl.Tensor[[16, 32], pl.FP32]:
        y = pl.store(pl.add(pl.exp(pl.load(a, [0, 0], [16, 32])), pl.load(b, [0, 0], [16, 32])), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self,
        a: pl.Tensor[[16, 32], pl.FP32],
        b: pl.Tensor[[16, 32], pl.FP32],
        y: pl.Out[pl.Tensor[[16, 32], pl.FP32]],
    ) -> pl.Tensor[[16, 32], pl.FP32]:
        y = self.kernel(pl.mul(a, b), pl.add(a, pl.neg(b)), y)
        return y


@pl.program
class CallsInControl:
    @pl.function
    def main(self, x: pl.Tensor[[8, 12], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        acc: pl.Scalar[pl.INDEX] = pl.tensor.dim(x, 0) * 2 + n
        if pl.tensor.dim(x, 1) > n:
            acc = acc + pl.tensor.dim(x, 1)
        for i in pl.range(pl.tensor.dim(x, 0) - n):
            acc = acc + i
        i: pl.Scalar[pl.INDEX] = 0
        while i < pl.tensor.dim(x, 1) - n:
            i = i + 1
        return acc * 100 + i


@pl.program
class CallsInYieldAndReturn:
    @pl.function
    def main(self, x: pl.Tensor[[8, 16], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[8, 16], pl.FP32]:
        for i, (s,) in pl.range(n, init_values=(x,)):
            if i % 2 == 0:
                s2 = pl.yield_(pl.add(s, pl.mul(x, 0.25)))
            else:
                s2 = pl.yield_(pl.sub(s, pl.exp(x)))
            s3 = pl.yield_(pl.mul(s2, 0.5))
        return pl.add(pl.exp(pl.mul(s3, 0.1)), x)


@pl.program
class CallInWhileCondition:
    @pl.function
    def main(self, x: pl.Tensor[[16], pl.FP32], thr: pl.Scalar[pl.FP32]) -> pl.Scalar[pl.INDEX]:
        i: pl.Scalar[pl.INDEX] = 0
        while i < 15 and pl.tensor.read(x, [i]) < thr:
            i = i + 1
        return i


FLATTEN_CALL_EXPR = [
    Case(NestedTileCalls, ((rand(16, 32), rand(16, 32), out(16, 32)),)),
    Case(CallsInControl, tuple((rand(8, 12), n) for n in (0, 3, 10, 14))),
    Case(CallsInYieldAndReturn, tuple((rand(8, 16), n) for n in (0, 1, 4))),
    Case(CallInWhileCondition, tuple((np.arange(16, dtype=np.float32), thr) for thr in (-1.0, 4.5, 20.0))),
]

CASES: dict[str, list[Case]] = {
    "InlineFunctions": INLINE_FUNCTIONS,
    "UnrollLoops": UNROLL_LOOPS,
    "CtrlFlowTransform": CTRL_FLOW_TRANSFORM,
    "ConvertToSSA": CONVERT_TO_SSA,
    "Simplify": SIMPLIFY,
    "NormalizeStmtStructure": NORMALIZE_STMT_STRUCTURE,
    "FlattenCallExpr": FLATTEN_CALL_EXPR,
}


def every_case() -> list[Case]:
    """Every case of ``CASES`` once, in order."""
    seen: dict[str, Case] = {}
    for cases in CASES.values():
        for c in cases:
            seen.setdefault(c.name, c)
    return list(seen.values())
