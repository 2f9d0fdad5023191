# pypto.program: DepsTaskArray
# A TaskId array in a manual scope: 4 producers write the 4 stripes of a scratch tensor and store
# their TaskIds in the slots of `tids`; 4 consumers each read the whole scratch and depend on the
# whole array (compressed into one barrier task: 4 + 4 edges instead of 16); a last task depends on
# the single slot tids[3].
import pypto.language as pl


@pl.program
class DepsTaskArray:
    @pl.function(type=pl.FunctionType.InCore)
    def produce(self, x: pl.Tensor[[64, 64], pl.FP32], scratch: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
                row: pl.Scalar[pl.INDEX]) -> pl.Tensor[[64, 64], pl.FP32]:
        t: pl.Tile[[16, 64], pl.FP32] = pl.load(x, [row, 0], [16, 64])
        doubled: pl.Tile[[16, 64], pl.FP32] = pl.add(t, t)
        scratch = pl.store(doubled, [row, 0], scratch)
        return scratch

    @pl.function(type=pl.FunctionType.InCore)
    def consume(self, scratch: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
                row: pl.Scalar[pl.INDEX]) -> pl.Tensor[[64, 64], pl.FP32]:
        a: pl.Tile[[16, 64], pl.FP32] = pl.load(scratch, [row, 0], [16, 64])
        b: pl.Tile[[16, 64], pl.FP32] = pl.load(scratch, [48, 0], [16, 64])
        s: pl.Tile[[16, 64], pl.FP32] = pl.add(a, b)
        out = pl.store(s, [row, 0], out)
        return out

    @pl.function(type=pl.FunctionType.InCore)
    def last(self, scratch: pl.Tensor[[64, 64], pl.FP32],
             tail: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t: pl.Tile[[16, 64], pl.FP32] = pl.load(scratch, [48, 0], [16, 64])
        tail = pl.store(t, [0, 0], tail)
        return tail

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
             tail: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> tuple[pl.Tensor[[64, 64], pl.FP32],
                                                                  pl.Tensor[[16, 64], pl.FP32]]:
        with pl.manual_scope():
            scratch: pl.Tensor[[64, 64], pl.FP32] = pl.create_tensor([64, 64], dtype=pl.FP32)
            tids = pl.array.create(4, pl.TASK_ID)
            for i in pl.range(4):
                scratch, t = pl.submit(self.produce, x, scratch, i * 16)
                tids[i] = t
            for j in pl.parallel(4):
                out, _ = pl.submit(self.consume, scratch, out, j * 16, deps=[tids])
            tail, _ = pl.submit(self.last, scratch, tail, deps=[tids[3]])
        return out, tail
