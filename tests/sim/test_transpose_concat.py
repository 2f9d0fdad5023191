"""A tensor-level transpose and concat run on a2a3sim: ConvertTensorToTileOps lowers them to
``tile.transpose`` (TTRANS with its scratch tile) and ``tile.concat`` (TCONCAT, in a buffer of its
own), and the simulator's result equals the interpreter's."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import pypto.language as pl
from pypto import ir
from pypto.interp.tolerance import output_tolerances
from pypto.runtime import simulator_missing_reason

if (_missing := simulator_missing_reason()) is not None:
    pytest.skip(f"simulator tier: {_missing} (scripts/install-simulator.sh installs it)", allow_module_level=True)


@pl.program
class TransposeConcat:
    @pl.function
    def main(self, x: pl.Tensor[[32, 64], pl.FP32], y: pl.Tensor[[64, 16], pl.FP32],
             out: pl.Out[pl.Tensor[[64, 48], pl.FP32]]) -> pl.Tensor[[64, 48], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.transpose(x, 0, 1)
            out[:] = pl.concat(pl.exp(t), y)
        return out


def test_transpose_and_concat_on_the_simulator_equal_the_interpreter(tmp_path: Path, kernel_cache: Path) -> None:
    compiled = ir.compile(TransposeConcat, output_dir=tmp_path / "transpose_concat")
    (kernel,) = [f for f in compiled.files if f.startswith("kernels/aiv/")]
    text = (compiled.output_dir / kernel).read_text()
    assert "TTRANS(" in text and "TCONCAT(" in text
    rng = np.random.default_rng(7)
    x = rng.standard_normal((32, 64)).astype(np.float32)
    y = rng.standard_normal((64, 16)).astype(np.float32)
    got = compiled.run(x, y, cache_dir=kernel_cache)
    want = compiled.interpret(x, y)
    rtol, atol = output_tolerances(compiled.program, compiled.entry_function())["out"]
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)
    np.testing.assert_allclose(got, np.concatenate([np.exp(x.T), y], axis=1), rtol=1e-5, atol=1e-5)
