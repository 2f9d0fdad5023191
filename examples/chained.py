# pypto.program: Chained
# Two kernels chained through an internal tensor the orchestration creates: twice writes x + x into it,
# half_plus_one reads it back: y = (x + x) * 0.5 + 1.
import pypto.language as pl


@pl.program
class Chained:
    @pl.function(type=pl.FunctionType.InCore)
    def twice(
        self,
        x: pl.Tensor[[64, 64], pl.FP32],
        tmp: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
    ) -> pl.Tensor[[64, 64], pl.FP32]:
        t: pl.Tile[[64, 64], pl.FP32] = pl.load(x, [0, 0], [64, 64])
        doubled: pl.Tile[[64, 64], pl.FP32] = pl.add(t, t)
        tmp = pl.store(doubled, [0, 0], tmp)
        return tmp

    @pl.function(type=pl.FunctionType.InCore)
    def half_plus_one(
        self,
        tmp: pl.Tensor[[64, 64], pl.FP32],
        y: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
    ) -> pl.Tensor[[64, 64], pl.FP32]:
        t: pl.Tile[[64, 64], pl.FP32] = pl.load(tmp, [0, 0], [64, 64])
        half: pl.Tile[[64, 64], pl.FP32] = pl.mul(t, 0.5)
        shifted: pl.Tile[[64, 64], pl.FP32] = pl.add(half, 1.0)
        y = pl.store(shifted, [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self,
        x: pl.Tensor[[64, 64], pl.FP32],
        y: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
    ) -> pl.Tensor[[64, 64], pl.FP32]:
        tmp: pl.Tensor[[64, 64], pl.FP32] = pl.create_tensor([64, 64], dtype=pl.FP32)
        tmp = self.twice(x, tmp)
        y = self.half_plus_one(tmp, y)
        return y
