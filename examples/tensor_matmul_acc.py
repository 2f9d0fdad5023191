# pypto.program: TensorMatmulAcc
# A K-loop written at tensor level: the first 128-wide K block is a pl.matmul, each further block
# is added to it by pl.matmul_acc on row/column slices of the operands. The CORE_GROUP block becomes
# one cube kernel: slices load into Mat, the sum is a tile.matmul_acc carried through the loop in Acc.
import pypto.language as pl


@pl.program
class TensorMatmulAcc:
    @pl.function
    def main(
        self,
        a: pl.Tensor[[64, 512], pl.FP16],
        b: pl.Tensor[[512, 64], pl.FP16],
        c: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
    ) -> pl.Tensor[[64, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            acc: pl.Tensor[[64, 64], pl.FP32] = pl.matmul(a[:, 0:128], b[0:128, :], out_dtype=pl.FP32)
            for k in pl.range(1, 4):
                acc = pl.matmul_acc(acc, a[:, k * 128 : k * 128 + 128], b[k * 128 : k * 128 + 128, :])
            c[:] = acc
        return c
