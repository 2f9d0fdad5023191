"""The gemv family on a whole 16-row fractal: a ``[16, K]`` lhs valid over ``[1, K]`` gives a ``[16, N]``
accumulator valid over ``[1, N]`` (pto-isa's TGEMV computes one row whatever the tile's height), and
``gemv_acc`` accumulates into it; on a2a3sim the result equals the interpreter's."""

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
class Gemv:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 64], pl.FP16], b: pl.Tensor[[64, 32], pl.FP16],
          o: pl.Out[pl.Tensor[[1, 32], pl.FP32]]) -> pl.Tensor[[1, 32], pl.FP32]:
        am = pl.load(a, [0, 0], [16, 64], valid_shape=[1, 64], target_memory=pl.Mem.Mat)
        bm = pl.load(b, [0, 0], [64, 32], target_memory=pl.Mem.Mat)
        al = pl.move(am, target_memory=pl.Mem.Left)
        br = pl.move(bm, target_memory=pl.Mem.Right)
        acc: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc, pl.TileView(valid_shape=[1, 32])] = pl.gemv(al, br)
        acc2 = pl.gemv_acc(acc, al, br)
        out = pl.store(acc2, [0, 0], o)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 64], pl.FP16], b: pl.Tensor[[64, 32], pl.FP16],
             o: pl.Out[pl.Tensor[[1, 32], pl.FP32]]) -> pl.Tensor[[1, 32], pl.FP32]:
        r = self.k(a, b, o)
        return r


def test_gemv_into_a_16_row_accumulator_on_the_simulator_equals_the_interpreter(tmp_path: Path,
                                                                                kernel_cache: Path) -> None:
    compiled = ir.compile(Gemv, output_dir=tmp_path / "out")
    (kernel,) = [f for f in compiled.files if f.startswith("kernels/aic/")]
    text = (compiled.output_dir / kernel).read_text()
    assert "Acc_16x32_fp32 acc(1, 32);" in text and "TGEMV_ACC(" in text
    rng = np.random.default_rng(0)
    a, b = rng.random((16, 64)).astype(np.float16), rng.random((64, 32)).astype(np.float16)
    want, got = np.zeros((1, 32), np.float32), np.zeros((1, 32), np.float32)
    compiled.interpret(a, b, want)
    compiled.run(a, b, got, cache_dir=kernel_cache)
    np.testing.assert_allclose(got, want, rtol=1e-5)
    np.testing.assert_allclose(want, 2 * (a[:1].astype(np.float32) @ b.astype(np.float32)), rtol=1e-3)
