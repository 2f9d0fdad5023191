"""Hand-written programs already in the final ``runtime`` form, for the PTO emitter tests.

Each kernel is what the pipeline hands codegen: AIV/AIC functions whose tiles carry a memory space
and a planned MemRef (``tile.alloc`` declarations first, constant byte offsets, reuse where
lifetimes allow), and an orchestration calling them with ``arg_directions`` inside a runtime scope.
``load(name, folder)`` writes the source to ``folder/<name>.py`` and parses it.
"""

from __future__ import annotations

from pathlib import Path

from pypto.ir.function import Program
from pypto.language.parser.text_parser import loads_program

_HEADER = "import pypto.language as pl\n\n\n"

# spec/codegen.md §1.11, example A: tc reuses ta's buffer.
ADD_64 = '''
@pl.program
class Add64:
    @pl.function(type=pl.FunctionType.AIV)
    def add_kernel(self, a: pl.Tensor[[64, 64], pl.FP32], b: pl.Tensor[[64, 64], pl.FP32],
                   c: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        ta: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_0, 0, 16384), pl.Mem.Vec] = pl.load(a, [0, 0], [64, 64])
        tb: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_1, 16384, 16384), pl.Mem.Vec] = pl.load(b, [0, 0], [64, 64])
        tc: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_0, 0, 16384), pl.Mem.Vec] = pl.add(ta, tb)
        c_1: pl.Tensor[[64, 64], pl.FP32] = pl.store(tc, [0, 0], c)
        return c_1

    @pl.function(type=pl.FunctionType.Orchestration, auto_scope=False)
    def main(self, a: pl.Tensor[[64, 64], pl.FP32], b: pl.Tensor[[64, 64], pl.FP32],
             c: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        with pl.scope():
            c_1: pl.Tensor[[64, 64], pl.FP32] = self.add_kernel(
                a, b, c, attrs={"arg_directions": [pl.adir.input, pl.adir.input, pl.adir.output_existing]})
        return c_1
'''

# §1.12, example B: acc, its iter_arg, the add result and the return var share addr 0; t is at 4096.
SUM4 = '''
@pl.program
class Sum4:
    @pl.function(type=pl.FunctionType.AIV)
    def sum4(self, x: pl.Tensor[[64, 64], pl.FP32],
             out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        acc: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_0, 0, 4096), pl.Mem.Vec] = pl.tile.full(
            [16, 64], dtype=pl.FP32, value=0.0)
        for i, (acc_iter, row_iter) in pl.range(4, init_values=(acc, 0)):
            t: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_1, 4096, 4096), pl.Mem.Vec] = pl.load(
                x, [row_iter, 0], [16, 64])
            acc_next: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_0, 0, 4096), pl.Mem.Vec] = pl.add(acc_iter, t)
            row_next: pl.Scalar[pl.INDEX] = row_iter + 16
            acc_rv, row_rv = pl.yield_(acc_next, row_next)
        out_1: pl.Tensor[[16, 64], pl.FP32] = pl.store(acc_rv, [0, 0], out)
        return out_1

    @pl.function(type=pl.FunctionType.Orchestration, auto_scope=False)
    def main(self, x: pl.Tensor[[64, 64], pl.FP32],
             out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        with pl.scope():
            out_1: pl.Tensor[[16, 64], pl.FP32] = self.sum4(
                x, out, attrs={"arg_directions": [pl.adir.input, pl.adir.output_existing]})
        return out_1
'''

