# pypto.program: fused_linear
import pypto.language as pl

@pl.program
class fused_linear:
    @pl.function(type=pl.FunctionType.AIC, level=pl.Level.AIC, role=pl.Role.SubWorker)
    def fused_linear_incore_0(x: pl.Tensor[[64, 128], pl.FP16], w: pl.Tensor[[128, 64], pl.FP16], h: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        x_mat: pl.Tile[[64, 128], pl.FP16, pl.Mem.Mat] = pl.tile.load(x, [0, 0], [64, 128], [64, 128], target_memory=pl.Mem.Mat)
        w_mat: pl.Tile[[128, 64], pl.FP16, pl.Mem.Mat] = pl.tile.load(w, [0, 0], [128, 64], [128, 64], target_memory=pl.Mem.Mat)
        x_mat_Left: pl.Tile[[64, 128], pl.FP16, pl.Mem.Left] = pl.tile.move(x_mat, target_memory=pl.Mem.Left)
        w_mat_Right: pl.Tile[[128, 64], pl.FP16, pl.Mem.Right] = pl.tile.move(w_mat, target_memory=pl.Mem.Right)
        t__tmp_v0_tile: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(x_mat_Left, w_mat_Right)
        h__ssa_v0: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(t__tmp_v0_tile, [0, 0], h)
        return h
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def fused_linear_incore_1(h__ssa_v0: pl.Tensor[[64, 64], pl.FP32], bias: pl.Tensor[[1, 64], pl.FP32], y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(h__ssa_v0, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec)
        bv: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(bias, [0, 0], [1, 64], [1, 64], target_memory=pl.Mem.Vec)
        s: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.col_expand_add(t, bv)
        t__tmp_v1: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.muls(s, 0.0)
        t__tmp_v2: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.maximum(s, t__tmp_v1)
        y__store: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(t__tmp_v2, [0, 0], y)
        return y
    @pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def fused_linear(self, x: pl.Tensor[[64, 128], pl.FP16], w: pl.Tensor[[128, 64], pl.FP16], bias: pl.Tensor[[1, 64], pl.FP32], h: pl.Out[pl.Tensor[[64, 64], pl.FP32]], y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        h__ssa_v0: pl.Tensor[[64, 64], pl.FP32] = self.fused_linear_incore_0(x, w, h)
        y_1: pl.Tensor[[64, 64], pl.FP32] = self.fused_linear_incore_1(h__ssa_v0, bias, y)
        return y_1
