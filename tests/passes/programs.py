"""DSL programs with concrete inputs for the meaning-preservation tests (``test_preservation.py``).

``CASES`` maps each pass name to programs that the pass actually rewrites when it meets them in
the default pipeline: Inline calls for InlineFunctions, ``pl.unroll`` loops for UnrollLoops,
break/continue in kernels for CtrlFlowTransform, re-assignments for ConvertToSSA, foldable
arithmetic, decidable branches and 0/1-trip loops for Simplify, nested or one-statement blocks for
NormalizeStmtStructure, nested calls for FlattenCallExpr. Each :class:`Case` lists input sets
chosen so that every branch and loop exit of its program is taken by at least one of them. The mix
covers tile kernels called from orchestration, scalar programs and tensor programs.

``REGRESSIONS`` maps a pass name to minimal programs on which that pass once changed the meaning
(one defect each); after the fix the pass may leave them untouched, so they only have to keep
their meaning. ``PRE_SSA_LOOPS`` is the seed's pre-SSA loop form (loops with ``init_values`` and no
``pl.yield_``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

import pypto.language as pl
import entry_result_programs as erp
import mixed_programs
import tile_programs
import tile_stage_programs
import valid_shape_programs as vsp
from pypto import ir, passes

# Annotation shorthands; the DSL resolves module-level names.
Idx = pl.Scalar[pl.INDEX]
F32 = pl.Scalar[pl.FP32]
V16 = pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec]
T16 = pl.Tensor[[16, 16], pl.FP32]
T64 = pl.Tensor[[64, 16], pl.FP32]

_RNG = np.random.default_rng(2024)


def rand(*shape: int) -> np.ndarray:
    """Fixed pseudo-random FP32 data of ``shape``."""
    return _RNG.standard_normal(shape).astype(np.float32)


def out(*shape: int) -> np.ndarray:
    """Initial contents of an Out tensor (the programs never read it before writing)."""
    return np.zeros(shape, dtype=np.float32)


@dataclass(frozen=True)
class Case:
    """One program and the input sets it runs on (one tuple of entry arguments per set).

    ``prepare``, if given, reshapes the program as it reaches the pass under test (after the
    pipeline passes before it) without changing its meaning.
    """

    program: ir.Program
    inputs: tuple[tuple[Any, ...], ...]
    prepare: Callable[[ir.Program], ir.Program] | None = None

    @property
    def name(self) -> str:
        """The program's name (the id of its tests)."""
        return self.program.name


# ------------------------------------------------------------------------------------------------
# InlineFunctions: Inline functions called from kernels, orchestration, plain functions, scopes.
# ------------------------------------------------------------------------------------------------


@pl.program
class InlineTileHelper:
    @pl.function(type=pl.FunctionType.Inline)
    def fma(self, a: V16, b: V16) -> V16:
        p: V16 = pl.mul(a, b)
        s: V16 = pl.add(p, a)
        return s

    @pl.function(type=pl.FunctionType.InCore)
    def block(self, a: T64, b: T64, r: Idx, dst: pl.InOut[T64]) -> T64:
        ta: V16 = pl.load(a, [r * 16, 0], [16, 16])
        tb: V16 = pl.load(b, [r * 16, 0], [16, 16])
        s: V16 = self.fma(ta, tb)
        s = self.fma(s, tb)
        dst = pl.store(s, [r * 16, 0], dst)
        return dst

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: T64, b: T64, dst: pl.Out[T64]) -> T64:
        for i in pl.range(4):
            dst = self.block(a, b, i, dst)
        return dst


@pl.program
class InlineScalarShadowing:
    @pl.function(type=pl.FunctionType.Inline)
    def step(self, x: Idx, k: Idx) -> Idx:
        acc: Idx = x
        for i in pl.range(k):
            acc = acc + i * x
        x = acc - k
        return x

    @pl.function(type=pl.FunctionType.Inline)
    def divmod_(self, a: Idx, b: Idx) -> tuple[Idx, Idx]:
        q = a // b
        r = a % b
        return q, r

    @pl.function
    def main(self, n: Idx, m: Idx) -> Idx:
        acc: Idx = 1
        x: Idx = n
        for i in pl.range(3):
            acc = self.step(acc, i + 1)
        q, r = self.divmod_(acc + x, m)
        y: Idx = 0
        if q > r:
            y = self.step(x, 2)
        return acc * 100000 + x * 1000 + y * 10 + q + r


@pl.program
class InlineArguments:
    @pl.function(type=pl.FunctionType.Inline)
    def bump(self, x: Idx, k: Idx) -> Idx:
        x = x + k
        for i in pl.range(k):
            x = x * 2
        return x

    @pl.function(type=pl.FunctionType.Inline)
    def ident(self, x: Idx) -> Idx:
        return x

    @pl.function(type=pl.FunctionType.Inline)
    def combine(self, x: Idx, y: Idx) -> Idx:
        return x * 10 + y

    @pl.function
    def main(self, n: Idx) -> Idx:
        a = self.bump(n + 1, 2)
        b = self.bump(a, a % 3)
        c = self.ident(b)
        d = self.combine(c, c)
        e = self.combine(n, 7)
        return a + b * 3 + c * 5 + d * 7 + e * 11 + n


@pl.program
class InlineTensorHelper:
    @pl.function(type=pl.FunctionType.Inline)
    def smooth(self, x: pl.Tensor[[8, 32], pl.FP32], n: Idx) -> pl.Tensor[[8, 32], pl.FP32]:
        y: pl.Tensor[[8, 32], pl.FP32] = x
        for i in pl.range(n):
            h: pl.Tensor[[8, 32], pl.FP32] = pl.mul(y, 0.5)
            y = pl.add(h, x)
        return y

    @pl.function(type=pl.FunctionType.Inline)
    def both(self, x: pl.Tensor[[8, 32], pl.FP32]) -> tuple[pl.Tensor[[8, 32], pl.FP32], pl.Tensor[[8, 32], pl.FP32]]:
        e: pl.Tensor[[8, 32], pl.FP32] = pl.exp(x)
        s: pl.Tensor[[8, 32], pl.FP32] = self.smooth(e, 2)
        return e, s

    @pl.function
    def main(self, a: pl.Tensor[[8, 32], pl.FP32], n: Idx) -> pl.Tensor[[8, 32], pl.FP32]:
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
        self, x: pl.Tensor[[16, 32], pl.FP32], f: F32, y: pl.Out[pl.Tensor[[16, 32], pl.FP32]]
    ) -> pl.Tensor[[16, 32], pl.FP32]:
        t: pl.Tile[[16, 32], pl.FP32] = pl.load(x, [0, 0], [16, 32])
        u: pl.Tile[[16, 32], pl.FP32] = pl.mul(t, f)
        y = pl.store(u, [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Inline)
    def twice(self, x: pl.Tensor[[16, 32], pl.FP32], f: F32) -> pl.Tensor[[16, 32], pl.FP32]:
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


@pl.program
class InlineInScope:
    @pl.function(type=pl.FunctionType.Inline)
    def blend(self, a: T16, b: T16, k: Idx) -> T16:
        r: T16 = a
        for j in pl.unroll(2):
            if k > j:
                r = pl.add(r, b)
        return r

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: T16, n: Idx, y: pl.Out[T16]) -> T16:
        acc: T16 = pl.mul(x, 0.5)
        with pl.at(level=pl.Level.CORE_GROUP):
            acc = self.blend(acc, x, n)
            t: V16 = pl.load(acc, [0, 0], [16, 16])
            y = pl.store(pl.exp(pl.mul(t, 0.1)), [0, 0], y)
        return y


