"""Elements of an Out tensor that a run does not write keep the caller's values, on a2a3sim as in the
interpreter (docs/simulator.md#outputs): a loop that breaks early writes only part of its output."""

from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import pytest

import pypto.language as pl
from pypto import ir
from pypto.compiled import CompiledProgram
from pypto.runtime import simulator_missing_reason

if (_missing := simulator_missing_reason()) is not None:
    pytest.skip(f"simulator tier: {_missing} (scripts/install-simulator.sh installs it)", allow_module_level=True)

# y[16 i : 16 i + 16] = 2 x[...] for the first n row blocks of four.
PARTIAL = textwrap.dedent(
    """
    import pypto.language as pl

    @pl.program
    class PartialWrite:
        @pl.function(type=pl.FunctionType.InCore)
        def scale_rows(
            self,
            x: pl.Tensor[[64, 128], pl.FP32],
            y: pl.Out[pl.Tensor[[64, 128], pl.FP32]],
            row: pl.Scalar[pl.INDEX],
        ) -> pl.Tensor[[64, 128], pl.FP32]:
            t: pl.Tile[[16, 128], pl.FP32] = pl.load(x, [row, 0], [16, 128])
            u: pl.Tile[[16, 128], pl.FP32] = pl.mul(t, 2.0)
            y = pl.store(u, [row, 0], y)
            return y

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(
            self,
            x: pl.Tensor[[64, 128], pl.FP32],
            n: pl.Scalar[pl.INDEX],
            y: pl.Out[pl.Tensor[[64, 128], pl.FP32]],
        ) -> pl.Tensor[[64, 128], pl.FP32]:
            for i in pl.range(4):
                if i >= n:
                    break
                y = self.scale_rows(x, y, i * 16)
            return y
    """
)


@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory) -> CompiledProgram:
    return ir.compile(pl.parse(PARTIAL), output_dir=tmp_path_factory.mktemp("partial") / "out", dump_passes=False)


def _x() -> np.ndarray:
    return np.random.default_rng(5).standard_normal((64, 128)).astype(np.float32)


def test_unwritten_rows_keep_the_callers_values(compiled: CompiledProgram, kernel_cache: Path) -> None:
    x = _x()
    y = np.full((64, 128), 7.0, np.float32)
    y_ref = y.copy()
    compiled.run(x, 2, y, cache_dir=kernel_cache)
    compiled.interpret(x, 2, y_ref)
    want = np.concatenate([2 * x[:32], np.full((32, 128), 7.0, np.float32)])
    np.testing.assert_array_equal(y, want)
    np.testing.assert_array_equal(y_ref, want)


def test_unwritten_rows_of_an_allocated_output_are_zero(compiled: CompiledProgram, kernel_cache: Path) -> None:
    x = _x()
    got = compiled.run(x, 1, cache_dir=kernel_cache)
    want = np.concatenate([2 * x[:16], np.zeros((48, 128), np.float32)])
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(compiled.interpret(x, 1), want)