# §1.13, example C: every space starts at 0; b_l1 is at 8192 in Mat.
MATMUL = '''
@pl.program
class Matmul:
    @pl.function(type=pl.FunctionType.AIC)
    def mm(self, a: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16],
           c: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        mem_mat_0: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 8192)
        mem_mat_1: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 8192)
        mem_left_2: pl.Ptr = pl.tile.alloc(pl.Mem.Left, 8192)
        mem_right_3: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 8192)
        mem_acc_4: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 16384)
        a_l1: pl.Tile[[64, 64], pl.FP16, pl.MemRef(mem_mat_0, 0, 8192), pl.Mem.Mat] = pl.load(
            a, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
        b_l1: pl.Tile[[64, 64], pl.FP16, pl.MemRef(mem_mat_1, 8192, 8192), pl.Mem.Mat] = pl.load(
            b, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
        a_l0: pl.Tile[[64, 64], pl.FP16, pl.MemRef(mem_left_2, 0, 8192), pl.Mem.Left] = pl.move(
            a_l1, target_memory=pl.Mem.Left)
        b_l0: pl.Tile[[64, 64], pl.FP16, pl.MemRef(mem_right_3, 0, 8192), pl.Mem.Right] = pl.move(
            b_l1, target_memory=pl.Mem.Right)
        acc: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_acc_4, 0, 16384), pl.Mem.Acc] = pl.matmul(a_l0, b_l0)
        c_1: pl.Tensor[[64, 64], pl.FP32] = pl.store(acc, [0, 0], c)
        return c_1

    @pl.function(type=pl.FunctionType.Orchestration, auto_scope=False)
    def main(self, a: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16],
             c: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        with pl.scope():
            c_1: pl.Tensor[[64, 64], pl.FP32] = self.mm(
                a, b, c, attrs={"arg_directions": [pl.adir.input, pl.adir.input, pl.adir.output_existing]})
        return c_1
'''

# The 128x128 tile add: 131072 bytes of Vec, the result on the first input's buffer.
ADD_128 = '''
@pl.program
class Add128:
    @pl.function(type=pl.FunctionType.AIV)
    def tile_add(self, a: pl.Tensor[[128, 128], pl.FP32], b: pl.Tensor[[128, 128], pl.FP32],
                 c: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 65536)
        mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 65536)
        ta: pl.Tile[[128, 128], pl.FP32, pl.MemRef(mem_vec_0, 0, 65536), pl.Mem.Vec] = pl.load(a, [0, 0], [128, 128])
        tb: pl.Tile[[128, 128], pl.FP32, pl.MemRef(mem_vec_1, 65536, 65536), pl.Mem.Vec] = pl.load(
            b, [0, 0], [128, 128])
        tc: pl.Tile[[128, 128], pl.FP32, pl.MemRef(mem_vec_0, 0, 65536), pl.Mem.Vec] = pl.add(ta, tb)
        c_1: pl.Tensor[[128, 128], pl.FP32] = pl.store(tc, [0, 0], c)
        return c_1

    @pl.function(type=pl.FunctionType.Orchestration, auto_scope=False)
    def main(self, a: pl.Tensor[[128, 128], pl.FP32], b: pl.Tensor[[128, 128], pl.FP32],
             c: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        with pl.scope():
            c_1: pl.Tensor[[128, 128], pl.FP32] = self.tile_add(
                a, b, c, attrs={"arg_directions": [pl.adir.input, pl.adir.input, pl.adir.output_existing]})
        return c_1
'''

# The 64x64 row softmax, 33024 bytes of Vec: x, its shifted, exponentiated and normalised
# values on one buffer, the reduction scratch on a second, the row max then the row sum on a third.
SOFTMAX = '''
@pl.program
class Softmax:
    @pl.function(type=pl.FunctionType.AIV)
    def softmax(self, x: pl.Tensor[[64, 64], pl.FP32],
                y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 256)
        tx: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_0, 0, 16384), pl.Mem.Vec] = pl.load(x, [0, 0], [64, 64])
        tmp: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_1, 16384, 16384), pl.Mem.Vec] = pl.tile.create(
            [64, 64], dtype=pl.FP32)
        mx: pl.Tile[[64, 1], pl.FP32, pl.MemRef(mem_vec_2, 32768, 256), pl.Mem.Vec] = pl.row_max(tx, tmp)
        sh: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_0, 0, 16384), pl.Mem.Vec] = pl.row_expand_sub(tx, mx)
        ex: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_0, 0, 16384), pl.Mem.Vec] = pl.exp(sh)
        sm: pl.Tile[[64, 1], pl.FP32, pl.MemRef(mem_vec_2, 32768, 256), pl.Mem.Vec] = pl.row_sum(ex, tmp)
        ty: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_0, 0, 16384), pl.Mem.Vec] = pl.row_expand_div(ex, sm)
        y_1: pl.Tensor[[64, 64], pl.FP32] = pl.store(ty, [0, 0], y)
        return y_1

    @pl.function(type=pl.FunctionType.Orchestration, auto_scope=False)
    def main(self, x: pl.Tensor[[64, 64], pl.FP32],
             y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        with pl.scope():
            y_1: pl.Tensor[[64, 64], pl.FP32] = self.softmax(
                x, y, attrs={"arg_directions": [pl.adir.input, pl.adir.output_existing]})
        return y_1
'''

