# pypto.program: Matmul
# A cube (AIC) kernel: FP16 operands staged through Mat (L1) into Left/Right (L0A/L0B), an FP32
# product in Acc (L0C) stored straight to the output.
import pypto.language as pl


@pl.program
class Matmul:
    @pl.function(type=pl.FunctionType.InCore)
    def matmul(
        self,
        a: pl.Tensor[[64, 64], pl.FP16],
        b: pl.Tensor[[64, 64], pl.FP16],
        c: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
    ) -> pl.Tensor[[64, 64], pl.FP32]:
        a_mat: pl.Tile[[64, 64], pl.FP16, pl.Mem.Mat] = pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
        b_mat: pl.Tile[[64, 64], pl.FP16, pl.Mem.Mat] = pl.load(b, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
        a_left: pl.Tile[[64, 64], pl.FP16, pl.Mem.Left] = pl.move(a_mat, target_memory=pl.Mem.Left)
        b_right: pl.Tile[[64, 64], pl.FP16, pl.Mem.Right] = pl.move(b_mat, target_memory=pl.Mem.Right)
        acc: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = pl.matmul(a_left, b_right)
        c = pl.store(acc, [0, 0], c)
        return c

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self,
        a: pl.Tensor[[64, 64], pl.FP16],
        b: pl.Tensor[[64, 64], pl.FP16],
        c: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
    ) -> pl.Tensor[[64, 64], pl.FP32]:
        c = self.matmul(a, b, c)
        return c
