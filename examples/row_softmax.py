# pypto.program: RowSoftmax
# Softmax of each row of a 64x64 tile; the row reductions need a scratch tile of the input's shape.
import pypto.language as pl


@pl.program
class RowSoftmax:
    @pl.function(type=pl.FunctionType.InCore)
    def softmax(
        self,
        x: pl.Tensor[[64, 64], pl.FP32],
        y: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
    ) -> pl.Tensor[[64, 64], pl.FP32]:
        t: pl.Tile[[64, 64], pl.FP32] = pl.load(x, [0, 0], [64, 64])
        scratch: pl.Tile[[64, 64], pl.FP32] = pl.create_tile([64, 64], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        row_max: pl.Tile[[64, 1], pl.FP32] = pl.row_max(t, scratch)
        shifted: pl.Tile[[64, 64], pl.FP32] = pl.row_expand_sub(t, row_max)
        e: pl.Tile[[64, 64], pl.FP32] = pl.exp(shifted)
        row_sum: pl.Tile[[64, 1], pl.FP32] = pl.row_sum(e, scratch)
        result: pl.Tile[[64, 64], pl.FP32] = pl.row_expand_div(e, row_sum)
        y = pl.store(result, [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self,
        x: pl.Tensor[[64, 64], pl.FP32],
        y: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
    ) -> pl.Tensor[[64, 64], pl.FP32]:
        y = self.softmax(x, y)
        return y