# Scalar parameters (a float factor, an index row offset) between the tensors: the signature puts
# tensors first. The tile accumulator is the loop's only carry, so scf.for has no iter_args.
SCALE_ROWS = '''
@pl.program
class ScaleRows:
    @pl.function(type=pl.FunctionType.AIV)
    def scale_rows(self, x: pl.Tensor[[128, 64], pl.FP32], alpha: pl.Scalar[pl.FP32], row: pl.Scalar[pl.INDEX],
                   out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        acc: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_0, 0, 4096), pl.Mem.Vec] = pl.tile.full(
            [16, 64], dtype=pl.FP32, value=0.0)
        for i, (acc_iter,) in pl.range(2, init_values=(acc,)):
            off: pl.Scalar[pl.INDEX] = row + i * 16
            t: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_1, 4096, 4096), pl.Mem.Vec] = pl.load(
                x, [off, 0], [16, 64])
            s: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_1, 4096, 4096), pl.Mem.Vec] = pl.mul(t, alpha)
            acc_next: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_0, 0, 4096), pl.Mem.Vec] = pl.add(acc_iter, s)
            acc_rv = pl.yield_(acc_next)
        out_1: pl.Tensor[[16, 64], pl.FP32] = pl.store(acc_rv, [0, 0], out)
        return out_1

    @pl.function(type=pl.FunctionType.Orchestration, auto_scope=False)
    def main(self, x: pl.Tensor[[128, 64], pl.FP32], alpha: pl.Scalar[pl.FP32],
             out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        with pl.scope():
            out_1: pl.Tensor[[16, 64], pl.FP32] = self.scale_rows(
                x, alpha, 32, out,
                attrs={"arg_directions": [pl.adir.input, pl.adir.scalar, pl.adir.scalar, pl.adir.output_existing]})
        return out_1
'''

# An if with a tile phi (one handle declared at the function head, each branch writing its
# address) and a scalar phi (an scf.if result), read by the store's offset.
BRANCH = '''
@pl.program
class Branch:
    @pl.function(type=pl.FunctionType.AIV)
    def pick(self, x: pl.Tensor[[64, 64], pl.FP32], n: pl.Scalar[pl.INDEX],
             out: pl.Out[pl.Tensor[[128, 64], pl.FP32]]) -> pl.Tensor[[128, 64], pl.FP32]:
        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        t: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_0, 0, 16384), pl.Mem.Vec] = pl.load(x, [0, 0], [64, 64])
        if n > 0:
            e: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_1, 16384, 16384), pl.Mem.Vec] = pl.exp(t)
            k: pl.Scalar[pl.INDEX] = n * 2
            r, row = pl.yield_(e, k)
        else:
            g: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_1, 16384, 16384), pl.Mem.Vec] = pl.neg(t)
            r, row = pl.yield_(g, 0)
        out_1: pl.Tensor[[128, 64], pl.FP32] = pl.store(r, [row, 0], out)
        return out_1

    @pl.function(type=pl.FunctionType.Orchestration, auto_scope=False)
    def main(self, x: pl.Tensor[[64, 64], pl.FP32],
             out: pl.Out[pl.Tensor[[128, 64], pl.FP32]]) -> pl.Tensor[[128, 64], pl.FP32]:
        with pl.scope():
            out_1: pl.Tensor[[128, 64], pl.FP32] = self.pick(
                x, 1, out, attrs={"arg_directions": [pl.adir.input, pl.adir.scalar, pl.adir.output_existing]})
        return out_1
'''

