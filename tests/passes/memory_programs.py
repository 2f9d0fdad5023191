"""Hand-written split_core programs (AIV/AIC kernels with explicit memory spaces called from an
Orchestration function) for the memory-planning passes, with their inputs."""

from __future__ import annotations

import numpy as np

HEADER = "import pypto.language as pl\n\n\n@pl.program\nclass P:\n"

TILE_ADD = HEADER + '''
    @pl.function(type=pl.FunctionType.AIV)
    def tile_add(self, a: pl.Tensor[[128, 128], pl.FP32], b: pl.Tensor[[128, 128], pl.FP32],
                 out: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        ta: pl.Tile[[128, 128], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [128, 128])
        tb: pl.Tile[[128, 128], pl.FP32, pl.Mem.Vec] = pl.load(b, [0, 0], [128, 128])
        tc: pl.Tile[[128, 128], pl.FP32, pl.Mem.Vec] = pl.add(ta, tb)
        r: pl.Tensor[[128, 128], pl.FP32] = pl.store(tc, [0, 0], out)
        return r

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[128, 128], pl.FP32], b: pl.Tensor[[128, 128], pl.FP32],
             out: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        out = self.tile_add(a, b, out)
        return out
'''

# The orchestration loop calls the kernel once per 64-row block with a scalar row offset.
ROW_BLOCKS = HEADER + '''
    @pl.function(type=pl.FunctionType.AIV)
    def block_scale(self, a: pl.Tensor[[256, 128], pl.FP32], out: pl.InOut[pl.Tensor[[256, 128], pl.FP32]],
                    row: pl.Scalar[pl.INDEX]) -> pl.Tensor[[256, 128], pl.FP32]:
        ta: pl.Tile[[64, 128], pl.FP32, pl.Mem.Vec] = pl.load(a, [row, 0], [64, 128])
        tb: pl.Tile[[64, 128], pl.FP32, pl.Mem.Vec] = pl.mul(ta, 2.0)
        tc: pl.Tile[[64, 128], pl.FP32, pl.Mem.Vec] = pl.add(tb, 1.0)
        r: pl.Tensor[[256, 128], pl.FP32] = pl.store(tc, [row, 0], out)
        return r

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[256, 128], pl.FP32],
             out: pl.Out[pl.Tensor[[256, 128], pl.FP32]]) -> pl.Tensor[[256, 128], pl.FP32]:
        for i in pl.range(4):
            out = self.block_scale(a, out, i * 64)
        return out
'''

SOFTMAX = HEADER + '''
    @pl.function(type=pl.FunctionType.AIV)
    def softmax(self, x: pl.Tensor[[64, 64], pl.FP32],
                out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        tx: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(x, [0, 0], [64, 64])
        tmp: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.create_tile([64, 64], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        mx: pl.Tile[[64, 1], pl.FP32, pl.Mem.Vec] = pl.row_max(tx, tmp)
        sub: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.row_expand_sub(tx, mx)
        e: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.exp(sub)
        s: pl.Tile[[64, 1], pl.FP32, pl.Mem.Vec] = pl.row_sum(e, tmp)
        y: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.row_expand_div(e, s)
        r: pl.Tensor[[64, 64], pl.FP32] = pl.store(y, [0, 0], out)
        return r

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64, 64], pl.FP32],
             out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        out = self.softmax(x, out)
        return out
'''

# A tile carried through pl.range iter_args, with a scalar parameter.
ACCUMULATE = HEADER + '''
    @pl.function(type=pl.FunctionType.AIV)
    def accumulate(self, x: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
                   scale: pl.Scalar[pl.FP32]) -> pl.Tensor[[16, 64], pl.FP32]:
        acc: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.full([16, 64], dtype=pl.FP32, value=0.0)
        for i in pl.range(4):
            t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.load(x, [i * 16, 0], [16, 64])
            u: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.mul(t, scale)
            acc = pl.add(acc, u)
        r: pl.Tensor[[16, 64], pl.FP32] = pl.store(acc, [0, 0], out)
        return r

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
             scale: pl.Scalar[pl.FP32]) -> pl.Tensor[[16, 64], pl.FP32]:
        out = self.accumulate(x, out, scale)
        return out
'''

