"""static_counts: how many calls of each key one run of a body makes, when known at compile time."""

from __future__ import annotations

import pypto.language as pl
from pypto.analysis import function_index, op_name
from pypto.analysis.pipe_traffic import static_counts

from pypto import ir

_SOURCE = """
import pypto.language as pl

@pl.program
class P:
    @pl.function
    def f(self, x: pl.Tensor[[16], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[16], pl.FP32]:
        a = pl.exp(x)
        for i in pl.range(4):
            for j in pl.range(0, 6, 2):
                b = pl.exp(x)
        for i in pl.range(n):
            c = pl.neg(x)
        for i in pl.range(n):
            for j in pl.range(0):
                d = pl.abs(x)
        if n > 0:
            e = pl.sqrt(x)
        else:
            e = pl.sqrt(x)
        if n > 1:
            f = pl.log(x)
        while n > 2:
            g = pl.mul(x, x)
        return a
"""


def test_each_key_is_counted_through_loops_and_branches() -> None:
    """Constant loops multiply, a dynamic loop or a while makes a count unknown unless it is 0, and a
    branch keeps a count only when both arms agree; a call without a key is not counted."""
    func = pl.parse(_SOURCE).get_function("f")
    calls = function_index(func).of(ir.Call)
    keys = {id(c): op_name(c) for c in calls if op_name(c) != "tensor.log"}
    # (tensor.abs: none in a loop of no trips, so none in the dynamic loop around it)
    assert static_counts(func.body, keys) == {"tensor.exp": 13, "tensor.neg": None, "tensor.sqrt": 1, "tensor.mul": None}
    with_log = {id(c): op_name(c) for c in calls}
    assert static_counts(func.body, with_log)["tensor.log"] is None
    assert static_counts(func.body, {}) == {}
