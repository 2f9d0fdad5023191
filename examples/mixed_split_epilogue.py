# pypto.program: MixedSplitEpilogue
# The linear layer of mixed_linear_relu.py with its vector epilogue split up/down over the two AIV
# lanes of the cluster: each lane pops, biases and stores half the rows of the matmul result.
import pypto.language as pl


@pl.program
class MixedSplitEpilogue:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self,
        a: pl.Tensor[[64, 128], pl.FP16],
        b: pl.Tensor[[128, 64], pl.FP16],
        bias: pl.Tensor[[64, 64], pl.FP32],
        c: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
    ) -> pl.Tensor[[64, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.split(pl.SplitMode.UP_DOWN)]):
            a1 = pl.load(a, [0, 0], [64, 128], target_memory=pl.Mem.Mat)
            b1 = pl.load(b, [0, 0], [128, 64], target_memory=pl.Mem.Mat)
            acc = pl.matmul(pl.move(a1, target_memory=pl.Mem.Left), pl.move(b1, target_memory=pl.Mem.Right))
            y = pl.add(pl.move(acc, target_memory=pl.Mem.Vec), pl.load(bias, [0, 0], [64, 64]))
            c = pl.store(pl.relu(y), [0, 0], c)
        return c
