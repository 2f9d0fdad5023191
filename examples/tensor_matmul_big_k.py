# pypto.program: TensorMatmulBigK
# A tensor-level matmul whose FP16 operands (128 KiB each) exceed L0A/L0B (64 KiB): the CORE_GROUP
# block becomes a cube kernel loading both operands to Mat, and AutoTileMatmulL0 splits K into
# slabs extracted into Left/Right, accumulated by tile.matmul_acc into one FP32 Acc tile.
import pypto.language as pl


@pl.program
class TensorMatmulBigK:
    @pl.function
    def main(
        self,
        a: pl.Tensor[[128, 512], pl.FP16],
        b: pl.Tensor[[512, 128], pl.FP16],
        c: pl.Out[pl.Tensor[[128, 128], pl.FP32]],
    ) -> pl.Tensor[[128, 128], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            p: pl.Tensor[[128, 128], pl.FP32] = pl.matmul(a, b, out_dtype=pl.FP32)
            c[:] = p
        return c
