# pypto.program: TensorDynCols
# x has a dynamic row length N. The orchestration walks it in 64-column blocks; the kernels read N off
# their arguments as the row pitch of their loads and stores. The last block of an N that is not a
# multiple of 64 is a tail: its tiles keep the static 16x64 shape and only cols = min(64, N - j) of
# their columns are valid, so the loads and stores move just those columns.
import pypto.language as pl

N = pl.dynamic("N")


@pl.program
class TensorDynCols:
    @pl.function
    def main(
        self,
        x: pl.Tensor[[16, N], pl.FP32],
        y: pl.Tensor[[16, N], pl.FP32],
        out: pl.Out[pl.Tensor[[16, N], pl.FP32]],
    ) -> pl.Tensor[[16, N], pl.FP32]:
        for j in pl.range(0, N, 64):
            cols: pl.Scalar[pl.INDEX] = pl.min(64, N - j)
            with pl.at(level=pl.Level.CORE_GROUP):
                t: pl.Tensor[[16, 64], pl.FP32] = pl.slice(x, [16, 64], [0, j], valid_shape=[16, cols])
                u: pl.Tensor[[16, 64], pl.FP32] = pl.slice(y, [16, 64], [0, j], valid_shape=[16, cols])
                z: pl.Tensor[[16, 64], pl.FP32] = pl.add(pl.mul(t, u), t)
                out = pl.assemble(out, z, [0, j])
        return out
