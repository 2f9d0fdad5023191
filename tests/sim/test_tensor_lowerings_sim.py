"""Tensor ops that ConvertTensorToTileOps lowers to tile ops run on a2a3sim and equal the interpreter:
``arange`` (TCI, ascending and descending), ``fillpad_expand`` (TFILLPAD_EXPAND with a min pad) and
``assemble`` into a kernel value (TINSERT), ``expand_clone`` along each axis, and a clamped slice
(a load of the window's part inside the source), ``sort32`` and ``mrgsort``."""

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
class Generated:
    @pl.function
    def main(self, x: pl.Tensor[[30, 24], pl.FP32], up: pl.Out[pl.Tensor[[1, 32], pl.INT32]],
             down: pl.Out[pl.Tensor[[1, 16], pl.INT16]], padded: pl.Out[pl.Tensor[[32, 32], pl.FP32]],
             ) -> tuple[pl.Tensor[[1, 32], pl.INT32], pl.Tensor[[1, 16], pl.INT16], pl.Tensor[[32, 32], pl.FP32]]:
        with pl.at(level=pl.Level.CORE_GROUP):
            up[:] = pl.arange(3, [1, 32], dtype=pl.INT32)
            down[:] = pl.arange(-2, [1, 16], dtype=pl.INT16, descending=True)
            padded[:] = pl.tensor.fillpad_expand(x, [32, 32], pad_value=pl.PadValue.min)
        return up, down, padded


def test_arange_and_fillpad_expand_on_the_simulator_equal_the_interpreter(tmp_path: Path, kernel_cache: Path) -> None:
    compiled = ir.compile(Generated, output_dir=tmp_path / "generated")
    (kernel,) = [f for f in compiled.files if f.startswith("kernels/aiv/")]
    text = (compiled.output_dir / kernel).read_text()
    assert "TCI<" in text and "TFILLPAD_EXPAND(" in text
    x = np.random.default_rng(3).standard_normal((30, 24)).astype(np.float32)
    got = compiled.run(x, cache_dir=kernel_cache)
    want = compiled.interpret(x)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w)
    np.testing.assert_array_equal(got[0], np.arange(3, 35, dtype=np.int32)[None, :])
    np.testing.assert_array_equal(got[1], np.arange(-2, -18, -1, dtype=np.int16)[None, :])
    assert np.isneginf(got[2][30:, :]).all() and np.isneginf(got[2][:, 24:]).all()


@pl.program
class Assembled:
    @pl.function
    def main(self, a: pl.Tensor[[16, 32], pl.FP32], b: pl.Tensor[[16, 16], pl.FP32],
             out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            acc = pl.full([32, 64], dtype=pl.FP32, value=1.0)
            acc = pl.assemble(acc, pl.exp(a), [0, 8])
            acc = pl.assemble(acc, b, [16, 48])
            out[:] = pl.add(acc, 1.0)
        return out


def test_assemble_into_a_kernel_value_on_the_simulator_equals_the_interpreter(
        tmp_path: Path, kernel_cache: Path) -> None:
    compiled = ir.compile(Assembled, output_dir=tmp_path / "assembled")
    (kernel,) = [f for f in compiled.files if f.startswith("kernels/aiv/")]
    text = (compiled.output_dir / kernel).read_text()
    assert "TINSERT(acc__ssa_v1_tile, t__tmp_v0_tile, 0, 8);" in text
    rng = np.random.default_rng(5)
    a = rng.standard_normal((16, 32)).astype(np.float32)
    b = rng.standard_normal((16, 16)).astype(np.float32)
    got = compiled.run(a, b, cache_dir=kernel_cache)
    want = compiled.interpret(a, b)
    rtol, atol = output_tolerances(compiled.program, compiled.entry_function())["out"]
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)
    expected = np.full((32, 64), 2.0, np.float32)
    expected[:16, 8:40] = np.exp(a) + 1
    expected[16:, 48:] = b + 1
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)


