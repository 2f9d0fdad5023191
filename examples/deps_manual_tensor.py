# pypto.program: DepsManualTensor
# The seed's example 4 (mechanism A per tensor): the scratch tensor is created with manual_dep=True,
# so no task that reads or writes it is tracked automatically; the explicit edge alone orders the
# consumer after the producer.
import pypto.language as pl


@pl.program
class DepsManualTensor:
    @pl.function(type=pl.FunctionType.InCore)
    def fill(self, x: pl.Tensor[[16, 64], pl.FP32],
             scratch: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t: pl.Tile[[16, 64], pl.FP32] = pl.load(x, [0, 0], [16, 64])
        squared: pl.Tile[[16, 64], pl.FP32] = pl.mul(t, t)
        scratch = pl.store(squared, [0, 0], scratch)
        return scratch

    @pl.function(type=pl.FunctionType.InCore)
    def consume(self, scratch: pl.Tensor[[16, 64], pl.FP32],
                out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t: pl.Tile[[16, 64], pl.FP32] = pl.load(scratch, [0, 0], [16, 64])
        shifted: pl.Tile[[16, 64], pl.FP32] = pl.add(t, 0.5)
        out = pl.store(shifted, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 64], pl.FP32],
             out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        scratch: pl.Tensor[[16, 64], pl.FP32] = pl.create_tensor([16, 64], dtype=pl.FP32, manual_dep=True)
        scratch, prod_tid = pl.submit(self.fill, x, scratch)
        out, _ = pl.submit(self.consume, scratch, out, deps=[prod_tid])
        return out
