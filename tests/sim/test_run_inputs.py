"""The simulator path of tests/test_compiled_inputs.py on a small sample: arrays of other memory
layouts, NaN and infinity give the interpreter's outputs (NaN where it has NaN) and leave the
inputs as they were; and tensor-level binary ops broadcasting a row or column vector (the lowering of
tests/differential/test_regressions.py) run as the interpreter says."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import pypto.language as pl
from pypto import ir
from pypto.runtime import simulator_missing_reason

if (_missing := simulator_missing_reason()) is not None:
    pytest.skip(f"simulator tier: {_missing} (scripts/install-simulator.sh installs it)", allow_module_level=True)

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

BROADCASTS = """
import pypto.language as pl


@pl.program
class Broadcasts:
    @pl.function
    def main(self, x: pl.Tensor[[64, 128], pl.FP32], v: pl.Tensor[[1, 128], pl.FP32], y: pl.Out[pl.Tensor[[64, 128], pl.FP32]]) -> pl.Tensor[[64, 128], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            m: pl.Tensor[[64, 1], pl.FP32] = pl.row_max(x)
            s: pl.Tensor[[64, 128], pl.FP32] = pl.sub(x, m)
            t: pl.Tensor[[64, 128], pl.FP32] = pl.sub(m, x)
            u: pl.Tensor[[64, 128], pl.FP32] = pl.add(v, s)
            r: pl.Tensor[[64, 128], pl.FP32] = pl.mul(t, u)
            y[:] = r
        return y
"""


def test_other_layouts_nan_and_infinity_run_as_the_interpreter_says(tmp_path: Path, kernel_cache: Path) -> None:
    compiled = ir.compile(pl.loads_program(str(EXAMPLES / "tile_add.py")), output_dir=tmp_path / "tile_add")
    rng = np.random.default_rng(16)
    a = np.asfortranarray(rng.standard_normal((128, 128)).astype(np.float32))
    b = np.zeros((128, 256), np.float32)[:, ::2]
    b[...] = rng.standard_normal((128, 128))
    a[0, 0], a[1, 1], a[2, 2], b[2, 2], b[3, 3] = np.nan, np.inf, np.inf, -np.inf, -np.inf
    a0, b0 = a.copy(), b.copy()
    got = np.zeros((256, 128), np.float32)[::2]
    compiled.run(a, b, got, cache_dir=kernel_cache)
    want = compiled.interpret(a, b)
    np.testing.assert_array_equal(got, want)  # NaN at [0, 0] and [2, 2] (inf - inf) in both
    assert np.isnan(got[2, 2]) and got[1, 1] == np.inf and got[3, 3] == -np.inf
    np.testing.assert_array_equal(a, a0)
    np.testing.assert_array_equal(b, b0)


def test_binary_ops_broadcasting_row_and_column_vectors_run_as_the_interpreter_says(tmp_path: Path, kernel_cache: Path) -> None:
    compiled = ir.compile(pl.parse(BROADCASTS), output_dir=tmp_path / "broadcasts")
    rng = np.random.default_rng(5366)
    x = rng.standard_normal((64, 128)).astype(np.float32)
    v = rng.standard_normal((1, 128)).astype(np.float32)
    got = compiled.run(x, v, cache_dir=kernel_cache)
    want = compiled.interpret(x, v)
    m = x.max(axis=1, keepdims=True)
    np.testing.assert_allclose(want, (m - x) * (v + (x - m)), rtol=1e-6)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
