# pypto.program: DepsExplicitEdge
# Mechanism B alone (the seed's example 2): no manual scope, so the runtime still tracks tmp and out
# automatically; the explicit edge from the preprocess task to the consumer is added on top of that.
import pypto.language as pl


@pl.program
class DepsExplicitEdge:
    @pl.function(type=pl.FunctionType.InCore)
    def preprocess(self, x: pl.Tensor[[16, 64], pl.FP32],
                   tmp: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t: pl.Tile[[16, 64], pl.FP32] = pl.load(x, [0, 0], [16, 64])
        scaled: pl.Tile[[16, 64], pl.FP32] = pl.mul(t, 3.0)
        tmp = pl.store(scaled, [0, 0], tmp)
        return tmp

    @pl.function(type=pl.FunctionType.InCore)
    def consume(self, tmp: pl.Tensor[[16, 64], pl.FP32],
                out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t: pl.Tile[[16, 64], pl.FP32] = pl.load(tmp, [0, 0], [16, 64])
        shifted: pl.Tile[[16, 64], pl.FP32] = pl.add(t, -1.0)
        out = pl.store(shifted, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 64], pl.FP32],
             out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        tmp: pl.Tensor[[16, 64], pl.FP32] = pl.create_tensor([16, 64], dtype=pl.FP32)
        tmp, prep_tid = pl.submit(self.preprocess, x, tmp)
        out, _ = pl.submit(self.consume, tmp, out, deps=[prep_tid])
        return out
