"""Orchestration-level tensor ops on a2a3sim, against the interpreter: ``tensor.full`` (an internal
tensor with an initial value), ``tensor.reshape`` / ``tensor.view`` (the same buffer under a new
shape) and the runtime's core counts (``system.available_aiv_count`` / ``_cluster_count``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import pypto.language as pl
from pypto import ir
from pypto.runtime import simulator_missing_reason

if (_missing := simulator_missing_reason()) is not None:
    pytest.skip(f"simulator tier: {_missing} (scripts/install-simulator.sh installs it)", allow_module_level=True)

PROGRAM = """
import pypto.language as pl

@pl.program
class OrchestrationTensors:
    @pl.function(type=pl.FunctionType.InCore)
    def add(self, a: pl.Tensor[[16, 64], pl.FP32], b: pl.Tensor[[16, 64], pl.FP32],
            out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        ta: pl.Tile[[16, 64], pl.FP32] = pl.load(a, [0, 0], [16, 64])
        tb: pl.Tile[[16, 64], pl.FP32] = pl.load(b, [0, 0], [16, 64])
        out = pl.store(pl.add(ta, tb), [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self,
        x: pl.Tensor[[16, 64], pl.FP32],
        y: pl.Tensor[[1024], pl.FP32],
        out0: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
        out1: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
        out2: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
        out3: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
    ) -> pl.Tensor[[16, 64], pl.FP32]:
        f = pl.tensor.full([16, 64], pl.FP32, 2.5)
        out0 = self.add(x, f, out0)
        g = pl.tensor.full([16, 64], pl.FP32, -1.25)
        r = pl.tensor.reshape(y, [16, 64])
        out1 = self.add(g, r, out1)
        v = pl.tensor.view(y, [16, 64])
        out2 = self.add(x, v, out2)
        aiv = pl.system.available_aiv_count()
        clusters = pl.system.available_cluster_count()
        if aiv > 0 and clusters > 0:
            out3 = self.add(x, x, out3)
        else:
            out3 = self.add(x, f, out3)
        return out3
"""


def test_orchestration_tensor_ops_equal_the_interpreter(tmp_path: Path, kernel_cache: Path) -> None:
    compiled = ir.compile(pl.parse(PROGRAM), output_dir=tmp_path / "out", dump_passes=False)
    rng = np.random.default_rng(9)
    x = rng.standard_normal((16, 64), dtype=np.float32)
    y = rng.standard_normal(1024, dtype=np.float32)
    outs = [np.full((16, 64), np.nan, np.float32) for _ in range(4)]
    sim = [x.copy(), y.copy(), *(o.copy() for o in outs)]
    ref = [x.copy(), y.copy(), *(o.copy() for o in outs)]
    compiled.run(*sim, cache_dir=kernel_cache)
    compiled.interpret(*ref)
    for k in range(4):
        np.testing.assert_array_equal(sim[2 + k], ref[2 + k], err_msg=f"out{k}")
    np.testing.assert_array_equal(sim[2], x + np.float32(2.5))
    np.testing.assert_array_equal(sim[3], np.float32(-1.25) + y.reshape(16, 64))
    np.testing.assert_array_equal(sim[4], x + y.reshape(16, 64))
    np.testing.assert_array_equal(sim[5], x + x)  # the runtime reports AIV cores and clusters
