# pypto.program: DepsAtBlocks
# The seed's example 3: two pl.at blocks, each outlined into a kernel and submitted as a task; the
# first block's TaskId (`as tid_a`) is an explicit edge of the second, which reads what it wrote.
import pypto.language as pl


@pl.program
class DepsAtBlocks:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 64], pl.FP32], scratch: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
             out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        with pl.manual_scope():
            with pl.at(level=pl.Level.CORE_GROUP) as tid_a:
                t: pl.Tile[[16, 64], pl.FP32] = pl.load(x, [0, 0], [16, 64])
                doubled: pl.Tile[[16, 64], pl.FP32] = pl.mul(t, 2.0)
                scratch = pl.store(doubled, [0, 0], scratch)
            with pl.at(level=pl.Level.CORE_GROUP, deps=[tid_a]) as tid_b:
                s: pl.Tile[[16, 64], pl.FP32] = pl.load(scratch, [0, 0], [16, 64])
                shifted: pl.Tile[[16, 64], pl.FP32] = pl.add(s, 1.0)
                out = pl.store(shifted, [0, 0], out)
        return out
