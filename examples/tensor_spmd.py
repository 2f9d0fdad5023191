# pypto.program: TensorSpmd
# An SPMD body on four blocks: block i scales and offsets rows 32*i .. 32*i+31 of x into out.
import pypto.language as pl


@pl.program
class TensorSpmd:
    @pl.function
    def main(
        self,
        x: pl.Tensor[[128, 64], pl.FP32],
        out: pl.Out[pl.Tensor[[128, 64], pl.FP32]],
    ) -> pl.Tensor[[128, 64], pl.FP32]:
        for i in pl.spmd(4):
            t: pl.Tensor[[32, 64], pl.FP32] = x[i * 32 : i * 32 + 32, :]
            u: pl.Tensor[[32, 64], pl.FP32] = pl.mul(t, 3.0)
            v: pl.Tensor[[32, 64], pl.FP32] = pl.add(u, t)
            out[i * 32 : i * 32 + 32, :] = v
        return out
