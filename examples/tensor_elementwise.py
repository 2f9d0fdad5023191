# pypto.program: TensorElementwise
# A tensor-level elementwise chain, exp(a + b) * 0.5, in one CORE_GROUP block written to out[:].
import pypto.language as pl


@pl.program
class TensorElementwise:
    @pl.function
    def main(
        self,
        a: pl.Tensor[[64, 128], pl.FP32],
        b: pl.Tensor[[64, 128], pl.FP32],
        out: pl.Out[pl.Tensor[[64, 128], pl.FP32]],
    ) -> pl.Tensor[[64, 128], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            s: pl.Tensor[[64, 128], pl.FP32] = pl.add(a, b)
            e: pl.Tensor[[64, 128], pl.FP32] = pl.exp(s)
            h: pl.Tensor[[64, 128], pl.FP32] = pl.mul(e, 0.5)
            out[:] = h
        return out
