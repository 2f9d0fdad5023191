# pypto.program: MixedLinearRelu
# A linear layer in one pl.at scope: the cube multiplies, the vector side adds the bias and applies
# relu. ExpandMixedKernel splits the scope's kernel into an AIC and an AIV kernel in a Group,
# joined by a cube->vector pipe that carries the matmul result.
import pypto.language as pl


@pl.program
class MixedLinearRelu:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self,
        a: pl.Tensor[[64, 128], pl.FP16],
        b: pl.Tensor[[128, 64], pl.FP16],
        bias: pl.Tensor[[64, 64], pl.FP32],
        c: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
    ) -> pl.Tensor[[64, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            a1 = pl.load(a, [0, 0], [64, 128], target_memory=pl.Mem.Mat)
            b1 = pl.load(b, [0, 0], [128, 64], target_memory=pl.Mem.Mat)
            acc = pl.matmul(pl.move(a1, target_memory=pl.Mem.Left), pl.move(b1, target_memory=pl.Mem.Right))
            y = pl.add(pl.move(acc, target_memory=pl.Mem.Vec), pl.load(bias, [0, 0], [64, 64]))
            c = pl.store(pl.relu(y), [0, 0], c)
        return c
