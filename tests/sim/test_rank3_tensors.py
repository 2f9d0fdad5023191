"""A tensor-level program on rank-3 tensors runs on a2a3sim: ConvertTensorToTileOps gives its kernel
rank-3 tiles, FlattenTileNdTo2D merges them into 2-D tiles whose loads and stores keep the 3-D
window, and the simulator's result equals the interpreter's."""

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

T3 = pl.Tensor[[2, 16, 64], pl.FP32]


@pl.program
class Rank3Chain:
    @pl.function
    def main(self, x: T3, y: T3, out: pl.Out[T3]) -> T3:
        with pl.at(level=pl.Level.CORE_GROUP):
            out[:] = pl.add(pl.mul(pl.exp(x), 2.0), y)
        return out


def test_rank_3_elementwise_chain_on_the_simulator_equals_the_interpreter(tmp_path: Path, kernel_cache: Path) -> None:
    compiled = ir.compile(Rank3Chain, output_dir=tmp_path / "rank3")
    (kernel,) = [f for f in compiled.files if f.startswith("kernels/aiv/")]
    text = (compiled.output_dir / kernel).read_text()
    assert "Shape<1, 1, 2, 16, 64>" in text  # the 3-D window of the 2-D tile
    rng = np.random.default_rng(5)
    x, y = (rng.standard_normal((2, 16, 64)).astype(np.float32) for _ in range(2))
    got = compiled.run(x, y, cache_dir=kernel_cache)
    want = compiled.interpret(x, y)
    rtol, atol = output_tolerances(compiled.program, compiled.entry_function())["out"]
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)
    np.testing.assert_allclose(got, np.exp(x) * 2.0 + y, rtol=1e-5, atol=1e-5)
