import pypto.language as pl


@pl.program
class RowSoftmax:
    @pl.function(type=pl.FunctionType.AIV)
    def row_softmax(self, x: pl.Tensor[[64, 64], pl.FP32],
                    y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 256)
        t: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_0, 0, 16384), pl.Mem.Vec] = pl.load(x, [0, 0], [64, 64])
        tmp: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_1, 16384, 16384), pl.Mem.Vec] = pl.tile.create(
            [64, 64], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0, attrs={"auto_sync": True})
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0, attrs={"auto_sync": True})
        mx: pl.Tile[[64, 1], pl.FP32, pl.MemRef(mem_vec_2, 32768, 256), pl.Mem.Vec] = pl.tile.row_max(t, tmp)
        pl.system.bar_v(attrs={"auto_sync": True})
        sh: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_0, 0, 16384), pl.Mem.Vec] = pl.tile.row_expand_sub(t, mx)
        pl.system.bar_v(attrs={"auto_sync": True})
        e: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_0, 0, 16384), pl.Mem.Vec] = pl.exp(sh)
        pl.system.bar_v(attrs={"auto_sync": True})
        s: pl.Tile[[64, 1], pl.FP32, pl.MemRef(mem_vec_2, 32768, 256), pl.Mem.Vec] = pl.tile.row_sum(e, tmp)
        pl.system.bar_v(attrs={"auto_sync": True})
        p: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_0, 0, 16384), pl.Mem.Vec] = pl.tile.row_expand_div(e, s)
        pl.system.sync_src(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0, attrs={"auto_sync": True})
        pl.system.sync_dst(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0, attrs={"auto_sync": True})
        y1: pl.Tensor[[64, 64], pl.FP32] = pl.store(p, [0, 0], y)
        pl.system.bar_all(attrs={"auto_sync": True})
        return y1
