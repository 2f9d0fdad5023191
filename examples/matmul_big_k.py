# pypto.program: MatmulBigK
# A cube (AIC) kernel whose FP16 operands (128 KiB each in Mat) are too big for L0A/L0B (64 KiB):
# AutoTileMatmulL0 turns the matmul into a loop over K slabs extracted into Left/Right, the first
# multiplied by tile.matmul and the rest accumulated by tile.matmul_acc into one FP32 Acc tile.
import pypto.language as pl


@pl.program
class MatmulBigK:
    @pl.function(type=pl.FunctionType.InCore)
    def matmul(
        self,
        a: pl.Tensor[[128, 512], pl.FP16],
        b: pl.Tensor[[512, 128], pl.FP16],
        c: pl.Out[pl.Tensor[[128, 128], pl.FP32]],
    ) -> pl.Tensor[[128, 128], pl.FP32]:
        a_mat: pl.Tile[[128, 512], pl.FP16, pl.Mem.Mat] = pl.load(a, [0, 0], [128, 512], target_memory=pl.Mem.Mat)
        b_mat: pl.Tile[[512, 128], pl.FP16, pl.Mem.Mat] = pl.load(b, [0, 0], [512, 128], target_memory=pl.Mem.Mat)
        acc: pl.Tile[[128, 128], pl.FP32, pl.Mem.Acc] = pl.matmul(a_mat, b_mat)
        c = pl.store(acc, [0, 0], c)
        return c

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self,
        a: pl.Tensor[[128, 512], pl.FP16],
        b: pl.Tensor[[512, 128], pl.FP16],
        c: pl.Out[pl.Tensor[[128, 128], pl.FP32]],
    ) -> pl.Tensor[[128, 128], pl.FP32]:
        c = self.matmul(a, b, c)
        return c
