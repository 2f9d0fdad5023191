# pypto.program: DepsPhaseFence
# The seed's pl.parallel array-carry fence in a manual scope: 3 phases of 4 parallel branches; branch
# b of each phase updates stripe b of acc (acc = acc * 0.5 + data stripe). prev_tid carried through
# pl.parallel becomes an array of 4 TaskIds, so each task of a phase waits for all 4 tasks of the
# previous phase (through one phase-fence barrier task), and the branches of one phase run in parallel;
# the last task, which copies acc to out, waits for all 4 tasks of the last phase.
import pypto.language as pl

N_PHASES = 3
N_BRANCHES = 4
TILE_M = 16


@pl.program
class DepsPhaseFence:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel_stripe(self, data: pl.Tensor[[192, 64], pl.FP32], acc: pl.InOut[pl.Tensor[[64, 64], pl.FP32]],
                      row_in: pl.Scalar[pl.INDEX], row_out: pl.Scalar[pl.INDEX]) -> pl.Tensor[[64, 64], pl.FP32]:
        d: pl.Tile[[16, 64], pl.FP32] = pl.load(data, [row_in, 0], [16, 64])
        a: pl.Tile[[16, 64], pl.FP32] = pl.load(acc, [row_out, 0], [16, 64])
        half: pl.Tile[[16, 64], pl.FP32] = pl.mul(a, 0.5)
        r: pl.Tile[[16, 64], pl.FP32] = pl.add(half, d)
        acc = pl.store(r, [row_out, 0], acc)
        return acc

    @pl.function(type=pl.FunctionType.InCore)
    def finish(self, acc: pl.Tensor[[64, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        a: pl.Tile[[64, 64], pl.FP32] = pl.load(acc, [0, 0], [64, 64])
        out = pl.store(a, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, data: pl.Tensor[[192, 64], pl.FP32],
             out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        with pl.manual_scope():
            acc: pl.Tensor[[64, 64], pl.FP32] = pl.create_tensor([64, 64], dtype=pl.FP32, init_value=0.0)
            prev_tid = None
            for phase in pl.range(N_PHASES):
                for branch in pl.parallel(N_BRANCHES):
                    row_in: pl.Scalar[pl.INDEX] = (phase * N_BRANCHES + branch) * TILE_M
                    row_out: pl.Scalar[pl.INDEX] = branch * TILE_M
                    acc, prev_tid = pl.submit(self.kernel_stripe, data, acc, row_in, row_out, deps=[prev_tid])
            out, _ = pl.submit(self.finish, acc, out, deps=[prev_tid])
        return out
