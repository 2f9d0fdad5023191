# pypto.program: RowBlocks
# The orchestration loops over the two 64-row blocks of a 128x128 add and calls one kernel per block,
# passing the block's first row as a scalar.
import pypto.language as pl


@pl.program
class RowBlocks:
    @pl.function(type=pl.FunctionType.InCore)
    def block_add(
        self,
        a: pl.Tensor[[128, 128], pl.FP32],
        b: pl.Tensor[[128, 128], pl.FP32],
        c: pl.Out[pl.Tensor[[128, 128], pl.FP32]],
        row: pl.Scalar[pl.INDEX],
    ) -> pl.Tensor[[128, 128], pl.FP32]:
        ta: pl.Tile[[64, 128], pl.FP32] = pl.load(a, [row, 0], [64, 128])
        tb: pl.Tile[[64, 128], pl.FP32] = pl.load(b, [row, 0], [64, 128])
        tc: pl.Tile[[64, 128], pl.FP32] = pl.add(ta, tb)
        c = pl.store(tc, [row, 0], c)
        return c

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self,
        a: pl.Tensor[[128, 128], pl.FP32],
        b: pl.Tensor[[128, 128], pl.FP32],
        c: pl.Out[pl.Tensor[[128, 128], pl.FP32]],
    ) -> pl.Tensor[[128, 128], pl.FP32]:
        for i in pl.range(2):
            row: pl.Scalar[pl.INDEX] = i * 64
            c = self.block_add(a, b, c, row)
        return c
