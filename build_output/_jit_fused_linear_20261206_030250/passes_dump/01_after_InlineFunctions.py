# pypto.program: fused_linear
import pypto.language as pl

@pl.program
class fused_linear:
    @pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def fused_linear(self, x: pl.Tensor[[64, 128], pl.FP16], w: pl.Tensor[[128, 64], pl.FP16], bias: pl.Tensor[[1, 64], pl.FP32], h: pl.Out[pl.Tensor[[64, 64], pl.FP32]], y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            h: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.assemble(h, pl.tensor.matmul(x, w, a_trans=False, b_trans=False, c_matrix_nz=False, out_dtype=pl.FP32), [0, 0])
        with pl.at(level=pl.Level.CORE_GROUP):
            t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(h, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec)
            bv: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(bias, [0, 0], [1, 64], [1, 64], target_memory=pl.Mem.Vec)
            s: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.col_expand_add(t, bv)
            pl.tile.store(pl.tile.maximum(s, pl.tile.muls(s, 0.0)), [0, 0], y)
        return y
