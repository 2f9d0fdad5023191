# pypto.program: SpmdPipes
# pl.spmd over a Group: two blocks, each a mixed task of its own AIV and AIC kernel joined by a
# vector->cube pipe. Block i squares rows 64*i .. 64*i+63 of A on the vector core, pushes them to the
# cube core, which multiplies them by B and stores that block of rows of C.
import pypto.language as pl


@pl.program
class SpmdPipes:
    @pl.function(type=pl.FunctionType.AIV)
    def prepare(self, a: pl.Tensor[[128, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16]):
        buf0 = pl.import_peer_buffer(name="a_slots", peer_func="multiply")
        pl.aiv_initialize_pipe(pl.const(0, pl.INT32), buf0, dir_mask=2, slot_size=8192, slot_num=2, id=0)
        r = pl.tile.get_block_idx() * 64
        a_vec: pl.Tile[[64, 64], pl.FP16, pl.Mem.Vec] = pl.load(a, [r, 0], [64, 64])
        a_sq: pl.Tile[[64, 64], pl.FP16, pl.Mem.Vec] = pl.mul(a_vec, a_vec)
        pl.tpush_to_aic(a_sq, split=0, id=0)

    @pl.function(type=pl.FunctionType.AIC)
    def multiply(self, b: pl.Tensor[[64, 64], pl.FP16],
                 c: pl.Out[pl.Tensor[[128, 64], pl.FP32]]) -> pl.Tensor[[128, 64], pl.FP32]:
        buf0 = pl.reserve_buffer(name="a_slots", size=16384, base=pl.AUTO)
        pl.aic_initialize_pipe(pl.const(0, pl.INT32), buf0, dir_mask=2, slot_size=8192, slot_num=2, id=0)
        r = pl.tile.get_block_idx() * 64
        a_mat: pl.Tile[[64, 64], pl.FP16, pl.Mem.Mat] = pl.tpop_from_aiv(split=0, id=0)
        a_left: pl.Tile[[64, 64], pl.FP16, pl.Mem.Left] = pl.move(a_mat, target_memory=pl.Mem.Left)
        pl.tfree_to_aiv(a_mat, id=0)
        b_mat: pl.Tile[[64, 64], pl.FP16, pl.Mem.Mat] = pl.load(b, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
        b_right: pl.Tile[[64, 64], pl.FP16, pl.Mem.Right] = pl.move(b_mat, target_memory=pl.Mem.Right)
        acc: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = pl.matmul(a_left, b_right)
        c = pl.store(acc, [r, 0], c)
        return c

    @pl.function(type=pl.FunctionType.Group)
    def mm(self, a: pl.Tensor[[128, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16],
           c: pl.Out[pl.Tensor[[128, 64], pl.FP32]]) -> pl.Tensor[[128, 64], pl.FP32]:
        self.prepare(a, b)
        c = self.multiply(b, c)
        return c

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[128, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16],
             c: pl.Out[pl.Tensor[[128, 64], pl.FP32]]) -> pl.Tensor[[128, 64], pl.FP32]:
        with pl.spmd(2):
            c = self.mm(a, b, c)
        return c
