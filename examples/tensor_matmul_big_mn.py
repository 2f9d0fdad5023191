# pypto.program: TensorMatmulBigMN
# A tensor-level matmul whose 256x256 FP32 result (256 KiB) exceeds L0C (128 KiB on a2a3): the
# CORE_GROUP block becomes a cube kernel loading both operands to Mat, and AutoTileMatmulL0 splits
# the output into four 128x128 blocks, each a K-loop of three slabs extracted into Left/Right and
# stored straight into its place of the output.
import pypto.language as pl


@pl.program
class TensorMatmulBigMN:
    @pl.function
    def main(
        self,
        a: pl.Tensor[[256, 384], pl.FP16],
        b: pl.Tensor[[384, 256], pl.FP16],
        c: pl.Out[pl.Tensor[[256, 256], pl.FP32]],
    ) -> pl.Tensor[[256, 256], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            p: pl.Tensor[[256, 256], pl.FP32] = pl.matmul(a, b, out_dtype=pl.FP32)
            c[:] = p
        return c
