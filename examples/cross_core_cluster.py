# pypto.program: CrossCoreCluster
# pl.cluster(): the work inside runs as one Group, one AIC and one AIV kernel launched together as a
# mixed task. Here the body is a pl.spmd of mixed work, so the Group runs on two blocks: block i
# multiplies rows 64*i .. 64*i+63 of A by B on the cube core, and the vector core scales them by
# 1/8, applies exp and stores them. The cluster unwraps the pl.spmd into its Group, which never
# becomes a task of its own, so as the seed says a pl.spmd inside pl.cluster() can neither bind a
# TaskId (`as tid`) nor take deps=, allow_early_resolve= or predicate=: each is a parser error.
import pypto.language as pl


@pl.program
class CrossCoreCluster:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self,
        a: pl.Tensor[[128, 64], pl.FP16],
        b: pl.Tensor[[64, 64], pl.FP16],
        out: pl.Out[pl.Tensor[[128, 64], pl.FP32]],
    ) -> pl.Tensor[[128, 64], pl.FP32]:
        with pl.cluster():
            for i in pl.spmd(2):
                c = pl.matmul(pl.slice(a, [64, 64], [i * 64, 0]), b, out_dtype=pl.FP32)
                out = pl.assemble(out, pl.exp(pl.mul(c, 0.125)), [i * 64, 0])
        return out