@pl.program
class StoredScratch:
    @pl.function
    def main(self, x: pl.Tensor[[32, 32], pl.FP32],
             out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            a = pl.load(x, [0, 0], [16, 32])
            tmp = pl.create_tensor([32, 32], dtype=pl.FP32)
            tmp = pl.store(pl.exp(a), [0, 0], tmp)
            tmp = pl.store(a, [16, 0], tmp)
        with pl.at(level=pl.Level.CORE_GROUP):
            out = pl.store(pl.add(pl.load(tmp, [0, 0], [32, 32]), 1.0), [0, 0], out)
        return out


def test_stores_into_a_tensor_created_in_a_scope_reach_the_next_scope(tmp_path: Path, kernel_cache: Path) -> None:
    # The created tensor is a tile of the first kernel, returned through a new Out parameter (it
    # used to stay a store into a tile, which the PTO printer met with an AssertionError).
    compiled = ir.compile(StoredScratch, output_dir=tmp_path / "scratch")
    x = np.random.default_rng(6).standard_normal((32, 32)).astype(np.float32)
    got = compiled.run(x, cache_dir=kernel_cache)
    np.testing.assert_allclose(got, compiled.interpret(x), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(got[:16], np.exp(x[:16]) + 1, rtol=1e-5)
    np.testing.assert_array_equal(got[16:], x[:16] + 1)


@pl.program
class Sorted:
    @pl.function
    def main(self, x: pl.Tensor[[1, 128], pl.FP32], idx: pl.Tensor[[1, 128], pl.UINT32],
             out: pl.Out[pl.Tensor[[1, 256], pl.FP32]]) -> pl.Tensor[[1, 256], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            out[:] = pl.mrgsort(pl.sort32(x, idx), block_len=64)
        return out


def test_tensor_sort32_and_mrgsort_in_a_scope_sort_a_row(tmp_path: Path, kernel_cache: Path) -> None:
    # tensor.sort32 / tensor.mrgsort_format1 lower to their tile ops (they had no lowering).
    compiled = ir.compile(Sorted, output_dir=tmp_path / "sorted")
    x = np.random.default_rng(7).permutation(128).astype(np.float32)[None, :]
    idx = np.arange(128, dtype=np.uint32)[None, :]
    got = compiled.run(x, idx, cache_dir=kernel_cache)
    np.testing.assert_array_equal(got, compiled.interpret(x, idx))
    np.testing.assert_array_equal(got[0, 0::2], np.arange(127, -1, -1, dtype=np.float32))
    np.testing.assert_array_equal(got[0, 1::2].view(np.uint32), np.argsort(-x[0]).astype(np.uint32))


_T3 = pl.Tensor[[4, 8, 16], pl.FP32]


@pl.program
class Expanded:
    @pl.function
    def main(self, first: pl.Tensor[[1, 8, 16], pl.FP32], middle: pl.Tensor[[4, 1, 16], pl.FP32],
             last: pl.Tensor[[4, 8, 1], pl.FP32], like: _T3, o1: pl.Out[_T3], o2: pl.Out[_T3], o3: pl.Out[_T3],
             ) -> tuple[_T3, _T3, _T3]:
        with pl.at(level=pl.Level.CORE_GROUP):
            o1[:] = pl.tensor.expand_clone(first, like)
            o2[:] = pl.tensor.expand_clone(middle, like)
            o3[:] = pl.tensor.expand_clone(last, like)
        return o1, o2, o3


def test_expand_clone_along_each_axis_on_the_simulator_equals_the_interpreter(
        tmp_path: Path, kernel_cache: Path) -> None:
    compiled = ir.compile(Expanded, output_dir=tmp_path / "expanded")
    rng = np.random.default_rng(9)
    args = [rng.standard_normal(s).astype(np.float32) for s in ((1, 8, 16), (4, 1, 16), (4, 8, 1), (4, 8, 16))]
    got = compiled.run(*args, cache_dir=kernel_cache)
    want = compiled.interpret(*args)
    for g, w, src in zip(got, want, args, strict=False):
        np.testing.assert_array_equal(g, w)
        np.testing.assert_array_equal(g, np.broadcast_to(src, (4, 8, 16)))


@pl.program
class Clamped:
    @pl.function
    def main(self, x: pl.Tensor[[30, 40], pl.FP32],
             out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            out[:] = pl.add(pl.slice(x, [32, 32], [8, 16], clamp=True), 1.0)
        return out


def test_a_clamped_slice_past_the_source_on_the_simulator_equals_the_interpreter(
        tmp_path: Path, kernel_cache: Path) -> None:
    compiled = ir.compile(Clamped, output_dir=tmp_path / "clamped")
    x = np.random.default_rng(11).standard_normal((30, 40)).astype(np.float32)
    got = compiled.run(x, cache_dir=kernel_cache)
    np.testing.assert_array_equal(got, compiled.interpret(x))
    expected = np.zeros((32, 32), np.float32)
    expected[:22, :24] = x[8:, 16:] + 1
    np.testing.assert_array_equal(got, expected)


@pl.program
class ScalarRhs:
    @pl.function
    def main(self, x: pl.Tensor[[16, 64], pl.FP16], y: pl.Tensor[[16, 64], pl.FP16],
             clipped: pl.Out[pl.Tensor[[16, 64], pl.FP32]], above: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
             below: pl.Out[pl.Tensor[[16, 64], pl.FP16]],
             ) -> tuple[pl.Tensor[[16, 64], pl.FP32], pl.Tensor[[16, 64], pl.FP32], pl.Tensor[[16, 64], pl.FP16]]:
        with pl.at(level=pl.Level.CORE_GROUP):
            clipped[:] = pl.minimum(pl.maximum(x, 0.0), 0.5)
            above[:] = pl.cmp(x, 0.25, cmp_type=4)
            below[:] = pl.cmp(x, y, cmp_type=2)
        return clipped, above, below


def test_maximum_minimum_and_cmp_with_a_scalar_take_the_tile_scalar_forms(tmp_path: Path, kernel_cache: Path) -> None:
    """tensor.maximum/minimum/cmp take a scalar rhs (tile.maximums/...), and a tensor compare gives 0/1 in
    the promoted dtype where the tile compare gives a packed mask."""
    compiled = ir.compile(ScalarRhs, output_dir=tmp_path / "scalar_rhs")
    (kernel,) = [f for f in compiled.files if f.startswith("kernels/aiv/")]
    text = (compiled.output_dir / kernel).read_text()
    assert "TMAXS(" in text and "TMINS(" in text and "TCMPS(" in text and "TSELS(" in text
    rng = np.random.default_rng(7)
    x, y = (rng.standard_normal((16, 64)).astype(np.float16) for _ in range(2))
    got = compiled.run(x, y, cache_dir=kernel_cache)
    want = compiled.interpret(x, y)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w)
    np.testing.assert_array_equal(got[0], np.clip(x.astype(np.float32), 0.0, 0.5))
    np.testing.assert_array_equal(got[1], (x > np.float16(0.25)).astype(np.float32))
    np.testing.assert_array_equal(got[2], (x < y).astype(np.float16))
