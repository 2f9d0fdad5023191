"""``tile.mgather`` in a kernel (pto-isa's CPU MGATHER): whole rows and flat elements of a GM table
picked by an index tile, with each bounded ``gather_oob`` mode; a2a3sim equals the interpreter."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import pypto.language as pl
from pypto import ir
from pypto.runtime import simulator_missing_reason

if (_missing := simulator_missing_reason()) is not None:
    pytest.skip(f"simulator tier: {_missing} (scripts/install-simulator.sh installs it)", allow_module_level=True)

SOURCE = """
import pypto.language as pl


@pl.program
class Gathers:
    @pl.function(type=pl.FunctionType.InCore)
    def k(
        self,
        table: pl.Tensor[[32, 64], pl.FP32],
        rows_at: pl.Tensor[[1, 8], pl.INT32],
        elems_at: pl.Tensor[[8, 16], pl.INT32],
        rows: pl.Out[pl.Tensor[[8, 64], pl.FP32]],
        wrapped: pl.Out[pl.Tensor[[8, 16], pl.FP32]],
        zeroed: pl.Out[pl.Tensor[[8, 16], pl.FP32]],
    ) -> tuple[pl.Tensor[[8, 64], pl.FP32], pl.Tensor[[8, 16], pl.FP32], pl.Tensor[[8, 16], pl.FP32]]:
        r: pl.Tile[[1, 8], pl.INT32] = pl.load(rows_at, [0, 0], [1, 8])
        g: pl.Tile[[8, 64], pl.FP32] = pl.tile.mgather(table, r, gather_oob="clamp")
        rows = pl.store(g, [0, 0], rows)
        e: pl.Tile[[8, 16], pl.INT32] = pl.load(elems_at, [0, 0], [8, 16])
        w: pl.Tile[[8, 16], pl.FP32] = pl.tile.mgather(table, e, "elem", gather_oob="wrap")
        wrapped = pl.store(w, [0, 0], wrapped)
        z: pl.Tile[[8, 16], pl.FP32] = pl.tile.mgather(table, e, "elem", gather_oob="zero")
        zeroed = pl.store(z, [0, 0], zeroed)
        return rows, wrapped, zeroed

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self,
        table: pl.Tensor[[32, 64], pl.FP32],
        rows_at: pl.Tensor[[1, 8], pl.INT32],
        elems_at: pl.Tensor[[8, 16], pl.INT32],
        rows: pl.Out[pl.Tensor[[8, 64], pl.FP32]],
        wrapped: pl.Out[pl.Tensor[[8, 16], pl.FP32]],
        zeroed: pl.Out[pl.Tensor[[8, 16], pl.FP32]],
    ) -> tuple[pl.Tensor[[8, 64], pl.FP32], pl.Tensor[[8, 16], pl.FP32], pl.Tensor[[8, 16], pl.FP32]]:
        rows, wrapped, zeroed = self.k(table, rows_at, elems_at, rows, wrapped, zeroed)
        return rows, wrapped, zeroed
"""


def test_gathers_run_as_interpreted(tmp_path: Path, kernel_cache: Path) -> None:
    compiled = ir.compile(pl.parse(SOURCE), output_dir=tmp_path, dump_passes=False)
    cpp = (tmp_path / "kernels" / "aiv" / "k.cpp").read_text()
    assert "MGATHER<Coalesce::Row, GatherOOB::Clamp>(g, table_gt, r);" in cpp
    assert "MGATHER<Coalesce::Elem, GatherOOB::Zero>(z, table_gt_2, e);" in cpp
    rng = np.random.default_rng(3)
    table = rng.standard_normal((32, 64)).astype(np.float32)
    rows_at = np.array([[3, 0, 31, 40, 7, 7, 1, 30]], np.int32)
    elems_at = rng.integers(0, 4000, (8, 16)).astype(np.int32)
    want = compiled.interpret(table, rows_at, elems_at)
    np.testing.assert_array_equal(want[0], table[np.minimum(rows_at[0], 31)])
    np.testing.assert_array_equal(want[1], table.reshape(-1)[elems_at % 2048])
    np.testing.assert_array_equal(want[2], np.where(elems_at < 2048, table.reshape(-1)[elems_at % 2048], 0))
    got = compiled.run(table, rows_at, elems_at, cache_dir=kernel_cache)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w)
