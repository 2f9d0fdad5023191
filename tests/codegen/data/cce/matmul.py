import pypto.language as pl


@pl.program
class Matmul:
    @pl.function(type=pl.FunctionType.AIC)
    def matmul_move(self, a: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16],
                    c: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        mem_mat_0: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 8192)
        mem_mat_1: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 8192)
        mem_left_2: pl.Ptr = pl.tile.alloc(pl.Mem.Left, 8192)
        mem_right_3: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 8192)
        mem_acc_4: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 16384)
        ma: pl.Tile[[64, 64], pl.FP16, pl.MemRef(mem_mat_0, 0, 8192), pl.Mem.Mat] = pl.load(
            a, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
        mb: pl.Tile[[64, 64], pl.FP16, pl.MemRef(mem_mat_1, 8192, 8192), pl.Mem.Mat] = pl.load(
            b, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
        pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.MTE1, event_id=0, attrs={"auto_sync": True})
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.MTE1, event_id=0, attrs={"auto_sync": True})
        la: pl.Tile[[64, 64], pl.FP16, pl.MemRef(mem_left_2, 0, 8192), pl.Mem.Left] = pl.move(
            ma, target_memory=pl.Mem.Left)
        rb: pl.Tile[[64, 64], pl.FP16, pl.MemRef(mem_right_3, 0, 8192), pl.Mem.Right] = pl.move(
            mb, target_memory=pl.Mem.Right)
        pl.system.sync_src(set_pipe=pl.PipeType.MTE1, wait_pipe=pl.PipeType.M, event_id=0, attrs={"auto_sync": True})
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE1, wait_pipe=pl.PipeType.M, event_id=0, attrs={"auto_sync": True})
        acc: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_acc_4, 0, 16384), pl.Mem.Acc] = pl.matmul(la, rb)
        pl.system.sync_src(set_pipe=pl.PipeType.M, wait_pipe=pl.PipeType.FIX, event_id=0, attrs={"auto_sync": True})
        pl.system.sync_dst(set_pipe=pl.PipeType.M, wait_pipe=pl.PipeType.FIX, event_id=0, attrs={"auto_sync": True})
        c1: pl.Tensor[[64, 64], pl.FP32] = pl.store(acc, [0, 0], c)
        pl.system.bar_all(attrs={"auto_sync": True})
        return c1

    @pl.function(type=pl.FunctionType.AIC)
    def matmul_split_k(self, a: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16],
                       c: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        mem_mat_0: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 8192)
        mem_mat_1: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 8192)
        mem_left_2: pl.Ptr = pl.tile.alloc(pl.Mem.Left, 4096)
        mem_right_3: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 4096)
        mem_left_4: pl.Ptr = pl.tile.alloc(pl.Mem.Left, 4096)
        mem_right_5: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 4096)
        mem_acc_6: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 16384)
        ma: pl.Tile[[64, 64], pl.FP16, pl.MemRef(mem_mat_0, 0, 8192), pl.Mem.Mat] = pl.load(
            a, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
        mb: pl.Tile[[64, 64], pl.FP16, pl.MemRef(mem_mat_1, 8192, 8192), pl.Mem.Mat] = pl.load(
            b, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
        pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.MTE1, event_id=0, attrs={"auto_sync": True})
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.MTE1, event_id=0, attrs={"auto_sync": True})
        la0: pl.Tile[[64, 32], pl.FP16, pl.MemRef(mem_left_2, 0, 4096), pl.Mem.Left] = pl.tile.extract(
            ma, 0, 0, [64, 32], target_memory=pl.Mem.Left)
        rb0: pl.Tile[[32, 64], pl.FP16, pl.MemRef(mem_right_3, 0, 4096), pl.Mem.Right] = pl.tile.extract(
            mb, 0, 0, [32, 64], target_memory=pl.Mem.Right)
        la1: pl.Tile[[64, 32], pl.FP16, pl.MemRef(mem_left_4, 4096, 4096), pl.Mem.Left] = pl.tile.extract(
            ma, 0, 32, [64, 32], target_memory=pl.Mem.Left)
        rb1: pl.Tile[[32, 64], pl.FP16, pl.MemRef(mem_right_5, 4096, 4096), pl.Mem.Right] = pl.tile.extract(
            mb, 32, 0, [32, 64], target_memory=pl.Mem.Right)
        pl.system.sync_src(set_pipe=pl.PipeType.MTE1, wait_pipe=pl.PipeType.M, event_id=0, attrs={"auto_sync": True})
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE1, wait_pipe=pl.PipeType.M, event_id=0, attrs={"auto_sync": True})
        acc: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_acc_6, 0, 16384), pl.Mem.Acc] = pl.matmul(la0, rb0)
        pl.system.bar_m(attrs={"auto_sync": True})
        acc1: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_acc_6, 0, 16384), pl.Mem.Acc] = pl.matmul_acc(acc, la1, rb1)
        pl.system.sync_src(set_pipe=pl.PipeType.M, wait_pipe=pl.PipeType.FIX, event_id=0, attrs={"auto_sync": True})
        pl.system.sync_dst(set_pipe=pl.PipeType.M, wait_pipe=pl.PipeType.FIX, event_id=0, attrs={"auto_sync": True})
        c1: pl.Tensor[[64, 64], pl.FP32] = pl.store(acc1, [0, 0], c)
        pl.system.bar_all(attrs={"auto_sync": True})
        return c1
