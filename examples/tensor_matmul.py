# pypto.program: TensorMatmul
# A tensor-level matmul: one CORE_GROUP block multiplies 64x128 by 128x64 FP16 operands into an
# FP32 output; the compiler outlines the block into a cube kernel and converts the tensor ops.
import pypto.language as pl


@pl.program
class TensorMatmul:
    @pl.function
    def main(
        self,
        a: pl.Tensor[[64, 128], pl.FP16],
        b: pl.Tensor[[128, 64], pl.FP16],
        c: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
    ) -> pl.Tensor[[64, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            p: pl.Tensor[[64, 64], pl.FP32] = pl.matmul(a, b, out_dtype=pl.FP32)
            c[:] = p
        return c
