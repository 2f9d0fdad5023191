"""Issue 13: printed text as the established printer prints it (blank lines, submit temporaries, keyword order)."""

from __future__ import annotations

import pypto.language as pl
from pypto import ir

PROGRAM = """
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[1, 16], pl.INT32], out: pl.Out[pl.Tensor[[1, 16], pl.INT32]]) -> pl.Tensor[[1, 16], pl.INT32]:
        t: pl.Tile[[1, 16], pl.INT32] = pl.load(x, [0, 0], [1, 16])
        out = pl.store(t, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[1, 16], pl.INT32], rc: pl.Tensor[[1, 1], pl.INT32]) -> pl.Tensor[[1, 16], pl.INT32]:
        out: pl.Tensor[[1, 16], pl.INT32] = pl.create_tensor([1, 16], dtype=pl.INT32)
        o1, t1 = pl.submit(self.k, x, out)
        o2, _ = pl.submit(self.k, x, o1, deps=[t1])
        o3, t3 = pl.spmd_submit(self.k, x, o2, core_num=4, deps=[t1], predicate=(rc[0, 0] > 0))
        return o3
"""


def test_no_blank_line_between_functions() -> None:
    lines = pl.parse(PROGRAM).as_python().splitlines()
    second = next(i for i, line in enumerate(lines) if "def main" in line) - 1
    assert lines[second].strip().startswith("@pl.function(type=pl.FunctionType.Orchestration")
    assert lines[second - 1] == "        return out_1"  # the store result: a re-assignment is a new variable


def test_submit_temporaries_and_discarded_task_ids() -> None:
    text = pl.parse(PROGRAM).as_python()
    body = [line.strip() for line in text.splitlines()]
    assert any(line.startswith("_submit_tmp: pl.Tuple[") and "= pl.submit(self.k, x, out)" in line for line in body)
    assert "o1: pl.Tensor[[1, 16], pl.INT32] = _submit_tmp[0]" in body
    assert "t1: pl.Scalar[pl.TASK_ID] = _submit_tmp[1]" in body
    assert "_: pl.Scalar[pl.TASK_ID] = _submit_tmp_1[1]" in body
    assert "t3: pl.Scalar[pl.TASK_ID] = _submit_tmp_2[1]" in body
    ir.assert_structural_equal(pl.parse(text), pl.parse(PROGRAM))


def test_keyword_order_deps_core_num_predicate() -> None:
    text = pl.parse(PROGRAM).as_python()
    assert "pl.spmd_submit(self.k, x, o2, deps=[t1], core_num=4, predicate=(pl.cast(pl.tensor.read(rc, [0, 0]), pl.INDEX) > 0))" in text