INLINE_FUNCTIONS = [
    Case(InlineTileHelper, ((rand(64, 16), rand(64, 16), out(64, 16)),)),
    Case(InlineScalarShadowing, ((5, 3), (0, 7), (-4, 5), (9, -2))),
    Case(InlineArguments, ((0,), (4,), (-3,))),
    Case(InlineTensorHelper, ((rand(8, 32), 0), (rand(8, 32), 4))),
    Case(InlineOrchestration, ((rand(16, 32), out(16, 32)),)),
    Case(InlineInScope, tuple((rand(16, 16), n, out(16, 16)) for n in (0, 1, 3))),
]

# ------------------------------------------------------------------------------------------------
# UnrollLoops: pl.unroll loops over tiles, scalars, kernel calls and tensor slices.
# ------------------------------------------------------------------------------------------------


@pl.program
class UnrollTileRows:
    @pl.function(type=pl.FunctionType.InCore)
    def rows(self, x: T64, y: pl.Out[T64]) -> T64:
        acc: V16 = pl.load(x, [0, 0], [16, 16])
        for i in pl.unroll(1, 4):
            t: V16 = pl.load(x, [i * 16, 0], [16, 16])
            acc = pl.add(acc, t)
            y = pl.store(acc, [i * 16, 0], y)
        first: V16 = pl.load(x, [0, 0], [16, 16])
        y = pl.store(first, [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: T64, y: pl.Out[T64]) -> T64:
        y = self.rows(x, y)
        return y


@pl.program
class UnrollScalars:
    @pl.function
    def main(self, n: Idx) -> Idx:
        acc: Idx = 0
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
class UnrollValueAfterLoop:
    @pl.function
    def main(self, n: Idx) -> Idx:
        acc: Idx = 0
        for k in pl.unroll(0, 7, 3):
            last = k * 2 + n
            for j in pl.range(k):
                acc = acc + j
        for k in pl.unroll(3, 3):
            acc = acc + 1000
        return acc * 100 + last


@pl.program
class UnrollKernelCalls:
    @pl.function(type=pl.FunctionType.InCore)
    def block(
        self, x: pl.Tensor[[32, 64], pl.FP32], c: Idx, y: pl.InOut[pl.Tensor[[32, 64], pl.FP32]]
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
    Case(UnrollValueAfterLoop, ((0,), (5,))),
    Case(UnrollKernelCalls, ((rand(32, 64), out(32, 64)),)),
    Case(UnrollTensorSlices, ((rand(32, 32),),)),
]

# ------------------------------------------------------------------------------------------------
# CtrlFlowTransform: break and continue in InCore kernels.
# ------------------------------------------------------------------------------------------------


@pl.program
class BreakContinueTiles:
    @pl.function(type=pl.FunctionType.InCore)
    def rows(self, x: T64, skip: Idx, limit: Idx, y: pl.Out[T16]) -> T16:
        acc: V16 = pl.load(x, [0, 0], [16, 16])
        for r in pl.range(1, 4):
            if r == skip:
                continue
            if r > limit:
                break
            t: V16 = pl.load(x, [r * 16, 0], [16, 16])
            acc = pl.add(acc, t)
        y = pl.store(acc, [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: T64, skip: Idx, limit: Idx, y: pl.Out[T16]) -> T16:
        y = self.rows(x, skip, limit, y)
        return y


@pl.program
class BreakOnData:
    @pl.function(type=pl.FunctionType.InCore)
    def first_above(self, x: T16, thr: F32, y: pl.Out[T16]) -> T16:
        t: V16 = pl.load(x, [0, 0], [16, 16])
        i: Idx = 0
        while i < 16:
            v: F32 = pl.tile.read(t, [i, 0])
            if v > thr:
                break
            t = pl.mul(t, 2.0)
            i = i + 1
        y = pl.store(t, [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: T16, thr: F32, y: pl.Out[T16]) -> T16:
        y = self.first_above(x, thr, y)
        return y


@pl.program
class JumpsInNestedLoops:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, n: Idx, m: Idx) -> Idx:
        acc: Idx = 0
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
        k: Idx = 0
        while k < n:
            k = k + 1
            if k % 3 == 0:
                continue
            acc = acc + k
        return acc


@pl.program
class JumpsWithDynamicBounds:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, a: Idx, b: Idx) -> Idx:
        acc: Idx = 0
        for i in pl.range(a, b, -2):
            if i == 4:
                continue
            if acc > 30:
                break
            acc = acc + i
        return acc


@pl.program
class JumpsInInCoreScope:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: T64, limit: Idx, y: pl.Out[T16]) -> T16:
        with pl.at(level=pl.Level.CORE_GROUP):
            acc: V16 = pl.load(x, [0, 0], [16, 16])
            for r in pl.range(1, 4):
                if r > limit:
                    break
                t: V16 = pl.load(x, [r * 16, 0], [16, 16])
                if r == 2:
                    continue
                acc = pl.maximum(acc, t)
            y = pl.store(acc, [0, 0], y)
        return y


@pl.program
class ReturnInKernelLoop:
    @pl.function(type=pl.FunctionType.InCore)
    def rows(self, x: T64, n: Idx, out: pl.Out[T64]) -> T64:
        for i in pl.range(4):
            t = pl.load(x, [i * 16, 0], [16, 16])
            out = pl.store(pl.exp(t), [i * 16, 0], out)
            if i == n:
                return out
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: T64, n: Idx, out: pl.Out[T64]) -> T64:
        out = self.rows(x, n, out)
        return out


CTRL_FLOW_TRANSFORM = [
    Case(BreakContinueTiles, tuple((rand(64, 16), s, lim, out(16, 16)) for s, lim in ((2, 9), (0, 2), (3, 0)))),
    Case(BreakOnData, tuple((rand(16, 16), thr, out(16, 16)) for thr in (-5.0, 0.5, 1.5, 9.0))),
    Case(JumpsInNestedLoops, ((0, 0), (7, 4), (13, 11), (30, 6))),
    Case(JumpsWithDynamicBounds, ((10, 0), (3, 5), (40, -3))),
    Case(JumpsInInCoreScope, tuple((rand(64, 16), lim, out(16, 16)) for lim in (0, 2, 9))),
    Case(ReturnInKernelLoop, tuple((rand(64, 16), n, out(64, 16)) for n in (0, 2, 9))),
]

# ------------------------------------------------------------------------------------------------
# ConvertToSSA: re-assignment in if/for/while and scopes, loop-carried values, values first defined
# in loops or branches, jumping loops outside kernels.
# ------------------------------------------------------------------------------------------------


