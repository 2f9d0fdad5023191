"""Control flow over tensors inside a kernel, and single elements, run on a2a3sim and equal the
interpreter (issue 29, item 1): a loop storing into its output each iteration, a return inside that
loop, a break at a run-time count, an if/else whose branches store into the output, unbound tile.read/tile.write and a
tensor.read of a scalar. The tensor carries become the output's buffer (ElideTensorCarries); the
early return becomes a flag (CtrlFlowTransform).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import pypto.language as pl
from pypto import ir
from pypto.runtime import simulator_missing_reason

if (_missing := simulator_missing_reason()) is not None:
    pytest.skip(f"simulator tier: {_missing} (scripts/install-simulator.sh installs it)", allow_module_level=True)

T64 = pl.Tensor[[64, 16], pl.FP32]
T16 = pl.Tensor[[16, 16], pl.FP32]


@pl.program
class RowLoop:
    """Each iteration stores one 16-row block; the block after the third is never written."""

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: T64, out: pl.Out[T64]) -> T64:
        for i in pl.range(4):
            t: pl.Tile[[16, 16], pl.FP32] = pl.load(x, [i * 16, 0], [16, 16])
            out = pl.store(pl.add(t, 1.0), [i * 16, 0], out)
            if i == 2:
                return out
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: T64, out: pl.Out[T64]) -> T64:
        out = self.k(x, out)
        return out


@pl.program
class BreakLoop:
    """A break at a run-time row count: the loop becomes a while loop whose counter bounds the windows."""

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: T64, n: pl.Scalar[pl.INDEX], out: pl.Out[T64]) -> T64:
        for i in pl.range(4):
            if i >= n:
                break
            t: pl.Tile[[16, 16], pl.FP32] = pl.load(x, [i * 16, 0], [16, 16])
            out = pl.store(pl.exp(t), [i * 16, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: T64, n: pl.Scalar[pl.INDEX], out: pl.Out[T64]) -> T64:
        out = self.k(x, n, out)
        return out


@pl.program
class Branches:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: T16, flag: pl.Scalar[pl.INT32], out: pl.Out[T16]) -> T16:
        t: pl.Tile[[16, 16], pl.FP32] = pl.load(x, [0, 0], [16, 16])
        if flag > 0:
            out = pl.store(pl.add(t, 1.0), [0, 0], out)
        else:
            out = pl.store(pl.mul(t, 3.0), [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: T16, flag: pl.Scalar[pl.INT32], out: pl.Out[T16]) -> T16:
        out = self.k(x, flag, out)
        return out


@pl.program
class Elements:
    """An unbound tile.write and tile.read, a bound read, and a scalar read from a GM tensor."""

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: T16, s: pl.Tensor[[1, 8], pl.FP32], out: pl.Out[T16]) -> T16:
        t: pl.Tile[[16, 16], pl.FP32] = pl.load(x, [0, 0], [16, 16])
        pl.tile.write(t, [0, 3], 5.0)
        pl.tile.read(t, [1, 1])
        v: pl.Scalar[pl.FP32] = pl.tile.read(t, [2, 5])
        a: pl.Scalar[pl.FP32] = pl.tensor.read(s, [0, 6])
        r: pl.Tile[[16, 16], pl.FP32] = pl.add(pl.mul(t, a), v)
        out = pl.store(r, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: T16, s: pl.Tensor[[1, 8], pl.FP32], out: pl.Out[T16]) -> T16:
        out = self.k(x, s, out)
        return out


@pl.program
class ValidRows:
    """tile.set_validshape prints through the same CCE method form as tile.read/tile.write."""

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: T16, out: pl.Out[T16]) -> T16:
        t: pl.Tile[[16, 16], pl.FP32] = pl.load(x, [0, 0], [16, 16])
        u = pl.tile.set_validshape(t, 8, 16)
        out = pl.store(pl.add(u, 1.0), [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: T16, out: pl.Out[T16]) -> T16:
        out = self.k(x, out)
        return out


def _kernel(compiled) -> str:
    (kernel,) = [f for f in compiled.files if f.startswith("kernels/aiv/")]
    return (compiled.output_dir / kernel).read_text()


def test_a_loop_storing_each_block_with_a_return_inside(tmp_path: Path, kernel_cache: Path) -> None:
    compiled = ir.compile(RowLoop, output_dir=tmp_path / "rows")
    text = _kernel(compiled)
    # One exit (CtrlFlowTransform): the early return is a flag, the kernel ends with its final barrier.
    assert "GT_16x16_fp32 out_gt(out + (i * 16) * 16);" in text and "return;" not in text
    x = np.random.default_rng(1).standard_normal((64, 16)).astype(np.float32)
    got = compiled.run(x, cache_dir=kernel_cache)
    np.testing.assert_array_equal(got, compiled.interpret(x))
    np.testing.assert_array_equal(got[:48], x[:48] + np.float32(1.0))
    np.testing.assert_array_equal(got[48:], 0.0)


def test_a_loop_with_a_break_stores_the_blocks_before_it(tmp_path: Path, kernel_cache: Path) -> None:
    compiled = ir.compile(BreakLoop, output_dir=tmp_path / "break")
    x = np.random.default_rng(3).standard_normal((64, 16)).astype(np.float32)
    got = compiled.run(x, 3, cache_dir=kernel_cache)
    np.testing.assert_allclose(got, compiled.interpret(x, 3), rtol=1e-6)
    np.testing.assert_allclose(got[:48], np.exp(x[:48]), rtol=1e-5)
    np.testing.assert_array_equal(got[48:], 0.0)


@pytest.mark.parametrize("flag", [1, 0])
def test_an_if_storing_into_the_output_in_each_branch(flag: int, tmp_path: Path, kernel_cache: Path) -> None:
    compiled = ir.compile(Branches, output_dir=tmp_path / "branches")
    x = np.random.default_rng(2).standard_normal((16, 16)).astype(np.float32)
    got = compiled.run(x, flag, cache_dir=kernel_cache)
    np.testing.assert_array_equal(got, compiled.interpret(x, flag))
    np.testing.assert_array_equal(got, x + np.float32(1.0) if flag else x * np.float32(3.0))


def test_single_elements_of_tiles_and_tensors(tmp_path: Path, kernel_cache: Path) -> None:
    compiled = ir.compile(Elements, output_dir=tmp_path / "elements")
    text = _kernel(compiled)
    assert "t.SetValue(3, 5.0f);" in text and "t.GetValue(17);" in text and "s[6]" in text
    rng = np.random.default_rng(3)
    x = rng.standard_normal((16, 16)).astype(np.float32)
    s = rng.standard_normal((1, 8)).astype(np.float32)
    got = compiled.run(x, s, cache_dir=kernel_cache)
    np.testing.assert_array_equal(got, compiled.interpret(x, s))
    written = x.copy()
    written[0, 3] = 5.0
    np.testing.assert_array_equal(got, written * s[0, 6] + written[2, 5])


def test_set_validshape_narrows_what_is_stored(tmp_path: Path, kernel_cache: Path) -> None:
    compiled = ir.compile(ValidRows, output_dir=tmp_path / "valid")
    assert "t.SetValidShape(8, 16);" in _kernel(compiled)
    x = np.random.default_rng(4).standard_normal((16, 16)).astype(np.float32)
    got = compiled.run(x, cache_dir=kernel_cache)
    np.testing.assert_array_equal(got, compiled.interpret(x))
    np.testing.assert_array_equal(got[:8], x[:8] + np.float32(1.0))
    np.testing.assert_array_equal(got[8:], 0.0)
