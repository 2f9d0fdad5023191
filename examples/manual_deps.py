# pypto.program: ManualDeps
import pypto.language as pl


@pl.program
class ManualDeps:
    @pl.function(type=pl.FunctionType.InCore)
    def stage1(self, x: pl.Tensor[[16, 64], pl.FP32], scratch: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t: pl.Tile[[16, 64], pl.FP32] = pl.load(x, [0, 0], [16, 64])
        doubled: pl.Tile[[16, 64], pl.FP32] = pl.mul(t, 2.0)
        scratch = pl.store(doubled, [0, 0], scratch)
        return scratch

    @pl.function(type=pl.FunctionType.InCore)
    def stage2(self, scratch: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t: pl.Tile[[16, 64], pl.FP32] = pl.load(scratch, [0, 0], [16, 64])
        shifted: pl.Tile[[16, 64], pl.FP32] = pl.add(t, 1.0)
        out = pl.store(shifted, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self,
        x: pl.Tensor[[16, 64], pl.FP32],
        scratch: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
        out: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
    ) -> pl.Tensor[[16, 64], pl.FP32]:
        with pl.manual_scope():
            scratch, stage1_tid = pl.submit(self.stage1, x, scratch)
            out, _ = pl.submit(self.stage2, scratch, out, deps=[stage1_tid])
        return out