@pl.program
class ReassignTiles:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self, x: pl.Tensor[[16, 64], pl.FP32], n: Idx, y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]
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
        self, x: pl.Tensor[[16, 64], pl.FP32], n: Idx, y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]
    ) -> pl.Tensor[[16, 64], pl.FP32]:
        y = self.kernel(x, n, y)
        return y


@pl.program
class ReassignScalars:
    @pl.function
    def main(self, n: Idx, m: Idx) -> Idx:
        a: Idx = n
        b: Idx = m
        steps: Idx = 0
        while a != b:
            if a > b:
                a = a - b
            else:
                b = b - a
            steps = steps + 1
        total: Idx = 0
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
class LoopCarriedSwap:
    @pl.function
    def main(self, n: Idx) -> Idx:
        a: Idx = 1
        b: Idx = 2
        y: Idx = 0
        x: Idx = 0
        for i in pl.range(n):
            t = a
            a = b
            b = t + a
            y = x
            x = x + 1
        return a * 10000 + b * 100 + y * 10 + x


@pl.program
class FirstDefinedInBranches:
    @pl.function
    def main(self, n: Idx) -> Idx:
        if n > 2:
            z = n * 2
        else:
            z = 7
        w: Idx = 0
        for i in pl.range(n):
            if i % 2 == 0:
                v = i
            else:
                v = -i
            w = w + v
        return z * 100 + w


@pl.program
class JumpingLoopsOutsideKernels:
    @pl.function
    def main(self, n: Idx) -> Idx:
        acc: Idx = 0
        cnt: Idx = 0
        for i in pl.range(n):
            if i % 3 == 0:
                continue
            cnt = cnt + 1
            if acc > 10:
                break
            acc = acc + i
        j: Idx = 0
        while True:
            j = j + 2
            if j > n:
                break
        return acc * 10000 + cnt * 100 + j


@pl.program
class ReassignTupleResults:
    @pl.function
    def dm(self, a: Idx, b: Idx) -> tuple[Idx, Idx]:
        return a // b, a % b

    @pl.function
    def main(self, n: Idx) -> Idx:
        q: Idx = n
        r: Idx = 0
        for i in pl.range(3):
            q, r = self.dm(q + 7, 3)
            if r == 0:
                q, r = self.dm(q, 2)
        return q * 100 + r


@pl.program
class ReassignOutInLoop:
    @pl.function(type=pl.FunctionType.InCore)
    def bump(self, x: T16, acc: T16, y: pl.Out[T16]) -> T16:
        tx: V16 = pl.load(x, [0, 0], [16, 16])
        ta: V16 = pl.load(acc, [0, 0], [16, 16])
        s: V16 = pl.add(tx, ta)
        y = pl.store(s, [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: T16, n: Idx, y: pl.Out[T16]) -> T16:
        cur: T16 = x
        for i in pl.range(n):
            nxt: T16 = pl.create_tensor([16, 16], dtype=pl.FP32)
            nxt = self.bump(x, cur, nxt)
            if i > 1:
                nxt = pl.mul(nxt, 0.5)
            cur = nxt
        y = self.bump(x, cur, y)
        return y


@pl.program
class ReassignInScopes:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: T16, n: Idx, y: pl.Out[T16]) -> T16:
        acc: T16 = pl.add(x, x)
        for i in pl.range(n):
            with pl.at(level=pl.Level.CORE_GROUP):
                acc = pl.add(acc, x)
                acc = pl.mul(acc, 0.5)
        with pl.at(level=pl.Level.CORE_GROUP):
            t: V16 = pl.load(acc, [0, 0], [16, 16])
            y = pl.store(t, [0, 0], y)
        return y


CONVERT_TO_SSA = [
    Case(ReassignTiles, tuple((rand(16, 64), n, out(16, 64)) for n in (0, 1, 2, 5))),
    Case(ReassignScalars, ((12, 18), (7, 7), (1, 9), (21, 6))),
    Case(LoopCarriedSwap, ((0,), (1,), (5,))),
    Case(FirstDefinedInBranches, ((0,), (3,), (6,))),
    Case(JumpingLoopsOutsideKernels, ((0,), (4,), (20,))),
    Case(ReassignTupleResults, ((0,), (5,), (100,))),
    Case(ReassignOutInLoop, tuple((rand(16, 16), n, out(16, 16)) for n in (0, 1, 4))),
    Case(ReassignInScopes, tuple((rand(16, 16), n, out(16, 16)) for n in (0, 3))),
]

# ------------------------------------------------------------------------------------------------
# Simplify: constant folding, identities, range-decided branches, 0/1-trip loops, dead scalars.
# ------------------------------------------------------------------------------------------------


@pl.program
class FoldScalars:
    @pl.function
    def main(self, n: Idx) -> Idx:
        base: Idx = (7 * 3 - 1) // 3
        neg: Idx = -7 // 2 + -7 % 3
        zero = n * 0 + (n - n)
        one = min(n, n) - n + 1
        acc: Idx = n * 1 + 0
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
        dead = n * 99  # noqa: F841 - dead on purpose: Simplify removes it
        return acc + base * 100 + neg * 10 + zero + one


@pl.program
class FoldTileShapes:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self, x: pl.Tensor[[32, 32], pl.FP32], y: pl.Out[pl.Tensor[[32, 32], pl.FP32]]
    ) -> pl.Tensor[[32, 32], pl.FP32]:
        h: Idx = 4 * 4
        w: Idx = h * 2
        t = pl.load(x, [0, 0], [h, w])
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
        self, x: pl.Tensor[[32, 32], pl.FP32], y: pl.Out[pl.Tensor[[32, 32], pl.FP32]]
    ) -> pl.Tensor[[32, 32], pl.FP32]:
        y = self.kernel(x, y)
        return y


@pl.program
class FoldTensorBranches:
    @pl.function
    def main(self, x: pl.Tensor[[8, 16], pl.FP32], n: Idx) -> pl.Tensor[[8, 16], pl.FP32]:
        rows: Idx = 2 * 4
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
            unused = n + 1  # noqa: F841 - dead on purpose: Simplify removes it
            if n <= 5:
                y = pl.sub(y, x)
        for i in pl.range(n):
            if i >= 0:  # noqa: SIM102 - nested on purpose: each condition is decided separately
                if i < n:
                    y = pl.add(y, 1.0)
        return y


SIMPLIFY = [
    Case(FoldScalars, ((0,), (3,), (-5,))),
    Case(FoldTileShapes, ((rand(32, 32), out(32, 32)),)),
    Case(FoldTensorBranches, tuple((rand(8, 16), n) for n in (0, 4, 6))),
]

# ------------------------------------------------------------------------------------------------
# NormalizeStmtStructure: the passes before it already leave flat blocks, so the cases re-nest the
# blocks of the program it receives (``nest_blocks``) for it to flatten again.
# ------------------------------------------------------------------------------------------------


def _nest(stmt: ir.Stmt) -> ir.Stmt:
    if isinstance(stmt, ir.SeqStmts):
        stmts = [_nest(s) for s in stmt.stmts]
        half = len(stmts) // 2
        return ir.SeqStmts([ir.SeqStmts(stmts[:half], stmt.span), ir.SeqStmts(stmts[half:], stmt.span)], stmt.span)
    bodies = {f: getattr(stmt, f, None) for f in ("then_body", "else_body", "body")}
    changes = {f: _wrapped(b) for f, b in bodies.items() if isinstance(b, ir.Stmt)}
    return ir.replace(stmt, **changes) if changes else stmt


