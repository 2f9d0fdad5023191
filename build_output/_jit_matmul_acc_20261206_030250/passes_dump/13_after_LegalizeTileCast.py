# pypto.program: matmul_acc
import pypto.language as pl

@pl.program
class matmul_acc:
    @pl.function(type=pl.FunctionType.InCore, level=pl.Level.CHIP_DIE, role=pl.Role.SubWorker)
    def matmul_acc_incore_0(a: pl.Tensor[[64, 512], pl.FP16], b: pl.Tensor[[512, 64], pl.FP16], c: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        t__tmp_v0_tile: pl.Tile[[64, 128], pl.FP16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [64, 128], [64, 128], target_memory=pl.Mem.Mat)
        t__tmp_v1_tile: pl.Tile[[128, 64], pl.FP16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [128, 64], [128, 64], target_memory=pl.Mem.Mat)
        acc__ssa_v0_tile: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(t__tmp_v0_tile, t__tmp_v1_tile)
        for k, (acc__iter_v1,) in pl.range(1, 4, init_values=(acc__ssa_v0_tile,)):
            t__tmp_v2_tile: pl.Tile[[64, 128], pl.FP16, pl.Mem.Mat] = pl.tile.load(a, [0, k * 128], [64, 128], [64, 128], target_memory=pl.Mem.Mat)
            t__tmp_v3_tile: pl.Tile[[128, 64], pl.FP16, pl.Mem.Mat] = pl.tile.load(b, [k * 128, 0], [128, 64], [128, 64], target_memory=pl.Mem.Mat)
            acc__ssa_v2_tile: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(acc__iter_v1, t__tmp_v2_tile, t__tmp_v3_tile)
            acc__rv_v3: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = pl.yield_(acc__ssa_v2_tile)
        c__ssa_v0: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(acc__rv_v3, [0, 0], c)
        return c
    @pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def matmul_acc(self, a: pl.Tensor[[64, 512], pl.FP16], b: pl.Tensor[[512, 64], pl.FP16], c: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        c__ssa_v0: pl.Tensor[[64, 64], pl.FP32] = self.matmul_acc_incore_0(a, b, c)
        return c__ssa_v0
