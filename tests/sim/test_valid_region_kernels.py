"""Valid regions through writes and reshapes on a2a3sim, equal to the interpreter (issue 33 item 6).

An assemble that appends rows to a tile's valid region makes it fully valid (the union of the two); a
reshape carries a row prefix exactly, onto a single row; a padded tile's slice keeps its pad mode,
which a fillpad reads.
"""

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
class Regions:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.FP32], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
          z: pl.Out[pl.Tensor[[1, 1024], pl.FP32]]
          ) -> tuple[pl.Tensor[[16, 64], pl.FP32], pl.Tensor[[1, 1024], pl.FP32]]:
        top: pl.Tile[[16, 64], pl.FP32] = pl.load(x, [0, 0], [16, 64], valid_shape=[8, 64])
        bottom: pl.Tile[[8, 64], pl.FP32] = pl.load(x, [8, 0], [8, 64])
        whole = pl.assemble(top, bottom, [8, 0])
        y = pl.store(pl.exp(whole), [0, 0], y)
        part: pl.Tile[[16, 64], pl.FP32] = pl.load(x, [0, 0], [16, 64], valid_shape=[4, 64])
        row = pl.reshape(pl.exp(part), [1, 1024])
        z = pl.store(row, [0, 0], z)
        return y, z

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 64], pl.FP32], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
             z: pl.Out[pl.Tensor[[1, 1024], pl.FP32]]) -> tuple[pl.Tensor[[16, 64], pl.FP32],
                                                                pl.Tensor[[1, 1024], pl.FP32]]:
        y, z = self.k(x, y, z)
        return y, z


def test_types_carry_the_union_and_the_reshaped_prefix() -> None:
    text = Regions.as_python()
    assert "whole: pl.Tile[[16, 64], pl.FP32" in text and "valid_shape=[8, 64]" in text
    assert "row: pl.Tile[[1, 1024], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[1, 256])]" in text


def test_valid_regions_run_as_the_interpreter_says(tmp_path: Path, kernel_cache: Path) -> None:
    compiled = ir.compile(Regions, output_dir=tmp_path / "regions")
    x = np.random.default_rng(3).uniform(-2, 2, (16, 64)).astype(np.float32)
    got = [np.full((16, 64), 7, np.float32), np.full((1, 1024), 7, np.float32)]
    want = [a.copy() for a in got]
    compiled.run(x, *got, cache_dir=kernel_cache)  # outputs passed in are written in place
    compiled.interpret(x, *want)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(want[0], np.exp(x), rtol=1e-6)
    np.testing.assert_allclose(want[1][0, :256], np.exp(x[:4].ravel()), rtol=1e-6)
    assert (want[1][0, 256:] == 7).all()  # the store wrote only the valid prefix
