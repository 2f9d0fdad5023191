# pypto.program: MixedVectorToCube
# The vector side prepares a matmul operand (squares it) and the cube multiplies: the operand
# crosses through a vector->cube pipe, popped into Mat and moved to Left on the cube side.
import pypto.language as pl


@pl.program
class MixedVectorToCube:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self,
        a: pl.Tensor[[64, 128], pl.FP16],
        b: pl.Tensor[[128, 64], pl.FP16],
        c: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
    ) -> pl.Tensor[[64, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            av = pl.load(a, [0, 0], [64, 128])
            sq = pl.mul(av, av)
            b1 = pl.load(b, [0, 0], [128, 64], target_memory=pl.Mem.Mat)
            acc = pl.matmul(pl.move(sq, target_memory=pl.Mem.Left), pl.move(b1, target_memory=pl.Mem.Right))
            c = pl.store(acc, [0, 0], c)
        return c
