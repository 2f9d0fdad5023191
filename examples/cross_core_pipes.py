# pypto.program: CrossCorePipes
# An explicit cross-core program as the seed writes it: the vector core (AIV) prepares both matmul
# operands (A squared elementwise, B as loaded) and pushes them to the cube core (AIC) on two vector->cube pipes
# (id 0 and 2: a one-way pipe takes the cross-core flags id and id + 1); the cube pops them into Mat, frees the
# slots once moved to Left/Right, multiplies and stores the product. The consumer (the cube) reserves each ring
# in its Mat memory with base=pl.AUTO, which memory planning places; the producer imports it by name. The Group
# launches both kernels together as one mixed task.
import pypto.language as pl


@pl.program
class CrossCorePipes:
    @pl.function(type=pl.FunctionType.AIV)
    def prepare(
        self,
        a: pl.Tensor[[64, 64], pl.FP16],
        b: pl.Tensor[[64, 64], pl.FP16],
    ):
        buf0 = pl.import_peer_buffer(name="a_slots", peer_func="multiply")
        buf1 = pl.import_peer_buffer(name="b_slots", peer_func="multiply")
        pl.aiv_initialize_pipe(pl.const(0, pl.INT32), buf0, dir_mask=2, slot_size=8192, slot_num=2, id=0)
        pl.aiv_initialize_pipe(pl.const(0, pl.INT32), buf1, dir_mask=2, slot_size=8192, slot_num=2, id=2)
        a_vec: pl.Tile[[64, 64], pl.FP16, pl.Mem.Vec] = pl.load(a, [0, 0], [64, 64])
        a_sq: pl.Tile[[64, 64], pl.FP16, pl.Mem.Vec] = pl.mul(a_vec, a_vec)
        pl.tpush_to_aic(a_sq, split=0, id=0)
        b_vec: pl.Tile[[64, 64], pl.FP16, pl.Mem.Vec] = pl.load(b, [0, 0], [64, 64])
        pl.tpush_to_aic(b_vec, split=0, id=2)

    @pl.function(type=pl.FunctionType.AIC)
    def multiply(self, c: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        buf0 = pl.reserve_buffer(name="a_slots", size=16384, base=pl.AUTO)
        buf1 = pl.reserve_buffer(name="b_slots", size=16384, base=pl.AUTO)
        pl.aic_initialize_pipe(pl.const(0, pl.INT32), buf0, dir_mask=2, slot_size=8192, slot_num=2, id=0)
        pl.aic_initialize_pipe(pl.const(0, pl.INT32), buf1, dir_mask=2, slot_size=8192, slot_num=2, id=2)
        a_mat: pl.Tile[[64, 64], pl.FP16, pl.Mem.Mat] = pl.tpop_from_aiv(split=0, id=0)
        b_mat: pl.Tile[[64, 64], pl.FP16, pl.Mem.Mat] = pl.tpop_from_aiv(split=0, id=2)
        a_left: pl.Tile[[64, 64], pl.FP16, pl.Mem.Left] = pl.move(a_mat, target_memory=pl.Mem.Left)
        b_right: pl.Tile[[64, 64], pl.FP16, pl.Mem.Right] = pl.move(b_mat, target_memory=pl.Mem.Right)
        pl.tfree_to_aiv(a_mat, id=0)
        pl.tfree_to_aiv(b_mat, id=2)
        acc: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = pl.matmul(a_left, b_right)
        c = pl.store(acc, [0, 0], c)
        return c

    @pl.function(type=pl.FunctionType.Group)
    def square_matmul(
        self,
        a: pl.Tensor[[64, 64], pl.FP16],
        b: pl.Tensor[[64, 64], pl.FP16],
        c: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
    ) -> pl.Tensor[[64, 64], pl.FP32]:
        self.prepare(a, b)
        c = self.multiply(c)
        return c

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self,
        a: pl.Tensor[[64, 64], pl.FP16],
        b: pl.Tensor[[64, 64], pl.FP16],
        c: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
    ) -> pl.Tensor[[64, 64], pl.FP32]:
        c = self.square_matmul(a, b, c)
        return c
