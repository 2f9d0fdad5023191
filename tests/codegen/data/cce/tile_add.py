import pypto.language as pl


@pl.program
class TileAdd:
    @pl.function(type=pl.FunctionType.AIV)
    def tile_add(self, a: pl.Tensor[[128, 128], pl.FP32], b: pl.Tensor[[128, 128], pl.FP32],
                 c: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 65536)
        mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 65536)
        ta: pl.Tile[[128, 128], pl.FP32, pl.MemRef(mem_vec_0, 0, 65536), pl.Mem.Vec] = pl.load(a, [0, 0], [128, 128])
        tb: pl.Tile[[128, 128], pl.FP32, pl.MemRef(mem_vec_1, 65536, 65536), pl.Mem.Vec] = pl.load(b, [0, 0], [128, 128])
        pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0, attrs={"auto_sync": True})
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0, attrs={"auto_sync": True})
        tc: pl.Tile[[128, 128], pl.FP32, pl.MemRef(mem_vec_0, 0, 65536), pl.Mem.Vec] = pl.add(ta, tb)
        pl.system.sync_src(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0, attrs={"auto_sync": True})
        pl.system.sync_dst(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0, attrs={"auto_sync": True})
        c1: pl.Tensor[[128, 128], pl.FP32] = pl.store(tc, [0, 0], c)
        pl.system.bar_all(attrs={"auto_sync": True})
        return c1

    @pl.function(type=pl.FunctionType.Orchestration, auto_scope=False)
    def main(self, a: pl.Tensor[[128, 128], pl.FP32], b: pl.Tensor[[128, 128], pl.FP32],
             c: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        with pl.scope():
            c1: pl.Tensor[[128, 128], pl.FP32] = self.tile_add(a, b, c, attrs={"arg_directions": [pl.ArgDirection.Input, pl.ArgDirection.Input, pl.ArgDirection.Output]})
        return c1
