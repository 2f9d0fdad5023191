# pypto.program: TensorDynRows
# x has a dynamic row count N. The orchestration walks it in 32-row blocks; the last block of an N
# that is not a multiple of 32 is a tail: its tiles keep the static 32x64 shape and only
# rows = min(32, N - i) of them are valid, so the loads and stores move just those rows.
import pypto.language as pl

N = pl.dynamic("N")


@pl.program
class TensorDynRows:
    @pl.function
    def main(
        self,
        x: pl.Tensor[[N, 64], pl.FP32],
        out: pl.Out[pl.Tensor[[N, 64], pl.FP32]],
    ) -> pl.Tensor[[N, 64], pl.FP32]:
        for i in pl.range(0, N, 32):
            rows: pl.Scalar[pl.INDEX] = pl.min(32, N - i)
            with pl.at(level=pl.Level.CORE_GROUP):
                t: pl.Tensor[[32, 64], pl.FP32] = pl.slice(x, [32, 64], [i, 0], valid_shape=[rows, 64])
                e: pl.Tensor[[32, 64], pl.FP32] = pl.exp(t)
                y: pl.Tensor[[32, 64], pl.FP32] = pl.add(e, t)
                out = pl.assemble(out, y, [i, 0])
        return out