# Dynamic dimensions: one trailing index parameter per symbol, in first-seen order; the view's
# shape and outer stride read them.
DYNAMIC = '''
M = pl.dynamic("M")
N = pl.dynamic("N")


@pl.program
class Dynamic:
    @pl.function(type=pl.FunctionType.AIV)
    def first_rows(self, x: pl.Tensor[[M, N], pl.FP32],
                   out: pl.Out[pl.Tensor[[16, N], pl.FP32]]) -> pl.Tensor[[16, N], pl.FP32]:
        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        t: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_0, 0, 4096), pl.Mem.Vec] = pl.load(x, [0, 0], [16, 64])
        out_1: pl.Tensor[[16, N], pl.FP32] = pl.store(t, [0, 0], out)
        return out_1
'''

# Explicit synchronisation written by the author: printed (the assembler adds its own as well).
SYNC = '''
@pl.program
class Sync:
    @pl.function(type=pl.FunctionType.AIV)
    def synced(self, x: pl.Tensor[[16, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        t: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_0, 0, 4096), pl.Mem.Vec] = pl.load(x, [0, 0], [16, 64])
        pl.system.sync_set(0, pipe=pl.PipeType.MTE2)
        pl.system.sync_wait(0, pipe=pl.PipeType.MTE2)
        e: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_0, 0, 4096), pl.Mem.Vec] = pl.exp(t)
        pl.system.bar_v()
        out_1: pl.Tensor[[16, 64], pl.FP32] = pl.store(e, [0, 0], out)
        pl.system.bar_all()
        return out_1
'''

# Zero-copy views, a scalar read of a tensor parameter, an SPMD index (hidden i32 parameters) and
# a while loop with a scalar carry.
VIEWS = '''
@pl.program
class Views:
    @pl.function(type=pl.FunctionType.AIV)
    def views(self, x: pl.Tensor[[16, 64], pl.FP32], n: pl.Scalar[pl.INDEX],
              out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        t: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_0, 0, 4096), pl.Mem.Vec] = pl.load(x, [0, 0], [16, 64])
        v: pl.Scalar[pl.FP32] = pl.tensor.read(x, [1, n])
        b: pl.Scalar[pl.INDEX] = pl.tile.get_block_idx()
        half: pl.Tile[[8, 64], pl.FP32, pl.MemRef(mem_vec_0, 0, 4096), pl.Mem.Vec] = pl.tile.slice(t, [8, 64], [b, 0])
        flat: pl.Tile[[8, 128], pl.FP32, pl.MemRef(mem_vec_0, 0, 4096), pl.Mem.Vec] = pl.tile.reshape(t, [8, 128])
        for (k,) in pl.while_(init_values=(0,)):
            pl.cond(k < n)
            k_next: pl.Scalar[pl.INDEX] = k + 1
            k_rv = pl.yield_(k_next)
        out_1: pl.Tensor[[16, 64], pl.FP32] = pl.store(t, [k_rv, 0], out)
        return out_1
'''