# The yielded value is computed while the carried one is still read: it needs a tile.move.
CARRY_MOVE = HEADER + '''
    @pl.function(type=pl.FunctionType.AIV)
    def running(self, x: pl.Tensor[[64, 64], pl.FP32],
                out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        acc: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.full([16, 64], dtype=pl.FP32, value=1.0)
        last: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.full([16, 64], dtype=pl.FP32, value=0.0)
        for i in pl.range(4):
            t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.load(x, [i * 16, 0], [16, 64])
            nxt: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.add(t, 1.0)
            mixed: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.mul(acc, nxt)
            last = pl.add(last, mixed)
            acc = nxt
        both: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.add(acc, last)
        r: pl.Tensor[[16, 64], pl.FP32] = pl.store(both, [0, 0], out)
        return r

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64, 64], pl.FP32],
             out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        out = self.running(x, out)
        return out
'''

# An if whose branches yield tiles computed in each branch.
BRANCH = HEADER + '''
    @pl.function(type=pl.FunctionType.AIV)
    def branch(self, x: pl.Tensor[[32, 64], pl.FP32], out: pl.Out[pl.Tensor[[32, 64], pl.FP32]],
               flag: pl.Scalar[pl.INDEX]) -> pl.Tensor[[32, 64], pl.FP32]:
        t: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.load(x, [0, 0], [32, 64])
        if flag > 0:
            y: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.exp(t)
        else:
            y: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.mul(t, 3.0)
        z: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.add(y, t)
        r: pl.Tensor[[32, 64], pl.FP32] = pl.store(z, [0, 0], out)
        return r

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[32, 64], pl.FP32], out: pl.Out[pl.Tensor[[32, 64], pl.FP32]],
             flag: pl.Scalar[pl.INDEX]) -> pl.Tensor[[32, 64], pl.FP32]:
        out = self.branch(x, out, flag)
        return out
'''

# An AIC FP16 matmul with explicit Mat, Left, Right and Acc tiles and an FP32 result.
MATMUL = HEADER + '''
    @pl.function(type=pl.FunctionType.AIC)
    def matmul(self, a: pl.Tensor[[8, 32], pl.FP16], b: pl.Tensor[[32, 16], pl.FP16],
               c: pl.Out[pl.Tensor[[8, 16], pl.FP32]]) -> pl.Tensor[[8, 16], pl.FP32]:
        ma: pl.Tile[[8, 32], pl.FP16, pl.Mem.Mat] = pl.load(a, [0, 0], [8, 32], target_memory=pl.Mem.Mat)
        mb: pl.Tile[[32, 16], pl.FP16, pl.Mem.Mat] = pl.load(b, [0, 0], [32, 16], target_memory=pl.Mem.Mat)
        la: pl.Tile[[8, 32], pl.FP16, pl.Mem.Left] = pl.move(ma, target_memory=pl.Mem.Left)
        rb: pl.Tile[[32, 16], pl.FP16, pl.Mem.Right] = pl.move(mb, target_memory=pl.Mem.Right)
        acc: pl.Tile[[8, 16], pl.FP32, pl.Mem.Acc] = pl.matmul(la, rb)
        acc2: pl.Tile[[8, 16], pl.FP32, pl.Mem.Acc] = pl.matmul_acc(acc, la, rb)
        r: pl.Tensor[[8, 16], pl.FP32] = pl.store(acc2, [0, 0], c)
        return r

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[8, 32], pl.FP16], b: pl.Tensor[[32, 16], pl.FP16],
             c: pl.Out[pl.Tensor[[8, 16], pl.FP32]]) -> pl.Tensor[[8, 16], pl.FP32]:
        c = self.matmul(a, b, c)
        return c
'''


def _rand(*shape: int, dtype: type = np.float32) -> np.ndarray:
    return np.random.default_rng(sum(shape)).uniform(-1.0, 1.0, shape).astype(dtype)


PROGRAMS: dict[str, tuple[str, tuple]] = {
    "tile_add": (TILE_ADD, (_rand(128, 128), _rand(128, 129)[:, :128].copy(), np.zeros((128, 128), np.float32))),
    "row_blocks": (ROW_BLOCKS, (_rand(256, 128), np.zeros((256, 128), np.float32))),
    "softmax": (SOFTMAX, (_rand(64, 64), np.zeros((64, 64), np.float32))),
    "accumulate": (ACCUMULATE, (_rand(64, 64), np.zeros((16, 64), np.float32), 0.5)),
    "carry_move": (CARRY_MOVE, (_rand(64, 64), np.zeros((16, 64), np.float32))),
    "branch_then": (BRANCH, (_rand(32, 64), np.zeros((32, 64), np.float32), 1)),
    "branch_else": (BRANCH, (_rand(32, 64), np.zeros((32, 64), np.float32), 0)),
    "matmul": (
        MATMUL,
        (_rand(8, 32, dtype=np.float16), _rand(32, 16, dtype=np.float16), np.zeros((8, 16), np.float32)),
    ),
}
