# pypto.program: matmul_acc
import pypto.language as pl

@pl.program
class matmul_acc:
    @pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def matmul_acc(self, a: pl.Tensor[[64, 512], pl.FP16], b: pl.Tensor[[512, 64], pl.FP16], c: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            t__tmp_v0: pl.Tensor[[64, 128], pl.FP16] = pl.tensor.slice(a, [64, 128], [0, 0])
            t__tmp_v1: pl.Tensor[[128, 64], pl.FP16] = pl.tensor.slice(b, [128, 64], [0, 0])
            acc__ssa_v0: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.matmul(t__tmp_v0, t__tmp_v1, a_trans=False, b_trans=False, c_matrix_nz=False, out_dtype=pl.FP32)
            for k, (acc__iter_v1,) in pl.range(1, 4, init_values=(acc__ssa_v0,)):
                t__tmp_v2: pl.Tensor[[64, k * pl.const(128, pl.INDEX) + pl.const(128, pl.INDEX) - k * pl.const(128, pl.INDEX)], pl.FP16] = pl.tensor.slice(a, [64, k * 128 + 128 - k * 128], [0, k * 128])
                t__tmp_v3: pl.Tensor[[k * pl.const(128, pl.INDEX) + pl.const(128, pl.INDEX) - k * pl.const(128, pl.INDEX), 64], pl.FP16] = pl.tensor.slice(b, [k * 128 + 128 - k * 128, 64], [k * 128, 0])
                acc__ssa_v2: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.matmul_acc(acc__iter_v1, t__tmp_v2, t__tmp_v3, a_trans=False, b_trans=False)
                acc__rv_v3: pl.Tensor[[64, 64], pl.FP32] = pl.yield_(acc__ssa_v2)
            c__ssa_v0: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.assemble(c, acc__rv_v3, [0, 0])
        return c__ssa_v0
