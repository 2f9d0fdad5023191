# pypto.program: MixedMatmulSoftmax
# A matmul then a row softmax of its result in one tensor-level pl.at scope (attention's QK^T then
# softmax): the cube part and the vector part become two kernels of a Group, joined by a pipe.
import pypto.language as pl


@pl.program
class MixedMatmulSoftmax:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self,
        a: pl.Tensor[[64, 128], pl.FP16],
        b: pl.Tensor[[128, 64], pl.FP16],
        c: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
    ) -> pl.Tensor[[64, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            x = pl.matmul(a, b, out_dtype=pl.FP32)
            m = pl.row_max(x)
            e = pl.exp(pl.row_expand_sub(x, m))
            s = pl.row_sum(e)
            y = pl.row_expand_div(e, s)
            c = pl.assemble(c, y, [0, 0])
        return c
