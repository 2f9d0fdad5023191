# pypto.program: LoopSum
import pypto.language as pl


@pl.program
class LoopSum:
    @pl.function
    def loop_sum(self, n: pl.INT64) -> pl.INT64:
        total: pl.INT64 = pl.const(0, pl.INT64)
        for i in pl.range(n):
            if i % 2 == 0:
                total = total + i
            else:
                total = total - 1
        return total
