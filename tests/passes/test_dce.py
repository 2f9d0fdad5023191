"""pypto.transform.dce: dead assignments and carries go, effects and what they read stay."""

from __future__ import annotations

import pypto.language as pl
from pypto.transform.dce import eliminate_dead_code, sweep_dead_code

_SOURCE = """
import pypto.language as pl
@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIV)
    def k(self, a: pl.Tensor[[16, 16], pl.FP32],
          c: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [16, 16])
        unused: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.exp(t)
        for i, (n, x) in pl.range(4, init_values=(0, t)):
            n2: pl.Scalar[pl.INDEX] = n + 1
            x2: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.add(x, t)
            n_out, x_out = pl.yield_(n2, x2)
        out: pl.Tensor[[16, 16], pl.FP32] = pl.store(x_out, [0, 0], c)
        return out
"""


def test_a_carry_feeding_only_itself_and_an_unread_value_are_dropped() -> None:
    func = pl.parse(_SOURCE).get_function("k")
    body = eliminate_dead_code(func).as_python()
    assert "unused" not in body and "n2" not in body and "n_out" not in body
    assert "for i, (x,) in pl.range(4, init_values=(t,)):" in body
    assert "pl.tile.store(x_out, [0, 0], c)" in body


_DEAD_LOOP = """
import pypto.language as pl
@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIV)
    def k(self, a: pl.Tensor[[16, 16], pl.FP32], n: pl.Scalar[pl.INDEX],
          c: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [16, 16])
        bound: pl.Scalar[pl.INDEX] = n + 2
        flag: pl.Scalar[pl.BOOL] = n > 3
        for i, (x,) in pl.range(bound, init_values=(t,)):
            x2: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.add(x, t)
            x_out = pl.yield_(x2)
        if flag:
            y: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.exp(t)
        out: pl.Tensor[[16, 16], pl.FP32] = pl.store(t, [0, 0], c)
        return out
"""


def test_a_dropped_loop_or_branch_is_reported_and_only_then_a_second_run_removes_more() -> None:
    # The dropped loop's bound and the dropped branch's condition stay live in the first run.
    dead = pl.parse(_DEAD_LOOP).get_function("k")
    once, dropped = sweep_dead_code(dead)
    assert dropped and "bound" in once.as_python() and "flag" in once.as_python()
    twice = eliminate_dead_code(once).as_python()
    assert "bound" not in twice and "flag" not in twice and "pl.range" not in twice
    # Nothing compound dropped: the result is its own dead-code elimination (what ExpandMixedKernel skips).
    kept, dropped = sweep_dead_code(pl.parse(_SOURCE).get_function("k"))
    assert not dropped
    assert eliminate_dead_code(kept).as_python() == kept.as_python()
