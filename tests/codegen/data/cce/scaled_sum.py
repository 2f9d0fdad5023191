import pypto.language as pl


@pl.program
class ScaledSum:
    @pl.function(type=pl.FunctionType.AIV)
    def scaled_sum(self, x: pl.Tensor[[256, 64], pl.FP32], alpha: pl.Scalar[pl.FP32],
                   out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        acc: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_0, 0, 16384), pl.Mem.Vec] = pl.tile.full(
            [64, 64], dtype=pl.FP32, value=0.0)
        row0: pl.Scalar[pl.INDEX] = 0
        for i, (acc_it, row) in pl.range(4, init_values=(acc, row0)):
            t: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_1, 16384, 16384), pl.Mem.Vec] = pl.load(
                x, [row, 0], [64, 64])
            pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0, attrs={"auto_sync": True})
            pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0, attrs={"auto_sync": True})
            s: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_1, 16384, 16384), pl.Mem.Vec] = pl.tile.muls(t, alpha)
            pl.system.bar_v(attrs={"auto_sync": True})
            acc_next: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_0, 0, 16384), pl.Mem.Vec] = pl.add(acc_it, s)
            pl.system.sync_src(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE2, event_id=0, attrs={"auto_sync": True})
            pl.system.sync_dst(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE2, event_id=0, attrs={"auto_sync": True})
            acc_out, row_out = pl.yield_(acc_next, row + 64)
        pl.system.sync_src(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0, attrs={"auto_sync": True})
        pl.system.sync_dst(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0, attrs={"auto_sync": True})
        out1: pl.Tensor[[64, 64], pl.FP32] = pl.store(acc_out, [0, 0], out)
        pl.system.bar_all(attrs={"auto_sync": True})
        return out1
