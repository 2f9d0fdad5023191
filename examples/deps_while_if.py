# pypto.program: DepsWhileIf
# TaskIds through a `while` loop and out of an `if` in a manual scope: a while loop (SSA form,
# pl.while_) chains n producers by carrying the last TaskId and records each in a TaskId array
# slot; an `if` yields either one more producer's TaskId or the carried one (pl.yield_), and fills
# the last slot when the loop left it empty; consumers then wait for the whole array, and a last
# task for the TaskId the `if` yielded.
import pypto.language as pl


@pl.program
class DepsWhileIf:
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
    def main(self, x: pl.Tensor[[64, 64], pl.FP32], n: pl.Scalar[pl.INDEX],
             out: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
             tail: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> tuple[pl.Tensor[[64, 64], pl.FP32],
                                                                  pl.Tensor[[16, 64], pl.FP32]]:
        with pl.manual_scope():
            scratch0: pl.Tensor[[64, 64], pl.FP32] = pl.create_tensor([64, 64], dtype=pl.FP32)
            tids0 = pl.array.create(4, pl.TASK_ID)
            i0: pl.Scalar[pl.INDEX] = 0
            for (i, prev, scratch, tids) in pl.while_(init_values=(i0, None, scratch0, tids0)):
                pl.cond(i < n)
                scratch1, t = pl.submit(self.produce, x, scratch, i * 16, deps=[prev])
                tids1 = pl.array.update_element(tids, i, t)
                i1, prev1, scratch2, tids2 = pl.yield_(i + 1, t, scratch1, tids1)
            if i1 < 4:
                scratch3, t3 = pl.submit(self.produce, x, scratch2, 48, deps=[prev1])
                tids3 = pl.array.update_element(tids2, 3, t3)
                scratch4, tids4, fill = pl.yield_(scratch3, tids3, t3)
            else:
                scratch4, tids4, fill = pl.yield_(scratch2, tids2, prev1)
            for j in pl.parallel(4):
                out, _ = pl.submit(self.consume, scratch4, out, j * 16, deps=[tids4])
            tail, _ = pl.submit(self.last, scratch4, tail, deps=[fill])
        return out, tail
