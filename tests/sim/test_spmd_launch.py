"""A Spmd wrapper launching one AIV kernel on four blocks, each block reading its rows at
``get_block_idx() * 32`` (the tile-level form ConvertTensorToTileOps makes of a ``pl.spmd`` body),
compiled by ``ir.compile`` and run on a2a3sim: every block runs and writes its own rows."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import pypto.language as pl
from pypto import ir
from pypto.runtime import simulator_missing_reason

if (_missing := simulator_missing_reason()) is not None:
    pytest.skip(f"simulator tier: {_missing} (scripts/install-simulator.sh installs it)", allow_module_level=True)


@pl.program
class SpmdRows:
    @pl.function(type=pl.FunctionType.InCore)
    def rows(
        self,
        x: pl.Tensor[[128, 64], pl.FP32],
        out: pl.Out[pl.Tensor[[128, 64], pl.FP32]],
    ) -> pl.Tensor[[128, 64], pl.FP32]:
        i: pl.Scalar[pl.INDEX] = pl.tile.get_block_idx()
        t: pl.Tile[[32, 64], pl.FP32] = pl.load(x, [i * 32, 0], [32, 64], target_memory=pl.Mem.Vec)
        u: pl.Tile[[32, 64], pl.FP32] = pl.mul(t, 3.0)
        v: pl.Tile[[32, 64], pl.FP32] = pl.add(u, t)
        out = pl.store(v, [i * 32, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Spmd)
    def rows_spmd(
        self,
        x: pl.Tensor[[128, 64], pl.FP32],
        out: pl.Out[pl.Tensor[[128, 64], pl.FP32]],
    ) -> pl.Tensor[[128, 64], pl.FP32]:
        out = self.rows(x, out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self,
        x: pl.Tensor[[128, 64], pl.FP32],
        out: pl.Out[pl.Tensor[[128, 64], pl.FP32]],
    ) -> pl.Tensor[[128, 64], pl.FP32]:
        out = self.rows_spmd(x, out, attrs={"core_num": 4})
        return out


def test_each_block_writes_its_rows(tmp_path: Path, kernel_cache: Path, record_timing) -> None:
    compiled = ir.compile(SpmdRows, output_dir=tmp_path / "spmd_rows")
    assert "params_t0.launch_spec.set_block_num(4);" in (tmp_path / "spmd_rows" / "orchestration" / "main.cpp").read_text()
    assert compiled.tasks().per_run == 1
    x = np.random.default_rng(5).standard_normal((128, 64)).astype(np.float32)
    got = compiled.run(x, cache_dir=kernel_cache)
    record_timing("spmd_rows", compiled.last_run)
    np.testing.assert_allclose(got, compiled.interpret(x), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(got, x * np.float32(4.0), rtol=1e-6)
