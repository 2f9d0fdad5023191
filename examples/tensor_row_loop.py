# pypto.program: TensorRowLoop
# The orchestration loops over four 32-row blocks; each CORE_GROUP block reads its rows by slice,
# computes exp(x) + x on them and writes them back into out by slice assignment.
import pypto.language as pl


@pl.program
class TensorRowLoop:
    @pl.function
    def main(
        self,
        x: pl.Tensor[[128, 64], pl.FP32],
        out: pl.Out[pl.Tensor[[128, 64], pl.FP32]],
    ) -> pl.Tensor[[128, 64], pl.FP32]:
        for i in pl.range(4):
            with pl.at(level=pl.Level.CORE_GROUP):
                t: pl.Tensor[[32, 64], pl.FP32] = x[i * 32 : i * 32 + 32, :]
                e: pl.Tensor[[32, 64], pl.FP32] = pl.exp(t)
                y: pl.Tensor[[32, 64], pl.FP32] = pl.add(e, t)
                out[i * 32 : i * 32 + 32, :] = y
        return out
