"""Batched matmuls with a transposed operand run on a2a3sim: each batch's operand is a column block
of the transposed view of the merged rank-3 tile, and the simulator's result equals the
interpreter's (and numpy's)."""

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


def program(a: list[int], b: list[int], c: list[int], flags: str) -> ir.Program:
    return pl.parse(f"""
import pypto.language as pl

@pl.program
class BatchedTransSim:
    @pl.function
    def main(self, a: pl.Tensor[{a}, pl.FP16], b: pl.Tensor[{b}, pl.FP16],
             out: pl.Out[pl.Tensor[{c}, pl.FP32]]) -> pl.Tensor[{c}, pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            out[:] = pl.matmul(a, b, out_dtype=pl.FP32, {flags})
        return out
""")


CASES = {
    "b_trans": ([2, 32, 64], [2, 16, 64], [2, 32, 16], "b_trans=True"),
    "a_trans": ([2, 64, 32], [2, 64, 16], [2, 32, 16], "a_trans=True"),
    "both": ([2, 64, 32], [2, 16, 64], [2, 32, 16], "a_trans=True, b_trans=True"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_batched_transposed_matmul_on_the_simulator_equals_the_interpreter(
        name: str, tmp_path: Path, kernel_cache: Path) -> None:
    a_dims, b_dims, c_dims, flags = CASES[name]
    compiled = ir.compile(program(a_dims, b_dims, c_dims, flags), output_dir=tmp_path / name)
    rng = np.random.default_rng(11)
    a, b = (rng.standard_normal(d).astype(np.float16) for d in (a_dims, b_dims))
    got = compiled.run(a, b, cache_dir=kernel_cache)
    want = compiled.interpret(a, b)
    rtol, atol = output_tolerances(compiled.program, compiled.entry_function())["out"]
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)
    lhs = a.astype(np.float32).swapaxes(-1, -2) if "a_trans" in flags else a.astype(np.float32)
    rhs = b.astype(np.float32).swapaxes(-1, -2) if "b_trans" in flags else b.astype(np.float32)
    np.testing.assert_allclose(got, lhs @ rhs, rtol=1e-3, atol=1e-3)


_BODIES = {
    # pl.transpose of the last two axes feeding the matmul: the transposed operand, no vector work.
    "transpose_fed": ("bt = pl.transpose(b, 1, 2)\n            out[:] = pl.matmul(a, bt, out_dtype=pl.FP32)", 1),
    # A batched accumulation: one Acc tile per batch.
    "matmul_acc": ("c = pl.matmul(a, b, out_dtype=pl.FP32, b_trans=True)\n"
                   "            out[:] = pl.matmul_acc(c, a, b, b_trans=True)", 2),
}


@pytest.mark.parametrize("name", sorted(_BODIES))
def test_batched_forms_on_the_simulator_equal_the_interpreter(name: str, tmp_path: Path, kernel_cache: Path) -> None:
    body, times = _BODIES[name]
    compiled = ir.compile(pl.parse(f"""
import pypto.language as pl

@pl.program
class BatchedFormSim:
    @pl.function
    def main(self, a: pl.Tensor[[2, 16, 32], pl.FP16], b: pl.Tensor[[2, 16, 32], pl.FP16],
             out: pl.Out[pl.Tensor[[2, 16, 16], pl.FP32]]) -> pl.Tensor[[2, 16, 16], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            {body}
        return out
"""), output_dir=tmp_path / name)
    rng = np.random.default_rng(13)
    a, b = (rng.standard_normal((2, 16, 32)).astype(np.float16) for _ in range(2))
    got = compiled.run(a, b, cache_dir=kernel_cache)
    want = compiled.interpret(a, b)
    rtol, atol = output_tolerances(compiled.program, compiled.entry_function())["out"]
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)
    expected = times * (a.astype(np.float32) @ b.astype(np.float32).swapaxes(1, 2))
    np.testing.assert_allclose(got, expected, rtol=1e-3, atol=1e-3)


@pl.program
class Rank3TransposeSim:
    @pl.function
    def main(self, x: pl.Tensor[[2, 16, 32], pl.FP32],
             out: pl.Out[pl.Tensor[[2, 32, 16], pl.FP32]]) -> pl.Tensor[[2, 32, 16], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            out[:] = pl.transpose(pl.exp(x), 1, 2)
        return out


def test_a_rank_3_transpose_on_the_simulator_equals_the_interpreter(tmp_path: Path, kernel_cache: Path) -> None:
    compiled = ir.compile(Rank3TransposeSim, output_dir=tmp_path / "transpose")
    x = np.random.default_rng(17).standard_normal((2, 16, 32)).astype(np.float32)
    got = compiled.run(x, cache_dir=kernel_cache)
    np.testing.assert_allclose(got, compiled.interpret(x), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got, np.exp(x).transpose(0, 2, 1), rtol=1e-5, atol=1e-5)


@pl.program
class Rank3ColumnOpsSim:
    @pl.function
    def main(self, x: pl.Tensor[[2, 16, 32], pl.FP32], y: pl.Tensor[[2, 1, 32], pl.FP32],
             out: pl.Out[pl.Tensor[[2, 16, 32], pl.FP32]]) -> pl.Tensor[[2, 16, 32], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            out[:] = pl.add(pl.sub(x, pl.col_max(x)), y)
        return out


def test_rank_3_column_ops_on_the_simulator_equal_the_interpreter(tmp_path: Path, kernel_cache: Path) -> None:
    compiled = ir.compile(Rank3ColumnOpsSim, output_dir=tmp_path / "columns")
    rng = np.random.default_rng(19)
    x, y = rng.standard_normal((2, 16, 32)).astype(np.float32), rng.standard_normal((2, 1, 32)).astype(np.float32)
    got = compiled.run(x, y, cache_dir=kernel_cache)
    np.testing.assert_allclose(got, compiled.interpret(x, y), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got, x - x.max(axis=1, keepdims=True) + y, rtol=1e-5, atol=1e-5)
