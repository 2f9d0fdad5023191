# pypto.program: matmul_acc
import pypto.language as pl

@pl.program
class matmul_acc:
    @pl.function(type=pl.FunctionType.AIC, level=pl.Level.AIC, role=pl.Role.SubWorker)
    def matmul_acc_incore_0(a: pl.Tensor[[64, 512], pl.FP16], b: pl.Tensor[[512, 64], pl.FP16], c: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        mem_mat_0: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 16384)
        mem_mat_1: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 16384)
        mem_left_2: pl.Ptr = pl.tile.alloc(pl.Mem.Left, 16384)
        mem_right_3: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 16384)
        mem_acc_4: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 16384)
        t__tmp_v0_tile: pl.Tile[[64, 128], pl.FP16, pl.MemRef(mem_mat_0, pl.const(0, pl.INT64), 16384), pl.Mem.Mat] = pl.tile.load(a, [0, 0], [64, 128], [64, 128], target_memory=pl.Mem.Mat)
        t__tmp_v1_tile: pl.Tile[[128, 64], pl.FP16, pl.MemRef(mem_mat_1, pl.const(16384, pl.INT64), 16384), pl.Mem.Mat] = pl.tile.load(b, [0, 0], [128, 64], [128, 64], target_memory=pl.Mem.Mat)
        t__tmp_v0_tile_Left: pl.Tile[[64, 128], pl.FP16, pl.MemRef(mem_left_2, pl.const(0, pl.INT64), 16384), pl.Mem.Left] = pl.tile.move(t__tmp_v0_tile, target_memory=pl.Mem.Left)
        t__tmp_v1_tile_Right: pl.Tile[[128, 64], pl.FP16, pl.MemRef(mem_right_3, pl.const(0, pl.INT64), 16384), pl.Mem.Right] = pl.tile.move(t__tmp_v1_tile, target_memory=pl.Mem.Right)
        acc__ssa_v0_tile: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_acc_4, pl.const(0, pl.INT64), 16384), pl.Mem.Acc] = pl.tile.matmul(t__tmp_v0_tile_Left, t__tmp_v1_tile_Right)
        for k, (acc__iter_v1,) in pl.range(1, 4, init_values=(acc__ssa_v0_tile,)):
            t__tmp_v2_tile: pl.Tile[[64, 128], pl.FP16, pl.MemRef(mem_mat_0, pl.const(0, pl.INT64), 16384), pl.Mem.Mat] = pl.tile.load(a, [0, k * 128], [64, 128], [64, 128], target_memory=pl.Mem.Mat)
            t__tmp_v3_tile: pl.Tile[[128, 64], pl.FP16, pl.MemRef(mem_mat_1, pl.const(16384, pl.INT64), 16384), pl.Mem.Mat] = pl.tile.load(b, [k * 128, 0], [128, 64], [128, 64], target_memory=pl.Mem.Mat)
            t__tmp_v2_tile_Left: pl.Tile[[64, 128], pl.FP16, pl.MemRef(mem_left_2, pl.const(0, pl.INT64), 16384), pl.Mem.Left] = pl.tile.move(t__tmp_v2_tile, target_memory=pl.Mem.Left)
            t__tmp_v3_tile_Right: pl.Tile[[128, 64], pl.FP16, pl.MemRef(mem_right_3, pl.const(0, pl.INT64), 16384), pl.Mem.Right] = pl.tile.move(t__tmp_v3_tile, target_memory=pl.Mem.Right)
            acc__ssa_v2_tile: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_acc_4, pl.const(0, pl.INT64), 16384), pl.Mem.Acc] = pl.tile.matmul_acc(acc__iter_v1, t__tmp_v2_tile_Left, t__tmp_v3_tile_Right)
            acc__rv_v3: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_acc_4, pl.const(0, pl.INT64), 16384), pl.Mem.Acc] = pl.yield_(acc__ssa_v2_tile)
        c__ssa_v0: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(acc__rv_v3, [0, 0], c)
        return c
    @pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP, role=pl.Role.Orchestrator, auto_scope=False)
    def matmul_acc(self, a: pl.Tensor[[64, 512], pl.FP16], b: pl.Tensor[[512, 64], pl.FP16], c: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        with pl.scope():
            c__ssa_v0: pl.Tensor[[64, 64], pl.FP32] = self.matmul_acc_incore_0(a, b, c, attrs={"arg_directions": [pl.adir.input, pl.adir.input, pl.adir.output_existing]})
        return c__ssa_v0
