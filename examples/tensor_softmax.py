# pypto.program: TensorSoftmax
# A tensor-level row softmax of a 64x128 tensor in one CORE_GROUP block: subtract each row's max,
# exponentiate, divide by each row's sum.
import pypto.language as pl


@pl.program
class TensorSoftmax:
    @pl.function
    def main(
        self,
        x: pl.Tensor[[64, 128], pl.FP32],
        y: pl.Out[pl.Tensor[[64, 128], pl.FP32]],
    ) -> pl.Tensor[[64, 128], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            m: pl.Tensor[[64, 1], pl.FP32] = pl.row_max(x)
            shifted: pl.Tensor[[64, 128], pl.FP32] = pl.row_expand_sub(x, m)
            e: pl.Tensor[[64, 128], pl.FP32] = pl.exp(shifted)
            s: pl.Tensor[[64, 1], pl.FP32] = pl.row_sum(e)
            r: pl.Tensor[[64, 128], pl.FP32] = pl.row_expand_div(e, s)
            y[:] = r
        return y
