# pypto.program: ScaledSum
# A kernel with a scalar parameter: it sums the four 16-row blocks of x, each scaled by alpha, into a
# tile carried through the loop's iter_args.
import pypto.language as pl


@pl.program
class ScaledSum:
    @pl.function(type=pl.FunctionType.InCore)
    def scaled_sum(
        self,
        x: pl.Tensor[[64, 64], pl.FP32],
        alpha: pl.Scalar[pl.FP32],
        out: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
    ) -> pl.Tensor[[16, 64], pl.FP32]:
        zero: pl.Tile[[16, 64], pl.FP32] = pl.tile.full([16, 64], dtype=pl.FP32, value=0.0)
        for i, (acc,) in pl.range(4, init_values=(zero,)):
            block: pl.Tile[[16, 64], pl.FP32] = pl.load(x, [i * 16, 0], [16, 64])
            scaled: pl.Tile[[16, 64], pl.FP32] = pl.mul(block, alpha)
            total = pl.yield_(pl.add(acc, scaled))
        out = pl.store(total, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self,
        x: pl.Tensor[[64, 64], pl.FP32],
        alpha: pl.Scalar[pl.FP32],
        out: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
    ) -> pl.Tensor[[16, 64], pl.FP32]:
        out = self.scaled_sum(x, alpha, out)
        return out