def _wrapped(body: ir.Stmt) -> ir.SeqStmts:
    nested = _nest(body)
    return nested if isinstance(nested, ir.SeqStmts) else ir.SeqStmts([nested], body.span)


def nest_blocks(program: ir.Program) -> ir.Program:
    """``program`` with every block split into two nested halves and every single-statement body
    wrapped in a block of its own: the same meaning, in the shape NormalizeStmtStructure removes."""
    functions = [ir.replace(f, body=_wrapped(f.body)) for f in program.functions.values()]
    return ir.Program(functions, program.name, program.span)


@pl.program
class SingleStoreLoopBody:
    @pl.function(type=pl.FunctionType.Inline)
    def twice(self, t: V16) -> V16:
        u: V16 = pl.add(t, t)
        return u

    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: T64, y: pl.Out[T64]) -> T64:
        t: V16 = pl.load(x, [0, 0], [16, 16])
        for k in pl.unroll(2):
            t = self.twice(t)
        for r in pl.range(4):
            dead = r * 3  # noqa: F841 - dead on purpose: Simplify removes it
            if r > 7:
                pl.store(pl.exp(t), [r * 16, 0], y)
            pl.store(t, [r * 16, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: T64, y: pl.Out[T64]) -> T64:
        y = self.kernel(x, y)
        return y


@pl.program
class SingleKernelCallLoopBody:
    @pl.function(type=pl.FunctionType.InCore)
    def block(self, x: T64, r: Idx, y: pl.InOut[T64]) -> T64:
        t: V16 = pl.load(x, [r * 16, 0], [16, 16])
        y = pl.store(pl.exp(t), [r * 16, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: T64, n: Idx, y: pl.InOut[T64]) -> T64:
        for r in pl.range(n):
            dead = r * 2  # noqa: F841 - dead on purpose: Simplify removes it
            self.block(x, r, y)
        return y


@pl.program
class SingleWriteLoopBody:
    @pl.function
    def main(
        self, x: pl.Tensor[[16], pl.FP32], n: Idx, y: pl.InOut[pl.Tensor[[16], pl.FP32]]
    ) -> pl.Tensor[[16], pl.FP32]:
        for i in pl.range(16):
            if i > 20:
                pl.tensor.write(y, [i], 0.0)
            if i < n:
                pl.tensor.write(y, [i], pl.tensor.read(x, [15 - i]))
        return y


NORMALIZE_STMT_STRUCTURE = [
    Case(SingleStoreLoopBody, ((rand(64, 16), out(64, 16)),), nest_blocks),
    Case(SingleKernelCallLoopBody, tuple((rand(64, 16), n, rand(64, 16)) for n in (0, 2, 4)), nest_blocks),
    Case(SingleWriteLoopBody, tuple((rand(16), n, rand(16)) for n in (0, 5, 16)), nest_blocks),
    Case(ReassignTiles, tuple((rand(16, 64), n, out(16, 64)) for n in (0, 1, 2, 5)), nest_blocks),
    Case(ReassignScalars, ((12, 18), (7, 7), (1, 9), (21, 6)), nest_blocks),
    Case(ReassignInScopes, tuple((rand(16, 16), n, out(16, 16)) for n in (0, 3)), nest_blocks),
]

# ------------------------------------------------------------------------------------------------
# FlattenCallExpr: calls nested in arguments, operands, conditions, bounds, returns and yields.
# ------------------------------------------------------------------------------------------------


@pl.program
class NestedTileCalls:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self, a: pl.Tensor[[16, 32], pl.FP32], b: pl.Tensor[[16, 32], pl.FP32], y: pl.Out[pl.Tensor[[16, 32], pl.FP32]]
    ) -> pl.Tensor[[16, 32], pl.FP32]:
        y = pl.store(pl.add(pl.exp(pl.load(a, [0, 0], [16, 32])), pl.load(b, [0, 0], [16, 32])), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self, a: pl.Tensor[[16, 32], pl.FP32], b: pl.Tensor[[16, 32], pl.FP32], y: pl.Out[pl.Tensor[[16, 32], pl.FP32]]
    ) -> pl.Tensor[[16, 32], pl.FP32]:
        y = self.kernel(pl.mul(a, b), pl.add(a, pl.neg(b)), y)
        return y


@pl.program
class CallsInControl:
    @pl.function
    def main(self, x: pl.Tensor[[8, 12], pl.FP32], n: Idx) -> Idx:
        acc: Idx = pl.tensor.dim(x, 0) * 2 + n
        if pl.tensor.dim(x, 1) > n:
            acc = acc + pl.tensor.dim(x, 1)
        for i in pl.range(pl.tensor.dim(x, 0) - n):
            acc = acc + i
        i: Idx = 0
        while i < pl.tensor.dim(x, 1) - n:
            i = i + 1
        return acc * 100 + i


@pl.program
class CallsInScalarArithmetic:
    @pl.function
    def main(self, x: pl.Tensor[[8, 12], pl.FP32], n: Idx) -> F32:
        s: F32 = pl.tensor.read(x, [0, 0]) * 2.0 + pl.tensor.read(x, [1, 1])
        if pl.tensor.read(x, [2, 2]) > s:
            s = -s
        for i in pl.range(pl.tensor.dim(x, 0) // 2, pl.tensor.dim(x, 0) + n - 8):
            s = s + pl.tensor.read(x, [i % 8, i % 12])
        return s


@pl.program
class CallsInYieldAndReturn:
    @pl.function
    def main(self, x: pl.Tensor[[8, 16], pl.FP32], n: Idx) -> pl.Tensor[[8, 16], pl.FP32]:
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
    def main(self, x: pl.Tensor[[16], pl.FP32], thr: F32) -> Idx:
        i: Idx = 0
        while i < 15 and pl.tensor.read(x, [i]) < thr:
            i = i + 1
        return i * pl.tensor.dim(x, 0)


FLATTEN_CALL_EXPR = [
    Case(NestedTileCalls, ((rand(16, 32), rand(16, 32), out(16, 32)),)),
    Case(CallsInControl, tuple((rand(8, 12), n) for n in (0, 3, 10, 14))),
    Case(CallsInScalarArithmetic, tuple((rand(8, 12), n) for n in (0, 3, 9))),
    Case(CallsInYieldAndReturn, tuple((rand(8, 16), n) for n in (0, 1, 4))),
    Case(CallInWhileCondition, tuple((np.arange(16, dtype=np.float32), thr) for thr in (-1.0, 4.5, 20.0))),
]

def _memory_case(name: str, program: str, before: tuple[str, ...]) -> Case:
    """A split_core program of ``memory_programs`` for a memory-planning pass, prepared by the
    planning passes that run before it (``before``: pass factory names)."""
    from memory_programs import PROGRAMS

    from pypto import passes
    from pypto.language.parser.text_parser import parse_program

    src, inputs = PROGRAMS[program]

    def prepare(p: ir.Program) -> ir.Program:
        for factory in before:
            p = getattr(passes, factory)()(p)
        return p

    return Case(parse_program(src.replace("class P:", f"class {name}:")), (inputs,), prepare)


def _memory_cases(before: tuple[str, ...]) -> list[Case]:
    chosen = {"TileAdd": "tile_add", "Softmax": "softmax", "CarryMove": "carry_move", "Branch": "branch_else",
              "Accumulate": "accumulate"}
    return [_memory_case(name, program, before) for name, program in chosen.items()]


# ------------------------------------------------------------------------------------------------
# OutlineHierarchyScopes, OutlineIncoreScopes, OutlineClusterScopes: scopes become functions.
# ------------------------------------------------------------------------------------------------
# ConvertTensorToTileOps: tensor ops in outlined kernels (entry loads, slices, slice assignment,
# loop carries, reductions, returned tensors).
# ------------------------------------------------------------------------------------------------


@pl.program
class ConvertChain:
    @pl.function
    def main(self, a: T16, b: T16, out: pl.Out[T16]) -> T16:
        with pl.at(level=pl.Level.CORE_GROUP):
            c = pl.add(a, b)
            d = pl.exp(c)
            out[:] = pl.mul(d, 2.0)
        return out


@pl.program
class ConvertRowsInLoop:
    @pl.function
    def main(self, x: T64, out: pl.Out[T64]) -> T64:
        for i in pl.range(4):
            with pl.at(level=pl.Level.CORE_GROUP):
                t = x[i * 16 : i * 16 + 16, :]
                out[i * 16 : i * 16 + 16, :] = pl.add(pl.exp(t), 1.0)
        return out


@pl.program
class ConvertSoftmaxReturned:
    @pl.function
    def main(self, x: T16) -> T16:
        with pl.at(level=pl.Level.CORE_GROUP):
            m = pl.row_max(x)
            e = pl.exp(pl.row_expand_sub(x, m))
            y = pl.row_expand_div(e, pl.row_sum(e))
        return y


@pl.program
class ConvertCarryInKernel:
    @pl.function
    def main(self, x: T16, n: Idx, out: pl.Out[T16]) -> T16:
        with pl.at(level=pl.Level.CORE_GROUP):
            for i, (acc,) in pl.range(n, init_values=(x,)):
                acc2 = pl.yield_(pl.add(acc, x))
            out[:] = acc2
        return out


def _outlined(program: ir.Program) -> ir.Program:
    from pypto import passes

    for p in (passes.outline_hierarchy_scopes(), passes.outline_incore_scopes(), passes.outline_cluster_scopes()):
        program = p(program)
    return program


CONVERT_TENSOR_TO_TILE_OPS = [
    Case(ConvertChain, ((rand(16, 16), rand(16, 16), out(16, 16)),), _outlined),
    Case(ConvertRowsInLoop, ((rand(64, 16), out(64, 16)),), _outlined),
    Case(ConvertSoftmaxReturned, ((rand(16, 16),),), _outlined),
    Case(ConvertCarryInKernel, tuple((rand(16, 16), n, out(16, 16)) for n in (0, 1, 3)), _outlined),
]

# ------------------------------------------------------------------------------------------------
# ElideTensorCarries: kernels that store into their output through a loop or an if.
# ------------------------------------------------------------------------------------------------


@pl.program
class ElideRowsLoop:
    @pl.function(type=pl.FunctionType.InCore)
    def rows(self, x: T64, out: pl.Out[T64]) -> T64:
        for i in pl.range(4):
            t = pl.load(x, [i * 16, 0], [16, 16])
            out = pl.store(pl.add(t, 1.0), [i * 16, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: T64, out: pl.Out[T64]) -> T64:
        out = self.rows(x, out)
        return out


@pl.program
class ElideBranchStores:
    @pl.function(type=pl.FunctionType.InCore)
    def pick(self, x: T16, n: Idx, out: pl.Out[T16]) -> T16:
        t = pl.load(x, [0, 0], [16, 16])
        if n > 1:
            out = pl.store(pl.mul(t, 3.0), [0, 0], out)
        else:
            out = pl.store(pl.exp(t), [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: T16, n: Idx, out: pl.Out[T16]) -> T16:
        out = self.pick(x, n, out)
        return out


@pl.program
class ElideReturnInLoop:
    @pl.function(type=pl.FunctionType.InCore)
    def first_rows(self, x: T64, n: Idx, out: pl.Out[T64]) -> T64:
        s: pl.Scalar[pl.FP32] = 0.0
        for i in pl.range(4):
            t = pl.load(x, [i * 16, 0], [16, 16])
            s = s + 1.0
            out = pl.store(pl.add(t, s), [i * 16, 0], out)
            if i == n:
                return out
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: T64, n: Idx, out: pl.Out[T64]) -> T64:
        out = self.first_rows(x, n, out)
        return out


def _tiled_kernels(program: ir.Program) -> ir.Program:
    return passes.convert_tensor_to_tile_ops()(_outlined(program))


ELIDE_TENSOR_CARRIES = [
    Case(ElideRowsLoop, ((rand(64, 16), out(64, 16)),), _tiled_kernels),
    Case(ElideBranchStores, tuple((rand(16, 16), n, out(16, 16)) for n in (0, 2)), _tiled_kernels),
    Case(ElideReturnInLoop, tuple((rand(64, 16), n, out(64, 16)) for n in (1, 7)), _tiled_kernels),
]

# ------------------------------------------------------------------------------------------------


@pl.program
class OutlineRowsInLoop:
    @pl.function
    def main(self, x: T64, acc: pl.InOut[T64], n: Idx) -> T64:
        for i in pl.range(n):
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.tensor.slice(x, [16, 16], [i * 16, 0])
                a = pl.tensor.slice(acc, [16, 16], [i * 16, 0])
                y = pl.add(pl.exp(t), a)
                acc[i * 16 : i * 16 + 16, :] = y
        return acc


@pl.program
class OutlineTasks:
    @pl.function
    def main(self, x: T16, out: pl.Out[T16], k: F32) -> T16:
        with pl.at(level=pl.Level.CORE_GROUP) as t0:
            y = pl.mul(x, k)
        with pl.at(level=pl.Level.CORE_GROUP, deps=[t0], no_dep_args=[out]):
            z = pl.add(y, x)
            out[:] = z
        w = pl.sub(out, y)
        return w


@pl.program
class OutlineUnderIf:
    @pl.function
    def main(self, x: T16, n: Idx) -> T16:
        if n > 2:
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="big"):
                y = pl.mul(x, 3.0)
        else:
            with pl.at(level=pl.Level.CORE_GROUP):
                y = pl.neg(x)
        return y


@pl.program
class OutlineHostLevel:
    @pl.function
    def main(self, x: T16, n: Idx) -> T16:
        y = pl.add(x, x)
        with pl.at(level=pl.Level.HOST, role=pl.Role.Orchestrator):
            z = pl.mul(y, x)
            for i, (s,) in pl.range(n, init_values=(z,)):
                s2 = pl.yield_(pl.add(s, x))
        return s2


@pl.program
class OutlineNestedLevels:
    @pl.function
    def main(self, x: T16, out: pl.Out[T16]) -> T16:
        with pl.at(level=pl.Level.HOST):
            y = pl.exp(x)
            with pl.at(level=pl.Level.CHIP, role=pl.Role.Orchestrator):
                with pl.at(level=pl.Level.CORE_GROUP):
                    out[:] = pl.mul(y, x)
        return out


@pl.program
class OutlineLevelInLoop:
    @pl.function
    def main(self, x: T16, n: Idx) -> T16:
        for i, (s,) in pl.range(n, init_values=(x,)):
            with pl.at(level=pl.Level.CHIP):
                t = pl.add(s, x)
            s2 = pl.yield_(t)
        return s2


@pl.program
class OutlineSpmdRows:
    @pl.function
    def main(self, x: T64, out: pl.Out[T64]) -> T64:
        for i in pl.spmd(4):
            t = x[i * 16 : i * 16 + 16, :]
            out[i * 16 : i * 16 + 16, :] = pl.exp(t)
        return out


@pl.program
class OutlineClusterPair:
    @pl.function
    def main(self, a: T16, b: T16) -> T16:
        with pl.cluster():
            with pl.at(level=pl.Level.CORE_GROUP):
                c = pl.add(a, b)
            with pl.at(level=pl.Level.CORE_GROUP):
                d = pl.mul(c, a)
        return pl.sub(d, b)


@pl.program
class OutlineClusterOfSpmd:
    @pl.function(type=pl.FunctionType.InCore)
    def rows(self, x: T64, out: pl.Out[T64]) -> T64:
        b = pl.tile.get_block_idx()
        t: pl.Tile[[16, 16], pl.FP32] = pl.load(x, [b * 16, 0], [16, 16])
        r: T64 = pl.store(pl.exp(t), [b * 16, 0], out)
        return r

    @pl.function
    def main(self, x: T64, out: pl.Out[T64], n: Idx) -> T64:
        with pl.cluster():
            with pl.spmd(n):
                out = self.rows(x, out)
        return out


def _outline_incore(program: ir.Program) -> ir.Program:
    from pypto import passes

    return passes.outline_incore_scopes()(program)


def _outline_hierarchy(program: ir.Program) -> ir.Program:
    from pypto import passes

    return passes.outline_hierarchy_scopes()(program)


OUTLINE_HIERARCHY_SCOPES = [
    Case(OutlineHostLevel, tuple((rand(16, 16), n) for n in (0, 3))),
    Case(OutlineNestedLevels, ((rand(16, 16), out(16, 16)),)),
    Case(OutlineLevelInLoop, tuple((rand(16, 16), n) for n in (0, 1, 4))),
]
OUTLINE_INCORE_SCOPES = [
    Case(OutlineRowsInLoop, tuple((rand(64, 16), rand(64, 16), n) for n in (0, 2, 4))),
    Case(OutlineTasks, ((rand(16, 16), out(16, 16), 1.5),)),
    Case(OutlineUnderIf, tuple((rand(16, 16), n) for n in (1, 5))),
    Case(OutlineNestedLevels, ((rand(16, 16), out(16, 16)),), _outline_hierarchy),
]
OUTLINE_CLUSTER_SCOPES = [
    Case(OutlineSpmdRows, ((rand(64, 16), out(64, 16)),), _outline_incore),
    Case(OutlineClusterPair, ((rand(16, 16), rand(16, 16)),), _outline_incore),
    Case(OutlineClusterOfSpmd, tuple((rand(64, 16), out(64, 16), n) for n in (1, 4)), _outline_incore),
]


def _lowered_to_memref(program: ir.Program) -> ir.Program:
    """The lowering passes before ExportEntryResults."""
    from pypto import passes

    for p in passes.lowering_passes():
        if p.name == "ExportEntryResults":
            return program
        program = p(program)
    raise AssertionError("ExportEntryResults is not in the lowering pipeline")


EXPORT_ENTRY_RESULTS = [
    Case(erp.CreatedResult, ((rand(16, 16),),), _lowered_to_memref),
    Case(erp.CreatedInline, ((rand(16, 16),),), _lowered_to_memref),
    Case(erp.CreatedMixed, ((rand(16, 16), out(16, 16)),), _lowered_to_memref),
]

# DeriveCallDirections, AutoDeriveTaskDependencies, ExpandManualPhaseFence, MaterializeRuntimeScopes, ClassifyIterArgCarry, InsertPipeSync:
# hand-written memref-form programs of runtime_programs.py, prepared by the runtime passes before the one tested.
# ------------------------------------------------------------------------------------------------


def _runtime_case(name: str, source: str, before: tuple[str, ...], entry_kernel: bool = False) -> Case:
    """``source`` (renamed ``name``) for a runtime pass, after the passes ``before`` (factory names)."""
    import runtime_programs as rp

    from pypto import passes

    program = rp.parse(source.replace("class Prog:", f"class {name}:").replace("class Kernel:", f"class {name}:"))

    def prepare(p: ir.Program) -> ir.Program:
        for factory in before:
            p = getattr(passes, factory)()(p)
        return p

    inputs = rp.kernel_inputs(program.get_function("kern")) if entry_kernel else rp.inputs(program)
    return Case(program, (tuple(inputs),), prepare)


def _runtime_cases() -> dict[str, list[Case]]:
    import runtime_programs as rp

    steps = ("derive_call_directions", "materialize_runtime_scopes", "classify_iter_arg_carry")
    orch = {"RtChain": rp.DIRECTIONS["internal_tensor_chain"], "RtLoop": rp.DIRECTIONS["inside_sequential_loop"],
            "RtBranch": rp.DIRECTIONS["branch_does_not_see_other_branch"], "RtWhile": rp.DIRECTIONS["while_loop"]}
    loops = {"RtLoop": rp.DIRECTIONS["inside_sequential_loop"], "RtNested": rp.DIRECTIONS["parallel_inside_sequential"],
             "RtParallel": rp.DIRECTIONS["inside_parallel_loop"]}
    fences = {"RtPhases": "parallel_carry_phase_fence", "RtArray": "task_id_array_consumers",
              "RtSequential": "array_consumers_in_a_sequential_loop"}
    derived = {"RtChain": "internal_tensor_chain", "RtInOut": "second_write_is_inout",
               "RtSubmit": "submit_stays_submit", "RtNoDep": "no_dep_is_kept"}
    kernels = {"SyncTileAdd": "tile_add", "SyncLoop": "loop_carry", "SyncMatmul": "matmul", "SyncBranch": "branch"}
    return {
        "DeriveCallDirections": [_runtime_case(f"{n}Dirs", src, ()) for n, src in orch.items()],
        "AutoDeriveTaskDependencies": [_runtime_case(f"{n}Derived", rp.DIRECTIONS[k], steps[:1])
                                       for n, k in derived.items()],
        "ExpandManualPhaseFence": [_runtime_case(f"{n}Fence", rp.PHASE_FENCES[k], steps[:1])
                                   for n, k in fences.items()],
        "MaterializeRuntimeScopes": [_runtime_case(f"{n}Scopes", src, steps[:1]) for n, src in orch.items()],
        "ClassifyIterArgCarry": [_runtime_case(f"{n}Carry", src, steps[:2]) for n, src in loops.items()],
        "InsertPipeSync": [_runtime_case(n, rp.KERNELS[k], steps, entry_kernel=True) for n, k in kernels.items()],
    }


CASES: dict[str, list[Case]] = {
    "InlineFunctions": INLINE_FUNCTIONS,
    "UnrollLoops": UNROLL_LOOPS,
    "CtrlFlowTransform": CTRL_FLOW_TRANSFORM,
    "ConvertToSSA": CONVERT_TO_SSA,
    "Simplify": SIMPLIFY,
    "NormalizeStmtStructure": NORMALIZE_STMT_STRUCTURE,
    "FlattenCallExpr": FLATTEN_CALL_EXPR,
    **_runtime_cases(),
    "InitMemRef": _memory_cases(()),
    "MemoryReuse": _memory_cases(("init_memref",)),
    "AllocateMemoryAddr": _memory_cases(("init_memref", "memory_reuse")),
    "OutlineHierarchyScopes": OUTLINE_HIERARCHY_SCOPES,
    "OutlineIncoreScopes": OUTLINE_INCORE_SCOPES,
    "OutlineClusterScopes": OUTLINE_CLUSTER_SCOPES,
    "ExportEntryResults": EXPORT_ENTRY_RESULTS,
    "MaterializeValidShapeSymbols": [
        Case(vsp.ValidRowsKernel, ((rand(80, 64), out(80, 64)), (rand(64, 64), out(64, 64)))),
        Case(vsp.ValidColsKernel, ((rand(16, 200), out(16, 200)),)),
        Case(vsp.ValidRowsTwoInputs, ((rand(80, 64), rand(80, 64), out(80, 64)),)),
    ],
    "ConvertTensorToTileOps": CONVERT_TENSOR_TO_TILE_OPS,
    "ElideTensorCarries": ELIDE_TENSOR_CARRIES,
}

# ------------------------------------------------------------------------------------------------
# Tile-stage passes (outlined -> split_core) on the tile-level programs of tile_programs.py. Each
# case's ``prepare`` applies the tile-stage passes before the one under test.
# ------------------------------------------------------------------------------------------------


def _tile_case(name: str, *before: str, prepare: Callable[[ir.Program], ir.Program] | None = None) -> Case:
    def run_before(program: ir.Program) -> ir.Program:
        for factory in before:
            program = getattr(passes, factory)()(program)
        return prepare(program) if prepare is not None else program

    program = tile_programs.parse(name)
    inputs = tuple(tuple(tile_programs.inputs(program, seed)) for seed in (0, 1))
    return Case(program, inputs, run_before if before or prepare else None)


def _view_in_main(program: ir.Program) -> ir.Program:
    """``main`` first takes a DN view of its first tensor (a view without strides; unused)."""
    main = program.get_function("main")
    first = main.params[0]
    view = ir.op.tensor.view(first, layout=ir.TensorLayout.DN)
    stmt = ir.AssignStmt(ir.Var(f"{first.name_hint}_dn", view.type), view)
    main = ir.replace(main, body=ir.SeqStmts([stmt, *main.body.stmts]))
    return ir.Program([f if f.name != "main" else main for f in program.functions.values()], program.name)


CASES["AutoTileMatmulL0"] = [_tile_case(n) for n in ("big_k", "big_k_accumulated", "fp32_big_k_and_small")]
_SPLIT = ("infer_tile_memory_space", "expand_mixed_kernel", "normalize_return_order")
CASES["InferTileMemorySpace"] = [
    _tile_case(n) for n in ("matmul_from_vec", "accumulate_in_loop", "moves_per_block", "move_reused_inside")
]
CASES["ExpandMixedKernel"] = [
    _tile_case(n, "infer_tile_memory_space") for n in ("tile_add", "matmul", "loop_carry", "softmax")
]
CASES["InjectGMPipeBuffer"] = [  # a Group calling a mixed kernel, a vector->cube pipe, an SPMD two-way pipe
    Case(program, tuple(tuple(tile_programs.inputs(program, seed)) for seed in (0, 1)),
         lambda p: passes.expand_mixed_kernel()(p))
    for program in (mixed_programs.placed(n) for n in ("group_caller", "vec_to_cube", "attention"))
]
CASES["SplitVectorKernel"] = [  # cube->vector, vector->cube, a two-way loop on two SPMD blocks
    Case(program, tuple(tuple(tile_programs.inputs(program, seed)) for seed in (0, 1)),
         lambda p: passes.normalize_return_order()(passes.inject_gm_pipe_buffer()(passes.expand_mixed_kernel()(p))))
    for program in (mixed_programs.placed(n) for n in ("mm_bias_relu", "vec_to_cube", "attention"))
]
CASES["NormalizeReturnOrder"] = [
    _tile_case(n, "infer_tile_memory_space", "expand_mixed_kernel") for n in ("tile_add", "loop_carry", "two_outputs")
]
CASES["MaterializeTensorStrides"] = [
    _tile_case(n, *_SPLIT, prepare=_view_in_main) for n in ("tile_add", "matmul", "softmax")
]

def _stage_case(name: str, *before: str) -> Case:
    """A case of ``tile_stage_programs``; the passes named by ``before`` (factories) prepare it."""

    def run_before(program: ir.Program) -> ir.Program:
        for factory in before:
            program = getattr(passes, factory)()(program)
        return program

    program = tile_stage_programs.parse(name)
    inputs = tuple(tuple(tile_programs.inputs(program, seed)) for seed in (0, 1))
    return Case(program, inputs, run_before if before else None)


CASES["FlattenTileNdTo2D"] = [_stage_case(n) for n in sorted(tile_stage_programs.ND)]
CASES["CanonicalizeTileSlice"] = [_stage_case(n) for n in sorted(tile_stage_programs.SLICES)]
CASES["ResolveBackendOpLayouts"] = [
    _stage_case(n, "infer_tile_memory_space") for n in sorted(tile_stage_programs.LAYOUTS)
]
# Integer-valued data: a cast chain through a narrower float rounds twice, exactly only on such data.
CASES["LegalizeTileCast"] = [
    Case(p, tuple(tuple(tile_stage_programs.integral_inputs(p, seed)) for seed in (0, 1)))
    for p in (tile_stage_programs.parse(n) for n in sorted(tile_stage_programs.CASTS))
]

# ------------------------------------------------------------------------------------------------
# REGRESSIONS: programs on which a pass once changed the meaning (one defect each).
# ------------------------------------------------------------------------------------------------


@pl.program
class BoundReassignedInKernelLoop:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, n: Idx, s: Idx) -> Idx:
        acc: Idx = 0
        for i in pl.range(0, n, s):
            n = n - 1
            s = s + 1
            if acc > 40:
                break
            acc = acc + i
        return acc * 100 + n


@pl.program
class BoundReassignedInJumpingLoop:
    @pl.function
    def main(self, n: Idx) -> Idx:
        acc: Idx = 0
        for i in pl.range(n):
            n = n - 1
            if acc > 40:
                break
            acc = acc + i
        return acc * 100 + n


@pl.program
class OneTripLoopWithBreak:
    @pl.function(type=pl.FunctionType.InCore)
    def block(self, x: T64, r: Idx, y: pl.InOut[T64]) -> T64:
        t: V16 = pl.load(x, [r * 16, 0], [16, 16])
        y = pl.store(pl.exp(t), [r * 16, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: T64, k: Idx, y: pl.InOut[T64]) -> T64:
        for r in pl.range(4):
            for once in pl.range(1):
                if r == k:
                    break
                self.block(x, r, y)
        return y


@pl.program
class NarrowIntConstants:
    @pl.function
    def main(self, n: pl.Scalar[pl.INT32]) -> pl.Scalar[pl.INT32]:
        big: pl.Scalar[pl.INT32] = pl.const(2147483647, pl.INT32)
        wrapped: pl.Scalar[pl.INT32] = big + pl.const(1, pl.INT32)
        small: pl.Scalar[pl.INT8] = pl.cast(200, pl.INT8)
        r: pl.Scalar[pl.INT32] = n
        if wrapped < pl.const(0, pl.INT32):
            r = r + pl.const(1, pl.INT32)
        if small < pl.const(0, pl.INT8):
            r = r + pl.const(10, pl.INT32)
        return r


@pl.program
class FP32Constants:
    @pl.function
    def main(self, n: Idx) -> Idx:
        f: F32 = 16777216.0
        g: F32 = f + 1.0
        r: Idx = n
        if g > f:
            r = r + 1
        return r


@pl.program
class FloatPlusZero:
    @pl.function
    def main(self, x: F32) -> F32:
        z: F32 = 0.0
        s: F32 = x + z
        return 1.0 / s


@pl.program
class RangeAfterReassignment:
    @pl.function
    def main(self, n: Idx) -> Idx:
        x: Idx = n
        r: Idx = 0
        if x > 5:
            x = 0
            if x > 3:
                r = 100
        return r + x


REGRESSIONS: dict[str, list[Case]] = {
    # The range bounds were re-read every iteration once the loop became a while.
    "CtrlFlowTransform": [Case(BoundReassignedInKernelLoop, ((0, 1), (5, 1), (30, 2)))],
    "ConvertToSSA": [Case(BoundReassignedInJumpingLoop, ((0,), (5,), (30,)))],
    "Simplify": [
        # A collapsed 1-trip loop let its break leave the enclosing loop.
        Case(OneTripLoopWithBreak, tuple((rand(64, 16), k, out(64, 16)) for k in (9, 1))),
        # Constants folded without wrapping / in double precision; float x + 0 rewritten to x.
        Case(NarrowIntConstants, ((3,),)),
        Case(FP32Constants, ((3,),)),
        Case(FloatPlusZero, ((-0.0,), (2.0,))),
        # On a surface program a range learnt from a condition outlived a re-assignment.
        Case(RangeAfterReassignment, ((0,), (9,))),
    ],
}

# ------------------------------------------------------------------------------------------------
# Loops whose step is negative only at run time (regressions of CtrlFlowTransform / ConvertToSSA).
# ------------------------------------------------------------------------------------------------


@pl.program
class RuntimeStepInKernelLoop:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, a: Idx, b: Idx, s: Idx) -> Idx:
        acc: Idx = 0
        for i in pl.range(a, b, s):
            if acc > 30:
                break
            acc = acc + i
        return acc


@pl.program
class RuntimeStepInJumpingLoop:
    @pl.function
    def main(self, a: Idx, b: Idx, s: Idx) -> Idx:
        acc: Idx = 0
        for i in pl.range(a, b, s):
            if acc > 30:
                break
            acc = acc + i
        return acc


# A loop whose step is negative only at run time counted upwards once it became a while (fixed).
REGRESSIONS["CtrlFlowTransform"].append(Case(RuntimeStepInKernelLoop, ((0, 10, 2), (10, 0, -1), (10, 0, -3))))
REGRESSIONS["ConvertToSSA"].append(Case(RuntimeStepInJumpingLoop, ((0, 10, 2), (10, 0, -1), (10, 0, -3))))


@pl.program
class LoopVarReassignedInKernelLoop:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, n: Idx) -> Idx:
        acc: Idx = 0
        for i in pl.range(n):
            if acc > 100:
                break
            i = i * 3
            acc = acc + i
        return acc


