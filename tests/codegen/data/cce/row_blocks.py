import pypto.language as pl


@pl.program
class RowBlocks:
    @pl.function(type=pl.FunctionType.AIV)
    def block_add_scale(self, a: pl.Tensor[[128, 128], pl.FP32], b: pl.Tensor[[128, 128], pl.FP32],
                        c: pl.InOut[pl.Tensor[[128, 128], pl.FP32]], row: pl.Scalar[pl.INDEX],
                        alpha: pl.Scalar[pl.FP32]) -> pl.Tensor[[128, 128], pl.FP32]:
        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 32768)
        mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 32768)
        ta: pl.Tile[[64, 128], pl.FP32, pl.MemRef(mem_vec_0, 0, 32768), pl.Mem.Vec] = pl.load(a, [row, 0], [64, 128])
        tb: pl.Tile[[64, 128], pl.FP32, pl.MemRef(mem_vec_1, 32768, 32768), pl.Mem.Vec] = pl.load(b, [row, 0], [64, 128])
        pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0, attrs={"auto_sync": True})
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0, attrs={"auto_sync": True})
        tc: pl.Tile[[64, 128], pl.FP32, pl.MemRef(mem_vec_0, 0, 32768), pl.Mem.Vec] = pl.add(ta, tb)
        pl.system.bar_v(attrs={"auto_sync": True})
        td: pl.Tile[[64, 128], pl.FP32, pl.MemRef(mem_vec_0, 0, 32768), pl.Mem.Vec] = pl.tile.muls(tc, alpha)
        pl.system.sync_src(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0, attrs={"auto_sync": True})
        pl.system.sync_dst(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0, attrs={"auto_sync": True})
        c1: pl.Tensor[[128, 128], pl.FP32] = pl.store(td, [row, 0], c)
        pl.system.bar_all(attrs={"auto_sync": True})
        return c1
