"""Ops the kernel targets have no rule for, made into ops they have, run on a2a3sim and equal the
interpreter: ``tile.batch_matmul[_acc]`` of 2-D operands (FlattenTileNdTo2D makes it the 2-D
matmul) and ``tensor.dim`` of a static axis in a kernel (ConvertTensorToTileOps makes it the extent)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import pypto.language as pl
from pypto import ir
from pypto.runtime import simulator_missing_reason

if (_missing := simulator_missing_reason()) is not None:
    pytest.skip(f"simulator tier: {_missing} (scripts/install-simulator.sh installs it)", allow_module_level=True)

BMM_2D = """
import pypto.language as pl


@pl.program
class Bmm2D:
    @pl.function(type=pl.FunctionType.InCore)
    def mm(self, a: pl.Tensor[[32, 64], pl.FP16], b: pl.Tensor[[64, 32], pl.FP16],
           c: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        x = pl.load(a, [0, 0], [32, 64], target_memory=pl.Mem.Mat)
        y = pl.load(b, [0, 0], [64, 32], target_memory=pl.Mem.Mat)
        z = pl.batch_matmul(x, y)
        z2 = pl.tile.batch_matmul_acc(z, x, y)
        out = pl.store(z2, [0, 0], c)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[32, 64], pl.FP16], b: pl.Tensor[[64, 32], pl.FP16],
             c: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        c = self.mm(a, b, c)
        return c
"""

DIM = """
import pypto.language as pl


@pl.program
class Dim:
    @pl.function
    def main(self, x: pl.Tensor[[16, 48], pl.FP32],
             out: pl.Out[pl.Tensor[[16, 48], pl.FP32]]) -> pl.Tensor[[16, 48], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            n = pl.tensor.dim(x, 1)
            out[:] = pl.mul(x, pl.cast(n - pl.tensor.dim(x, 0), pl.FP32))
        return out
"""


def _run(source: str, args: list[np.ndarray], tmp_path: Path, kernel_cache: Path) -> tuple[np.ndarray, np.ndarray]:
    compiled = ir.compile(pl.parse(source), output_dir=tmp_path, dump_passes=False)
    return compiled.run(*args, cache_dir=kernel_cache), compiled.interpret(*args)


def test_a_2d_batch_matmul_and_its_acc_equal_the_interpreter(tmp_path: Path, kernel_cache: Path) -> None:
    rng = np.random.default_rng(7)
    a = rng.standard_normal((32, 64)).astype(np.float16)
    b = rng.standard_normal((64, 32)).astype(np.float16)
    got, want = _run(BMM_2D, [a, b], tmp_path, kernel_cache)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(want, 2 * (a.astype(np.float32) @ b.astype(np.float32)), rtol=1e-4, atol=2e-3)
    print(f"2-D batch_matmul + batch_matmul_acc: simulator max error {np.max(np.abs(got - want)):.3g}")


def test_tensor_dim_in_a_kernel_equals_the_interpreter(tmp_path: Path, kernel_cache: Path) -> None:
    x = np.random.default_rng(8).standard_normal((16, 48)).astype(np.float32)
    got, want = _run(DIM, [x], tmp_path, kernel_cache)
    np.testing.assert_array_equal(want, x * 32)
    np.testing.assert_array_equal(got, want)
    print(f"tensor.dim in a kernel: simulator max error {np.max(np.abs(got - want)):.3g}")