@pl.program
class LoopVarReassignedInUnroll:
    @pl.function
    def main(self, n: Idx) -> Idx:
        acc: Idx = n
        for i in pl.unroll(3):
            i = i * 3
            acc = acc + i
        return acc


# A body re-assigning the loop variable moved the counter of the while a breaking loop became (fixed).
REGRESSIONS["CtrlFlowTransform"].append(Case(LoopVarReassignedInKernelLoop, ((0,), (4,), (20,))))
@pl.program
class UnrollBoundFromOuterUnroll:
    @pl.function
    def main(self, n: Idx) -> Idx:
        acc: Idx = n
        for i in pl.unroll(4):
            for j in pl.unroll(i):
                acc = acc * 2 + j
        return acc


# A body re-assigning the loop variable made UnrollLoops fail with an internal error (fixed).
REGRESSIONS["UnrollLoops"] = [Case(LoopVarReassignedInUnroll, ((0,), (4,)))]
# An inner pl.unroll bounded by the outer one's variable was rejected as non-constant (fixed:
# outer loops unroll first).
REGRESSIONS["UnrollLoops"].append(Case(UnrollBoundFromOuterUnroll, ((1,), (-3,))))


@pl.program
class OneTripLoopReassigningBinders:
    @pl.function
    def main(self, n: Idx) -> Idx:
        acc: Idx = n
        for i in pl.range(2, 3):
            i = i * 5
            acc = acc + i
        r: Idx = 0
        for j, (s, t) in pl.range(1, init_values=(acc, 1)):
            s = s + t + j
            t = s * 2
            r = s * 100 + t
        return r


