"""pypto.analysis.roots.returned_params: which parameter each returned value is."""

from __future__ import annotations

import textwrap

import pypto.language as pl
from pypto import ir
from pypto.analysis.roots import returned_params

SOURCE = """
    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, a: pl.Tensor[[16], pl.FP32], out: pl.Out[pl.Tensor[[16], pl.FP32]]) -> tuple[
            pl.Tensor[[16], pl.FP32], pl.Tensor[[16], pl.FP32], pl.Tensor[[16], pl.FP32]
        ]:
            t = pl.load(a, [0], [16])
            s = pl.store(t, [0], out)
            return out, s, a
"""


def test_returned_values_map_to_parameters_directly_or_through_a_root() -> None:
    k = pl.parse(textwrap.dedent(SOURCE)).get_function("k")
    assert returned_params(k) == [1, None, 0]
    store = next(s for s in ir.flatten_to_stmts(k.body) if isinstance(s, ir.AssignStmt) and s.var.name_hint == "s")
    assert returned_params(k, lambda v: k.params[1] if v is store.var else v) == [1, 1, 0]
