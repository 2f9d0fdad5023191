import pypto.language as pl


@pl.program
class Int8RowExpand:
    @pl.function(type=pl.FunctionType.AIV)
    def int8_row_expand(self, x: pl.Tensor[[64, 64], pl.INT16], v: pl.Tensor[[64, 1], pl.INT16],
                        y: pl.Out[pl.Tensor[[64, 64], pl.INT16]]) -> pl.Tensor[[64, 64], pl.INT16]:
        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 128)
        t: pl.Tile[[64, 64], pl.INT16, pl.MemRef(mem_vec_0, 0, 8192), pl.Mem.Vec] = pl.load(x, [0, 0], [64, 64])
        w: pl.Tile[[64, 1], pl.INT16, pl.MemRef(mem_vec_1, 8192, 128), pl.Mem.Vec] = pl.load(v, [0, 0], [64, 1])
        pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0, attrs={"auto_sync": True})
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0, attrs={"auto_sync": True})
        d: pl.Tile[[64, 64], pl.INT16, pl.MemRef(mem_vec_0, 0, 8192), pl.Mem.Vec] = pl.tile.row_expand_sub(t, w)
        pl.system.sync_src(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0, attrs={"auto_sync": True})
        pl.system.sync_dst(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0, attrs={"auto_sync": True})
        y1: pl.Tensor[[64, 64], pl.INT16] = pl.store(d, [0, 0], y)
        pl.system.bar_all(attrs={"auto_sync": True})
        return y1