# A K loop accumulating in Acc: matmul on the first step (a runtime init_cond), matmul_acc after;
# the result stays the accumulator's buffer.
MATMUL_ACC = '''
@pl.program
class MatmulAcc:
    @pl.function(type=pl.FunctionType.AIC)
    def mm_k(self, a: pl.Tensor[[64, 128], pl.FP16], b: pl.Tensor[[128, 64], pl.FP16],
             c: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        mem_mat_0: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 8192)
        mem_mat_1: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 8192)
        mem_left_2: pl.Ptr = pl.tile.alloc(pl.Mem.Left, 8192)
        mem_right_3: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 8192)
        mem_acc_4: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 16384)
        acc: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_acc_4, 0, 16384), pl.Mem.Acc] = pl.tile.create(
            [64, 64], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        for k, (acc_iter,) in pl.range(2, init_values=(acc,)):
            a_l1: pl.Tile[[64, 64], pl.FP16, pl.MemRef(mem_mat_0, 0, 8192), pl.Mem.Mat] = pl.load(
                a, [0, k * 64], [64, 64], target_memory=pl.Mem.Mat)
            b_l1: pl.Tile[[64, 64], pl.FP16, pl.MemRef(mem_mat_1, 8192, 8192), pl.Mem.Mat] = pl.load(
                b, [k * 64, 0], [64, 64], target_memory=pl.Mem.Mat)
            a_l0: pl.Tile[[64, 64], pl.FP16, pl.MemRef(mem_left_2, 0, 8192), pl.Mem.Left] = pl.move(
                a_l1, target_memory=pl.Mem.Left)
            b_l0: pl.Tile[[64, 64], pl.FP16, pl.MemRef(mem_right_3, 0, 8192), pl.Mem.Right] = pl.move(
                b_l1, target_memory=pl.Mem.Right)
            acc_next: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_acc_4, 0, 16384), pl.Mem.Acc] = pl.tile.matmul_acc(
                acc_iter, a_l0, b_l0, k == 0)
            acc_rv = pl.yield_(acc_next)
        c_1: pl.Tensor[[64, 64], pl.FP32] = pl.store(acc_rv, [0, 0], c)
        return c_1
'''

# tile.assemble in place (the result on the target's buffer) and into a fresh buffer (a copy of
# the target first); a scalar written to a tensor parameter.
ASSEMBLE = '''
@pl.program
class Assemble:
    @pl.function(type=pl.FunctionType.AIV)
    def assemble(self, x: pl.Tensor[[16, 64], pl.FP32],
                 out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        t: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_0, 0, 4096), pl.Mem.Vec] = pl.load(x, [0, 0], [16, 64])
        part: pl.Tile[[8, 64], pl.FP32, pl.MemRef(mem_vec_1, 4096, 2048), pl.Mem.Vec] = pl.load(x, [8, 0], [8, 64])
        same: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_0, 0, 4096), pl.Mem.Vec] = pl.tile.assemble(t, part, [0, 0])
        copy: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_2, 6144, 4096), pl.Mem.Vec] = pl.tile.assemble(
            same, part, [8, 0])
        out_1: pl.Tensor[[16, 64], pl.FP32] = pl.store(copy, [0, 0], out)
        v: pl.Scalar[pl.FP32] = pl.tensor.read(x, [0, 0])
        out_2: pl.Tensor[[16, 64], pl.FP32] = pl.tensor.write(out_1, [15, 63], v)
        return out_2
'''

SOURCES: dict[str, str] = {
    "add_64": ADD_64,
    "sum4": SUM4,
    "matmul": MATMUL,
    "add_128": ADD_128,
    "softmax": SOFTMAX,
    "scale_rows": SCALE_ROWS,
    "branch": BRANCH,
    "dynamic": DYNAMIC,
    "sync": SYNC,
    "views": VIEWS,
    "matmul_acc": MATMUL_ACC,
    "assemble": ASSEMBLE,
}


def write(name: str, folder: Path, source: str | None = None) -> Path:
    """Write program ``name`` (or ``source``) to ``folder/<name>.py``; returns the path."""
    path = folder / f"{name}.py"
    path.write_text(_HEADER + (SOURCES[name] if source is None else source).lstrip("\n"))
    return path


def load(name: str, folder: Path, source: str | None = None) -> Program:
    """Parse program ``name`` (or ``source``), written under ``folder``."""
    return loads_program(write(name, folder, source))
