"""Programs in the final (``runtime``) form for the orchestration and kernel_config generators.

Written as the pipeline leaves them: runtime scopes placed, ``auto_scope=False``, every call with
``attrs["arg_directions"]``, every orchestration loop carry classified (``iter_arg_rebind_<i>``),
kernels AIV with planned MemRefs. The first three also run on the simulator (tests/sim).
"""

from __future__ import annotations

import pypto.language as pl

IN, OUT_EX, INOUT, SCALAR = pl.adir.input, pl.adir.output_existing, pl.adir.inout, pl.adir.scalar


@pl.program
class TileAdd:
    @pl.function(type=pl.FunctionType.AIV)
    def tile_add(self, a: pl.Tensor[[128, 128], pl.FP32], b: pl.Tensor[[128, 128], pl.FP32],
                 c: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 65536)
        mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 65536)
        ta: pl.Tile[[128, 128], pl.FP32, pl.MemRef(mem_vec_0, 0, 65536), pl.Mem.Vec] = pl.load(a, [0, 0], [128, 128])
        tb: pl.Tile[[128, 128], pl.FP32, pl.MemRef(mem_vec_1, 0, 65536), pl.Mem.Vec] = pl.load(b, [0, 0], [128, 128])
        tc: pl.Tile[[128, 128], pl.FP32, pl.MemRef(mem_vec_0, 0, 65536), pl.Mem.Vec] = pl.add(ta, tb)
        c: pl.Tensor[[128, 128], pl.FP32] = pl.store(tc, [0, 0], c)
        return c

    @pl.function(type=pl.FunctionType.Orchestration, auto_scope=False)
    def main(self, a: pl.Tensor[[128, 128], pl.FP32], b: pl.Tensor[[128, 128], pl.FP32],
             c: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        with pl.scope():
            c: pl.Tensor[[128, 128], pl.FP32] = self.tile_add(a, b, c, attrs={"arg_directions": [IN, IN, OUT_EX]})
        return c


@pl.program
class RowBlocks:
    @pl.function(type=pl.FunctionType.AIV)
    def block_add_scale(self, a: pl.Tensor[[128, 128], pl.FP32], b: pl.Tensor[[128, 128], pl.FP32],
                        c: pl.InOut[pl.Tensor[[128, 128], pl.FP32]], row: pl.Scalar[pl.INDEX],
                        alpha: pl.Scalar[pl.FP32]) -> pl.Tensor[[128, 128], pl.FP32]:
        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 32768)
        mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 32768)
        ta: pl.Tile[[64, 128], pl.FP32, pl.MemRef(mem_vec_0, 0, 32768), pl.Mem.Vec] = pl.load(a, [row, 0], [64, 128])
        tb: pl.Tile[[64, 128], pl.FP32, pl.MemRef(mem_vec_1, 0, 32768), pl.Mem.Vec] = pl.load(b, [row, 0], [64, 128])
        tc: pl.Tile[[64, 128], pl.FP32, pl.MemRef(mem_vec_0, 0, 32768), pl.Mem.Vec] = pl.add(ta, tb)
        td: pl.Tile[[64, 128], pl.FP32, pl.MemRef(mem_vec_0, 0, 32768), pl.Mem.Vec] = pl.mul(tc, alpha)
        c: pl.Tensor[[128, 128], pl.FP32] = pl.store(td, [row, 0], c)
        return c

    @pl.function(type=pl.FunctionType.Orchestration, auto_scope=False)
    def main(self, a: pl.Tensor[[128, 128], pl.FP32], b: pl.Tensor[[128, 128], pl.FP32],
             alpha: pl.Scalar[pl.FP32], c: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        with pl.scope():
            for i, (c_iter,) in pl.range(2, init_values=(c,), attrs={"iter_arg_rebind_0": False}):
                with pl.scope():
                    row: pl.Scalar[pl.INDEX] = i * 64
                    c_next: pl.Tensor[[128, 128], pl.FP32] = self.block_add_scale(
                        a, b, c_iter, row, alpha, attrs={"arg_directions": [IN, IN, INOUT, SCALAR, SCALAR]})
                c_out = pl.yield_(c_next)
        return c_out


@pl.program
class Chain:
    """Two kernels chained through an internal tensor; the second takes a scalar parameter
    between its tensors (the task passes tensors first, then scalars)."""

    @pl.function(type=pl.FunctionType.AIV)
    def add_kernel(self, a: pl.Tensor[[128, 128], pl.FP32], b: pl.Tensor[[128, 128], pl.FP32],
                   c: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 65536)
        mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 65536)
        ta: pl.Tile[[128, 128], pl.FP32, pl.MemRef(mem_vec_0, 0, 65536), pl.Mem.Vec] = pl.load(a, [0, 0], [128, 128])
        tb: pl.Tile[[128, 128], pl.FP32, pl.MemRef(mem_vec_1, 0, 65536), pl.Mem.Vec] = pl.load(b, [0, 0], [128, 128])
        tc: pl.Tile[[128, 128], pl.FP32, pl.MemRef(mem_vec_0, 0, 65536), pl.Mem.Vec] = pl.add(ta, tb)
        c: pl.Tensor[[128, 128], pl.FP32] = pl.store(tc, [0, 0], c)
        return c

    @pl.function(type=pl.FunctionType.AIV)
    def scale_kernel(self, x: pl.Tensor[[128, 128], pl.FP32], s: pl.Scalar[pl.FP32],
                     y: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 65536)
        tx: pl.Tile[[128, 128], pl.FP32, pl.MemRef(mem_vec_0, 0, 65536), pl.Mem.Vec] = pl.load(x, [0, 0], [128, 128])
        ty: pl.Tile[[128, 128], pl.FP32, pl.MemRef(mem_vec_0, 0, 65536), pl.Mem.Vec] = pl.mul(tx, s)
        y: pl.Tensor[[128, 128], pl.FP32] = pl.store(ty, [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration, auto_scope=False)
    def main(self, a: pl.Tensor[[128, 128], pl.FP32], b: pl.Tensor[[128, 128], pl.FP32],
             alpha: pl.Scalar[pl.FP32], out: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        with pl.scope():
            tmp: pl.Tensor[[128, 128], pl.FP32] = pl.create_tensor([128, 128], dtype=pl.FP32)
            tmp_1: pl.Tensor[[128, 128], pl.FP32] = self.add_kernel(a, b, tmp, attrs={"arg_directions": [IN, IN, OUT_EX]})
            out_1: pl.Tensor[[128, 128], pl.FP32] = self.scale_kernel(
                tmp_1, alpha, out, attrs={"arg_directions": [IN, SCALAR, OUT_EX]})
        return out_1
