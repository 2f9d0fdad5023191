# pypto.program: DepsNoDepDump
# Per-argument opt-outs and run-time flags: pl.no_dep(x) takes x out of dependency tracking for the
# first task (nothing writes it), pl.dump_tag / dumps=[...] mark tensors for the runtime's selective
# argument dump, and allow_early_resolve=True lets the scheduler prepare the consumer early.
import pypto.language as pl


@pl.program
class DepsNoDepDump:
    @pl.function(type=pl.FunctionType.InCore)
    def shift(self, x: pl.Tensor[[16, 64], pl.FP32],
              out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t: pl.Tile[[16, 64], pl.FP32] = pl.load(x, [0, 0], [16, 64])
        d: pl.Tile[[16, 64], pl.FP32] = pl.add(t, 1.0)
        out = pl.store(d, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 64], pl.FP32],
             out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        pl.dump_tag(x)
        tmp: pl.Tensor[[16, 64], pl.FP32] = pl.create_tensor([16, 64], dtype=pl.FP32)
        tmp = self.shift(pl.no_dep(x), tmp)
        out, _ = pl.submit(self.shift, tmp, out, dumps=[out], allow_early_resolve=True)
        return out
