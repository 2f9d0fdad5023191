"""Orchestrations for AutoDeriveTaskDependencies: ones it rewrites and ones it declines."""

from __future__ import annotations

_KERNELS = '''
    @pl.function(type=pl.FunctionType.InCore)
    def scale(self, a: pl.Tensor[[16, 64], pl.FP32],
              out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t: pl.Tile[[16, 64], pl.FP32] = pl.load(a, [0, 0], [16, 64])
        out = pl.store(pl.mul(t, 2.0), [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.InCore)
    def shift(self, a: pl.Tensor[[16, 64], pl.FP32],
              out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t: pl.Tile[[16, 64], pl.FP32] = pl.load(a, [0, 0], [16, 64])
        out = pl.store(pl.add(t, 1.0), [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.InCore)
    def plus(self, a: pl.Tensor[[16, 64], pl.FP32], b: pl.Tensor[[16, 64], pl.FP32],
             out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        s: pl.Tile[[16, 64], pl.FP32] = pl.add(pl.load(a, [0, 0], [16, 64]), pl.load(b, [0, 0], [16, 64]))
        out = pl.store(s, [0, 0], out)
        return out
'''

T = "pl.Tensor[[16, 64], pl.FP32]"

# Four tasks: x -> scale -> l and x -> shift -> r, then l + r -> out, then x is overwritten (WAR on x).
DIAMOND = f'''
@pl.program
class Diamond:{_KERNELS}
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.InOut[{T}], out: pl.Out[{T}]) -> {T}:
        l: {T} = pl.create_tensor([16, 64], dtype=pl.FP32)
        r: {T} = pl.create_tensor([16, 64], dtype=pl.FP32)
        l = self.scale(x, l)
        r = self.shift(x, r)
        out = self.plus(l, r, out)
        x = self.scale(out, x)
        return out
'''

# A loop with a constant trip count: each trip waits for the one before through a carried TaskId.
LOOP = f'''
@pl.program
class Loop:{_KERNELS}
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: {T}, out: pl.Out[{T}]) -> {T}:
        acc: {T} = pl.create_tensor([16, 64], dtype=pl.FP32)
        acc = self.scale(x, acc)
        for i in pl.range(3):
            acc = self.shift(acc, acc)
        out = self.scale(acc, out)
        return out
'''

# The user's own manual scope: left as it is.
USER_MANUAL = f'''
@pl.program
class UserManual:{_KERNELS}
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: {T}, tmp: pl.Out[{T}], out: pl.Out[{T}]) -> {T}:
        with pl.manual_scope():
            tmp, tid = pl.submit(self.scale, x, tmp)
            out, _ = pl.submit(self.shift, tmp, out, deps=[tid])
        return out
'''

# An if: declined like the loop.
BRANCH = f'''
@pl.program
class Branch:{_KERNELS}
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: {T}, n: pl.Scalar[pl.INT64], out: pl.Out[{T}]) -> {T}:
        if n > 0:
            out = self.scale(x, out)
        else:
            out = self.shift(x, out)
        return out
'''

# A plain copy of a tensor variable and a tensor argument marked no_dep: followed, and left to the user.
COPY_AND_NO_DEP = f'''
@pl.program
class CopyAndNoDep:{_KERNELS}
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: {T}, out: pl.Out[{T}]) -> {T}:
        t: {T} = pl.create_tensor([16, 64], dtype=pl.FP32)
        t = self.scale(x, t)
        u: {T} = t
        out = self.shift(u, out)
        out = self.plus(pl.no_dep(t), x, out)
        return out
'''

# Every trip of the loop reads x and none writes it; the write after the loop would have to wait for
# all of them, which one carried TaskId cannot name: declined.
SEVERAL_READERS = f'''
@pl.program
class SeveralReaders:{_KERNELS}
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.InOut[{T}], out: pl.Out[{T}]) -> {T}:
        for i in pl.range(2):
            out = self.scale(x, out)
        x = self.shift(out, x)
        return out
'''

# A loop whose carries swap two buffers (ping-pong): a trip reads what the trip before wrote under
# another name, which the roots (a carry is its initial buffer) cannot follow.
SWAPPED = f'''
@pl.program
class Swapped:{_KERNELS}
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, p: pl.InOut[{T}], q: pl.InOut[{T}], out: pl.Out[{T}]) -> {T}:
        u: {T} = p
        v: {T} = q
        for i in pl.range(2):
            v = self.shift(u, v)
            t: {T} = u
            u = v
            v = t
        out = self.scale(u, out)
        return out
'''
