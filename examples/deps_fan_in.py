# pypto.program: DepsFanIn
# A fan-in through pl.system.task_dummy: two producers write the two halves of a scratch tensor in a
# manual scope; a dependency-only task joins their TaskIds (None adds no edge), and the consumer that
# reads the whole scratch depends on that one barrier.
import pypto.language as pl


@pl.program
class DepsFanIn:
    @pl.function(type=pl.FunctionType.InCore)
    def half(self, x: pl.Tensor[[32, 64], pl.FP32], scratch: pl.Out[pl.Tensor[[32, 64], pl.FP32]],
             row: pl.Scalar[pl.INDEX]) -> pl.Tensor[[32, 64], pl.FP32]:
        t: pl.Tile[[16, 64], pl.FP32] = pl.load(x, [row, 0], [16, 64])
        scaled: pl.Tile[[16, 64], pl.FP32] = pl.mul(t, 4.0)
        scratch = pl.store(scaled, [row, 0], scratch)
        return scratch

    @pl.function(type=pl.FunctionType.InCore)
    def consume(self, scratch: pl.Tensor[[32, 64], pl.FP32],
                out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        t: pl.Tile[[32, 64], pl.FP32] = pl.load(scratch, [0, 0], [32, 64])
        shifted: pl.Tile[[32, 64], pl.FP32] = pl.add(t, 1.0)
        out = pl.store(shifted, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[32, 64], pl.FP32],
             out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        with pl.manual_scope():
            scratch: pl.Tensor[[32, 64], pl.FP32] = pl.create_tensor([32, 64], dtype=pl.FP32)
            scratch, top = pl.submit(self.half, x, scratch, 0)
            scratch, bottom = pl.submit(self.half, x, scratch, 16)
            barrier = pl.system.task_dummy(deps=[top, bottom, None])
            out, _ = pl.submit(self.consume, scratch, out, deps=[barrier], allow_early_resolve=True)
        return out
