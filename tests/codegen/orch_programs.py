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
        c_stored: pl.Tensor[[128, 128], pl.FP32] = pl.store(tc, [0, 0], c)
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
        c_stored: pl.Tensor[[128, 128], pl.FP32] = pl.store(td, [row, 0], c)
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
        c_stored: pl.Tensor[[128, 128], pl.FP32] = pl.store(tc, [0, 0], c)
        return c

    @pl.function(type=pl.FunctionType.AIV)
    def scale_kernel(self, x: pl.Tensor[[128, 128], pl.FP32], s: pl.Scalar[pl.FP32],
                     y: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 65536)
        tx: pl.Tile[[128, 128], pl.FP32, pl.MemRef(mem_vec_0, 0, 65536), pl.Mem.Vec] = pl.load(x, [0, 0], [128, 128])
        ty: pl.Tile[[128, 128], pl.FP32, pl.MemRef(mem_vec_0, 0, 65536), pl.Mem.Vec] = pl.mul(tx, s)
        y_stored: pl.Tensor[[128, 128], pl.FP32] = pl.store(ty, [0, 0], y)
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


N = pl.dynamic("N")


@pl.program
class Features:
    """Snapshot-only: a rebind carry, an if with results, views, dims, element access, a manual
    scope with submits and TaskId dependencies, an initialised internal tensor."""

    @pl.function(type=pl.FunctionType.AIV)
    def step(self, x: pl.Tensor[[64, 64], pl.FP32], y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        return y

    @pl.function(type=pl.FunctionType.AIC)
    def rows(self, x: pl.Tensor[[N, 64], pl.FP32], n: pl.Scalar[pl.INDEX], flag: pl.Scalar[pl.BOOL],
             y: pl.InOut[pl.Tensor[[N, 64], pl.FP32]]) -> pl.Tensor[[N, 64], pl.FP32]:
        return y

    @pl.function(type=pl.FunctionType.Orchestration, auto_scope=False)
    def main(self, x: pl.Tensor[[N, 64], pl.FP32], k: pl.Scalar[pl.FP32],
             out: pl.InOut[pl.Tensor[[N, 64], pl.FP32]]) -> pl.Tensor[[N, 64], pl.FP32]:
        with pl.scope():
            ping: pl.Tensor[[64, 64], pl.FP32] = pl.create_tensor([64, 64], dtype=pl.FP32, init_value=0.0)
            pong: pl.Tensor[[64, 64], pl.FP32] = pl.create_tensor([64, 64], dtype=pl.FP32)
            n: pl.Scalar[pl.INDEX] = pl.tensor.dim(x, 0)
            for i, (src, dst) in pl.range(0, n, 64, init_values=(ping, pong),
                                          attrs={"iter_arg_rebind_0": True, "iter_arg_rebind_1": True}):
                with pl.scope():
                    dst_1: pl.Tensor[[64, 64], pl.FP32] = self.step(src, dst, attrs={"arg_directions": [IN, INOUT]})
                src_1, dst_2 = pl.yield_(dst_1, src)
            first: pl.Scalar[pl.FP32] = pl.tensor.read(src_1, [0, 0])
            if first > 0.0:
                with pl.scope():
                    head: pl.Tensor[[32, 64], pl.FP32] = pl.tensor.slice(x, [32, 64], [0, 0])
                    out_1: pl.Tensor[[N, 64], pl.FP32] = self.rows(
                        head, n, True, out, attrs={"arg_directions": [IN, SCALAR, SCALAR, INOUT]})
                res = pl.yield_(out_1)
            else:
                with pl.scope():
                    out_2: pl.Tensor[[N, 64], pl.FP32] = self.rows(
                        x, n // 2, False, out, attrs={"arg_directions": [IN, SCALAR, SCALAR, INOUT]})
                res = pl.yield_(out_2)
            with pl.manual_scope():
                scratch: pl.Tensor[[64, 64], pl.FP32] = pl.create_tensor([64, 64], dtype=pl.FP32)
                scratch_1, t0 = pl.submit(self.step, src_1, scratch, attrs={"arg_directions": [IN, OUT_EX]})
                dst_3, t1 = pl.submit(self.step, scratch_1, dst_2, deps=[t0], attrs={"arg_directions": [IN, OUT_EX]})
            res_1: pl.Tensor[[N, 64], pl.FP32] = pl.tensor.write(res, [0, 0], k)
        return res_1


@pl.program
class SpecExample:
    """spec/codegen.md §2.9 after the pipeline: ``tmp`` is OutputExisting, ``out`` InOut in the loop,
    whose carry of ``out`` is trivial."""

    @pl.function(type=pl.FunctionType.AIV)
    def add_kernel(self, a: pl.Tensor[[64, 64], pl.FP32], b: pl.Tensor[[64, 64], pl.FP32],
                   c: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        return c

    @pl.function(type=pl.FunctionType.AIV)
    def scale_kernel(self, x: pl.Tensor[[64, 64], pl.FP32], s: pl.Scalar[pl.FP32],
                     y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        return y

    @pl.function(type=pl.FunctionType.Orchestration, auto_scope=False)
    def main(self, a: pl.Tensor[[64, 64], pl.FP32], b: pl.Tensor[[64, 64], pl.FP32], alpha: pl.Scalar[pl.FP32],
             out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        with pl.scope():
            tmp: pl.Tensor[[64, 64], pl.FP32] = pl.create_tensor([64, 64], dtype=pl.FP32)
            tmp_1: pl.Tensor[[64, 64], pl.FP32] = self.add_kernel(a, b, tmp, attrs={"arg_directions": [IN, IN, OUT_EX]})
            for i, (out_iter,) in pl.range(4, init_values=(out,), attrs={"iter_arg_rebind_0": False}):
                with pl.scope():
                    out_1: pl.Tensor[[64, 64], pl.FP32] = self.scale_kernel(
                        tmp_1, alpha, out_iter, attrs={"arg_directions": [IN, SCALAR, INOUT]})
                out_2 = pl.yield_(out_1)
        return out_2
