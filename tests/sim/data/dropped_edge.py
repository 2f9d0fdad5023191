# pypto.program: DroppedEdge
# Issue 31 item 6: PAIRS independent producer/consumer pairs in a manual scope, each pair writing and
# reading its own rows of one scratch tensor. Nothing but the explicit edge orders a consumer after its
# producer: the runtime tracks no tensor in a manual scope. The producer is long (STEPS accumulated
# N x N x N matmuls on the cube), the consumer short (one vector add), so a consumer without its
# edge reads the rows before they are written.
import pypto.language as pl

PAIRS = 4
STEPS = 2
N = 64


@pl.program
class DroppedEdge:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[N, N], pl.FP16], b: pl.Tensor[[N, N], pl.FP16],
             scratch: pl.Out[pl.Tensor[[N * PAIRS, N], pl.FP32]],
             out: pl.Out[pl.Tensor[[N * PAIRS, N], pl.FP32]]) -> pl.Tensor[[N * PAIRS, N], pl.FP32]:
        with pl.manual_scope():
            for i in pl.range(PAIRS):
                with pl.at(level=pl.Level.CORE_GROUP) as produced:
                    acc: pl.Tensor[[N, N], pl.FP32] = pl.matmul(a, b, out_dtype=pl.FP32)
                    for k in pl.range(1, STEPS):
                        acc = pl.matmul_acc(acc, a, b)
                    scratch = pl.assemble(scratch, acc, [i * N, 0])
                with pl.at(level=pl.Level.CORE_GROUP, deps=[produced]):
                    rows: pl.Tensor[[N, N], pl.FP32] = pl.slice(scratch, [N, N], [i * N, 0])
                    out = pl.assemble(out, pl.add(rows, 1.0), [i * N, 0])
        return out
