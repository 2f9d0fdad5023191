"""CompiledProgram calls on a2a3sim, over the hand-written artifact trees of tests/sim/data paired with
the programs they implement: both call forms, the interpreter on the same call, and argument errors
before anything is built."""

from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import pytest

import pypto.language as pl
from pypto.backend import BackendType
from pypto.compiled import CompiledProgram
from pypto.runtime import SimulatorArgumentError, simulator_missing_reason

if (_missing := simulator_missing_reason()) is not None:
    pytest.skip(f"simulator tier: {_missing} (scripts/install-simulator.sh installs it)", allow_module_level=True)

DATA = Path(__file__).resolve().parent / "data"
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

# What tests/sim/data/row_blocks implements: c = (a + b) * alpha, one task per 64-row block.
ROW_BLOCKS = textwrap.dedent(
    """
    import pypto.language as pl

    @pl.program
    class RowBlocksScaled:
        @pl.function(type=pl.FunctionType.InCore)
        def block_add_scale(
            self,
            a: pl.Tensor[[128, 128], pl.FP32],
            b: pl.Tensor[[128, 128], pl.FP32],
            c: pl.InOut[pl.Tensor[[128, 128], pl.FP32]],
            row: pl.Scalar[pl.INDEX],
            alpha: pl.Scalar[pl.FP32],
        ) -> pl.Tensor[[128, 128], pl.FP32]:
            ta: pl.Tile[[64, 128], pl.FP32] = pl.load(a, [row, 0], [64, 128])
            tb: pl.Tile[[64, 128], pl.FP32] = pl.load(b, [row, 0], [64, 128])
            tc: pl.Tile[[64, 128], pl.FP32] = pl.add(ta, tb)
            td: pl.Tile[[64, 128], pl.FP32] = pl.mul(tc, alpha)
            c = pl.store(td, [row, 0], c)
            return c

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(
            self,
            a: pl.Tensor[[128, 128], pl.FP32],
            b: pl.Tensor[[128, 128], pl.FP32],
            alpha: pl.Scalar[pl.FP32],
            c: pl.Out[pl.Tensor[[128, 128], pl.FP32]],
        ) -> pl.Tensor[[128, 128], pl.FP32]:
            for i in pl.range(2):
                c = self.block_add_scale(a, b, c, i * 64, alpha)
            return c
    """
)


def over_tree(program: pl.Program, tree: str) -> CompiledProgram:
    return CompiledProgram(
        program=program,
        final_program=program,
        output_dir=DATA / tree,
        backend_type=BackendType.Ascend910B,
        platform="a2a3sim",
        files=("kernel_config.py",),
        final_dialect="runtime",
    )


def rand(seed: int) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal((128, 128), dtype=np.float32)


def test_in_place_and_returning_calls(kernel_cache: Path, record_timing) -> None:
    compiled = over_tree(pl.loads_program(str(EXAMPLES / "tile_add.py")), "tile_add")
    a, b = rand(0), rand(1)
    out = np.full((128, 128), np.nan, np.float32)
    assert compiled.run(a, b, out, cache_dir=kernel_cache) is None
    record_timing("CompiledProgram tile_add", compiled.last_run)
    np.testing.assert_array_equal(out, a + b)
    returned = compiled.run(a, b, cache_dir=kernel_cache)
    np.testing.assert_array_equal(returned, a + b)
    np.testing.assert_array_equal(compiled.interpret(a, b), returned)


def test_a_scalar_parameter_and_a_loop(kernel_cache: Path) -> None:
    compiled = over_tree(pl.parse(ROW_BLOCKS), "row_blocks")
    a, b = rand(2), rand(3)
    got = compiled.run(a, b, 0.5, cache_dir=kernel_cache)
    np.testing.assert_array_equal(got, (a + b) * np.float32(0.5))
    np.testing.assert_allclose(compiled.interpret(a, b, 0.5), got, rtol=1e-6)


def test_bad_arguments_fail_before_anything_is_built(tmp_path: Path) -> None:
    compiled = over_tree(pl.loads_program(str(EXAMPLES / "tile_add.py")), "tile_add")
    out = np.zeros((128, 128), np.float32)
    with pytest.raises(SimulatorArgumentError, match="b must have dtype float32"):
        compiled.run(rand(0), rand(1).astype(np.float64), out, cache_dir=tmp_path / "cache")
    assert not (tmp_path / "cache").exists() and not out.any()
