"""Mixed cube + vector programs written as a user writes them (the seed's cross-core forms), each run
on a2a3sim against the interpreter: the cases that once failed and the fixes keep them running."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import pypto.language as pl
from pypto import ir
from pypto.runtime import simulator_missing_reason

if (_missing := simulator_missing_reason()) is not None:
    pytest.skip(f"simulator tier: {_missing} (scripts/install-simulator.sh installs it)", allow_module_level=True)

M = pl.dynamic("M")


@pl.program
class DynamicRowsLeftRight:
    """Row blocks of a run-time row count, the vector epilogue split left/right: the last block's tile is
    valid on fewer rows, which each lane keeps (the halving dropped the row count, storing 64 rows)."""

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[M, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16],
             c: pl.Out[pl.Tensor[[M, 64], pl.FP32]]) -> pl.Tensor[[M, 64], pl.FP32]:
        m = pl.tensor.dim(a, 0)
        for r in pl.range(0, m, 64):
            rows = pl.min(64, m - r)
            with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.split(pl.SplitMode.LEFT_RIGHT)]):
                ar = pl.slice(a, [64, 64], [r, 0], valid_shape=[rows, 64])
                x = pl.matmul(ar, b, out_dtype=pl.FP32)
                c = pl.assemble(c, pl.exp(pl.mul(x, 0.1)), [r, 0])
        return c


@pytest.mark.parametrize("rows", [100, 128])
def test_a_left_right_split_keeps_a_run_time_row_count(rows: int, tmp_path: Path, kernel_cache: Path) -> None:
    compiled = ir.compile(DynamicRowsLeftRight, output_dir=tmp_path / "lr")
    rng = np.random.default_rng(rows)
    a = rng.standard_normal((rows, 64)).astype(np.float16)
    b = (rng.standard_normal((64, 64)) * 0.1).astype(np.float16)
    want, got = np.zeros((rows, 64), np.float32), np.zeros((rows, 64), np.float32)
    compiled.interpret(a, b, want)
    compiled.run(a, b, got, cache_dir=kernel_cache)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


@pl.program
class SplitAivEpilogue:
    """A hand-split epilogue at tensor level: each AIV lane exps its half of the product's rows."""

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16],
             c: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            x = pl.matmul(a, b, out_dtype=pl.FP32)
            for lane in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                h = pl.aiv_shard(x)
                c = pl.assemble(c, pl.exp(pl.mul(h, 0.1)), [lane * 32, 0])
        return c


@pl.program
class SplitAivGather:
    """Each AIV lane squares half the rows of the left operand; aic_gather joins them for the cube."""

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16],
             c: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            for lane in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                ah = pl.slice(a, [32, 64], [lane * 32, 0])
                g = pl.aic_gather(pl.mul(ah, ah))
            c = pl.assemble(c, pl.matmul(g, b, out_dtype=pl.FP32), [0, 0])
        return c


def _exp_product(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.exp((a.astype(np.float32) @ b.astype(np.float32)) * 0.1)


def _squared_product(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return (a * a).astype(np.float32) @ b.astype(np.float32)


_SPLIT_AIV = [(SplitAivEpilogue, _exp_product), (SplitAivGather, _squared_product)]


@pytest.mark.parametrize(("program", "reference"), _SPLIT_AIV, ids=["epilogue", "gather"])
def test_tensor_level_split_aiv_regions_run(program: ir.Program, reference, tmp_path: Path, kernel_cache: Path) -> None:
    # pl.aiv_shard / pl.aic_gather of tensors had no tile lowering, and the interpreter no meaning of a gather.
    compiled = ir.compile(program, output_dir=tmp_path / "k")
    rng = np.random.default_rng(3)
    a = rng.standard_normal((64, 64)).astype(np.float16)
    b = (rng.standard_normal((64, 64)) * 0.1).astype(np.float16)
    want = compiled.interpret(a, b)
    np.testing.assert_allclose(want, reference(a, b), rtol=2e-3, atol=2e-3)
    np.testing.assert_allclose(compiled.run(a, b, cache_dir=kernel_cache), want, rtol=1e-5, atol=1e-4)
