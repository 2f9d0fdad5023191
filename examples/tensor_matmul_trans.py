# pypto.program: TensorMatmulTrans
# A tensor-level matmul with both operands stored transposed: pl.matmul(a, b, a_trans=True,
# b_trans=True) reads a [128, 64] as its [64, 128] transpose and b [32, 128] as [128, 32]. Each
# operand is loaded to Mat as stored and read through tile.transpose_view (the NZ tile's bytes as the
# ZN tile of the transpose) on its way into Left/Right.
import pypto.language as pl


@pl.program
class TensorMatmulTrans:
    @pl.function
    def main(
        self,
        a: pl.Tensor[[128, 64], pl.FP16],
        b: pl.Tensor[[32, 128], pl.FP16],
        c: pl.Out[pl.Tensor[[64, 32], pl.FP32]],
    ) -> pl.Tensor[[64, 32], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            p: pl.Tensor[[64, 32], pl.FP32] = pl.matmul(a, b, out_dtype=pl.FP32, a_trans=True, b_trans=True)
            c[:] = p
        return c
