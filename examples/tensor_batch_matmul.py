# pypto.program: TensorBatchMatmul
# A batched tensor-level matmul: one CORE_GROUP block multiplies two batches of 32x64 by 64x32 FP16
# matrices into FP32; the kernel loads each operand as one 3-D window, FlattenTileNdTo2D splits the
# batch into one cube matmul per batch and stores each product at its batch offset.
import pypto.language as pl


@pl.program
class TensorBatchMatmul:
    @pl.function
    def main(
        self,
        a: pl.Tensor[[2, 32, 64], pl.FP16],
        b: pl.Tensor[[2, 64, 32], pl.FP16],
        c: pl.Out[pl.Tensor[[2, 32, 32], pl.FP32]],
    ) -> pl.Tensor[[2, 32, 32], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            c[:] = pl.matmul(a, b, out_dtype=pl.FP32)
        return c