# On a surface program a collapsed 1-trip loop substituted its loop variable and iter_args even
# after the body re-assigned them (fixed; checked by the direct run of Simplify on surface programs).
REGRESSIONS["Simplify"].append(Case(OneTripLoopReassigningBinders, ((1,), (4,))))

# ------------------------------------------------------------------------------------------------
# The seed's pre-SSA loops: init_values without any pl.yield_ (ConvertToSSA adds the yields).
# ------------------------------------------------------------------------------------------------


@pl.program
class PreSSALoops:
    @pl.function
    def main(self, n: Idx) -> Idx:
        x_init: Idx = 1
        doublings: Idx = 0
        for (x,) in pl.while_(init_values=(x_init,)):
            pl.cond(x < n)
            x = x * 2 + 1
            doublings = doublings + 1
        s_init: Idx = 0
        total: Idx = 0
        for i, (s,) in pl.range(n, init_values=(s_init,)):
            s = s + i
            total = total + s
        return doublings * 1000 + total


PRE_SSA_LOOPS = Case(PreSSALoops, ((0,), (5,), (40,)))


def every_case() -> list[Case]:
    """Every case of ``CASES`` and ``REGRESSIONS`` once, in order."""
    seen: dict[str, Case] = {}
    for group in (CASES, REGRESSIONS):
        for cases in group.values():
            for c in cases:
                seen.setdefault(c.name, c)
    return list(seen.values())
