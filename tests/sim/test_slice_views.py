"""Slices of tiles as operands run on a2a3sim and equal the interpreter (issue 26, item 1).

A column slice ``t[:, 64:128]`` of a 16 x 128 tile is a TSUBVIEW into ``t``'s buffer: its C++ tile
keeps ``t``'s 128-element row pitch (``Tile<..., 16, 128, ...> hi(16, 64)``). Declared 16 x 64, every
row after the first was read from the wrong place. The ops of ``STRIDED_READERS`` read such a view in
place; any other read gets a compact copy (TMOV), as do loop inits.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import pypto.language as pl
from pypto import ir
from pypto.interp.tolerance import output_tolerances
from pypto.ir.enums import ParamDirection
from pypto.runtime import simulator_missing_reason

if (_missing := simulator_missing_reason()) is not None:
    pytest.skip(f"simulator tier: {_missing} (scripts/install-simulator.sh installs it)", allow_module_level=True)

# The case: each half of a loaded tile scaled by the same [1, 64] row.
HALVES = """
import pypto.language as pl


@pl.program
class Halves:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[R, 128], pl.FP32], s: pl.Tensor[[1, 64], pl.FP32],
          y: pl.Out[pl.Tensor[[R, 128], pl.FP32]]) -> pl.Tensor[[R, 128], pl.FP32]:
        t: pl.Tile[[R, 128], pl.FP32] = pl.load(x, [0, 0], [R, 128])
        r: pl.Tile[[1, 64], pl.FP32] = pl.load(s, [0, 0], [1, 64])
        lo = t[:, 0:64]
        hi = t[:, 64:128]
        y = pl.store(pl.col_expand_mul(lo, r), [0, 0], y)
        y = pl.store(pl.col_expand_mul(hi, r), [0, 64], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[R, 128], pl.FP32], s: pl.Tensor[[1, 64], pl.FP32],
             y: pl.Out[pl.Tensor[[R, 128], pl.FP32]]) -> pl.Tensor[[R, 128], pl.FP32]:
        y = self.k(x, s, y)
        return y
"""


@pl.program
class StridedReaders:
    """Every op of STRIDED_READERS on the halves of one tile, read in place (no copy)."""

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 128], pl.FP32], rv: pl.Tensor[[16, 1], pl.FP32], cv: pl.Tensor[[1, 64], pl.FP32],
          y: pl.Out[pl.Tensor[[16, 2048], pl.FP32]], s: pl.Out[pl.Tensor[[16, 3], pl.FP32]],
          h: pl.Out[pl.Tensor[[16, 64], pl.FP16]]
          ) -> tuple[pl.Tensor[[16, 2048], pl.FP32], pl.Tensor[[16, 3], pl.FP32], pl.Tensor[[16, 64], pl.FP16]]:
        t: pl.Tile[[16, 128], pl.FP32] = pl.load(x, [0, 0], [16, 128])
        r: pl.Tile[[16, 1], pl.FP32] = pl.load(rv, [0, 0], [16, 1])
        c: pl.Tile[[1, 64], pl.FP32] = pl.load(cv, [0, 0], [1, 64])
        tmp: pl.Tile[[16, 64], pl.FP32] = pl.create_tile([16, 64], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        lo = t[:, 0:64]
        hi = t[:, 64:128]
        y = pl.store(pl.exp(lo), [0, 0], y)
        y = pl.store(pl.neg(hi), [0, 64], y)
        y = pl.store(pl.sqrt(lo), [0, 128], y)
        y = pl.store(pl.rsqrt(hi), [0, 192], y)
        y = pl.store(pl.recip(lo), [0, 256], y)
        y = pl.store(pl.log(hi), [0, 320], y)
        y = pl.store(pl.tile.relu(lo), [0, 384], y)
        y = pl.store(pl.sub(lo, hi), [0, 448], y)
        y = pl.store(pl.mul(hi, lo), [0, 512], y)
        y = pl.store(pl.div(lo, hi), [0, 576], y)
        y = pl.store(pl.maximum(lo, hi), [0, 640], y)
        y = pl.store(pl.minimum(hi, lo), [0, 704], y)
        y = pl.store(pl.tile.adds(hi, 0.5), [0, 768], y)
        y = pl.store(pl.tile.subs(lo, 0.5), [0, 832], y)
        y = pl.store(pl.tile.muls(hi, 3.0), [0, 896], y)
        y = pl.store(pl.tile.divs(lo, 4.0), [0, 960], y)
        y = pl.store(pl.tile.maximums(hi, 1.0), [0, 1024], y)
        y = pl.store(pl.tile.minimums(lo, 1.0), [0, 1088], y)
        y = pl.store(pl.row_expand_add(lo, r), [0, 1152], y)
        y = pl.store(pl.row_expand_sub(hi, r), [0, 1216], y)
        y = pl.store(pl.row_expand_mul(lo, r), [0, 1280], y)
        y = pl.store(pl.row_expand_div(hi, r), [0, 1344], y)
        y = pl.store(pl.row_expand_max(lo, r), [0, 1408], y)
        y = pl.store(pl.row_expand_min(hi, r), [0, 1472], y)
        y = pl.store(pl.col_expand_add(lo, c), [0, 1536], y)
        y = pl.store(pl.col_expand_sub(hi, c), [0, 1600], y)
        y = pl.store(pl.col_expand_div(lo, c), [0, 1664], y)
        y = pl.store(pl.col_expand_max(hi, c), [0, 1728], y)
        y = pl.store(pl.col_expand_min(lo, c), [0, 1792], y)
        y = pl.store(pl.move(hi, target_memory=pl.Mem.Vec), [0, 1856], y)
        y = pl.store(lo, [0, 1920], y)
        y = pl.store(hi, [0, 1984], y)
        s = pl.store(pl.row_sum(lo, tmp), [0, 0], s)
        s = pl.store(pl.row_max(hi, tmp), [0, 1], s)
        s = pl.store(pl.row_min(lo, tmp), [0, 2], s)
        h = pl.store(pl.cast(hi, pl.FP16), [0, 0], h)
        return y, s, h

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 128], pl.FP32], rv: pl.Tensor[[16, 1], pl.FP32],
             cv: pl.Tensor[[1, 64], pl.FP32], y: pl.Out[pl.Tensor[[16, 2048], pl.FP32]],
             s: pl.Out[pl.Tensor[[16, 3], pl.FP32]], h: pl.Out[pl.Tensor[[16, 64], pl.FP16]]
             ) -> tuple[pl.Tensor[[16, 2048], pl.FP32], pl.Tensor[[16, 3], pl.FP32], pl.Tensor[[16, 64], pl.FP16]]:
        y, s, h = self.k(x, rv, cv, y, s, h)
        return y, s, h


@pl.program
class CopiedViews:
    """Reads of strided slices that pto-isa cannot take in place (copied first), slices of slices,
    a row slice, a [16, 1] column view as an operand, and a loop carried from a slice."""

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 128], pl.FP32], y: pl.Out[pl.Tensor[[16, 512], pl.FP32]],
          c: pl.Out[pl.Tensor[[2, 64], pl.FP32]], q: pl.Out[pl.Tensor[[8, 32], pl.FP32]]
          ) -> tuple[pl.Tensor[[16, 512], pl.FP32], pl.Tensor[[2, 64], pl.FP32], pl.Tensor[[8, 32], pl.FP32]]:
        t: pl.Tile[[16, 128], pl.FP32] = pl.load(x, [0, 0], [16, 128])
        lo = t[:, 0:64]
        hi = t[:, 64:128]
        y = pl.store(pl.add(lo, hi), [0, 0], y)
        y = pl.store(pl.abs(hi), [0, 64], y)
        y = pl.store(pl.exp(t[8:16, :]), [8, 128], y)
        y = pl.store(pl.neg(t[0:8, :]), [0, 128], y)
        col = t[:, 8:9]
        y = pl.store(pl.row_expand_mul(hi, col), [0, 256], y)
        acc = t[:, 32:96]
        for i in pl.range(2):
            acc = pl.add(acc, pl.tile.muls(hi, 0.5))
        y = pl.store(acc, [0, 320], y)
        y = pl.store(pl.sub(hi, lo), [0, 384], y)
        y = pl.store(pl.exp(hi), [0, 448], y)
        c = pl.store(pl.col_sum(lo), [0, 0], c)
        c = pl.store(pl.col_max(hi), [1, 0], c)
        inner = hi[4:12, 16:48]
        q = pl.store(pl.tile.muls(inner, 2.0), [0, 0], q)
        return y, c, q

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 128], pl.FP32], y: pl.Out[pl.Tensor[[16, 512], pl.FP32]],
             c: pl.Out[pl.Tensor[[2, 64], pl.FP32]], q: pl.Out[pl.Tensor[[8, 32], pl.FP32]]
             ) -> tuple[pl.Tensor[[16, 512], pl.FP32], pl.Tensor[[2, 64], pl.FP32], pl.Tensor[[8, 32], pl.FP32]]:
        y, c, q = self.k(x, y, c, q)
        return y, c, q


@pl.program
class PartialWindows:
    """Slices of a tile loaded with a partial valid region: each keeps its part of it."""

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 128], pl.FP32], y: pl.Out[pl.Tensor[[16, 128], pl.FP32]],
          s: pl.Out[pl.Tensor[[16, 2], pl.FP32]]) -> tuple[pl.Tensor[[16, 128], pl.FP32], pl.Tensor[[16, 2], pl.FP32]]:
        t: pl.Tile[[16, 128], pl.FP32] = pl.load(x, [0, 0], [16, 128], valid_shape=[12, 72])
        tmp: pl.Tile[[16, 64], pl.FP32] = pl.create_tile([16, 64], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        lo = t[:, 0:64]
        hi = t[:, 64:128]
        y = pl.store(pl.exp(lo), [0, 0], y)
        y = pl.store(pl.tile.muls(hi, 2.0), [0, 64], y)
        s = pl.store(pl.row_sum(hi, tmp), [0, 0], s)
        s = pl.store(pl.row_max(lo, tmp), [0, 1], s)
        return y, s

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 128], pl.FP32], y: pl.Out[pl.Tensor[[16, 128], pl.FP32]],
             s: pl.Out[pl.Tensor[[16, 2], pl.FP32]]
             ) -> tuple[pl.Tensor[[16, 128], pl.FP32], pl.Tensor[[16, 2], pl.FP32]]:
        y, s = self.k(x, y, s)
        return y, s


@pl.program
class LowerRankWindows:
    """Windows of fewer axes than a [4, 16, 64] tensor: a [1, 64] and a [64] row (one partly valid), a
    [16, 64] matrix; each a load of the full-rank window, its leading unit axes dropped."""

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[4, 16, 64], pl.FP32],
          y: pl.Out[pl.Tensor[[24, 64], pl.FP32]]) -> pl.Tensor[[24, 64], pl.FP32]:
        for i in pl.range(4):
            r = pl.slice(x, [1, 64], [i, 3, 0])
            y = pl.assemble(y, pl.exp(r), [i, 0])
            w = pl.slice(x, [64], [i, 5, 0], [40])
            y = pl.assemble(y, pl.reshape(pl.neg(w), [1, 64]), [4 + i, 0])
        b = pl.slice(x, [16, 64], [2, 0, 0])
        y = pl.assemble(y, pl.add(b, 1.0), [8, 0])
        return y

    @pl.function(type=pl.FunctionType.InCore)
    def exp2d(self, m: pl.Tensor[[16, 64], pl.FP32],
              z: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t: pl.Tile[[16, 64], pl.FP32] = pl.load(m, [0, 0], [16, 64])
        z = pl.store(pl.exp(t), [0, 0], z)
        return z

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[4, 16, 64], pl.FP32], y: pl.Out[pl.Tensor[[24, 64], pl.FP32]],
             z: pl.Out[pl.Tensor[[16, 64], pl.FP32]]
             ) -> tuple[pl.Tensor[[24, 64], pl.FP32], pl.Tensor[[16, 64], pl.FP32]]:
        y = self.k(x, y)
        z = self.exp2d(pl.slice(x, [16, 64], [3, 0, 0]), z)  # a view of the orchestration, reshaped
        return y, z


def _kernel(compiled) -> str:
    (kernel,) = [f for f in compiled.files if f.startswith("kernels/aiv/")]
    return (compiled.output_dir / kernel).read_text()


def _tolerances(compiled) -> list[tuple[float, float]]:
    """``(rtol, atol)`` of each output, in order, by the tolerance rule (docs/cli.md#tolerances)."""
    entry = compiled.entry_function()
    tolerances = output_tolerances(compiled.program, entry)
    return [tolerances[p.name_hint] for p, d in zip(entry.params, entry.param_directions) if d is not ParamDirection.In]


def _agree(compiled, got, want) -> None:
    for g, w, (rtol, atol) in zip(got, want, _tolerances(compiled), strict=True):
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)


@pytest.mark.parametrize("rows", [2, 16])
def test_col_expand_mul_on_column_slices_equals_the_interpreter(rows: int, tmp_path: Path, kernel_cache: Path) -> None:
    compiled = ir.compile(pl.parse(HALVES.replace("R", str(rows))), output_dir=tmp_path / f"halves{rows}")
    text = _kernel(compiled)
    pitched = f"Vec_{rows}x128_fp32"
    assert f"{pitched} lo({rows}, 64);" in text and f"{pitched} hi({rows}, 64);" in text
    rng = np.random.default_rng(rows)
    x = rng.standard_normal((rows, 128)).astype(np.float32)
    s = rng.standard_normal((1, 64)).astype(np.float32)
    got = compiled.run(x, s, cache_dir=kernel_cache)
    np.testing.assert_array_equal(got, compiled.interpret(x, s))  # one FP32 multiply rounds alike anywhere
    np.testing.assert_array_equal(got, np.concatenate([x[:, :64] * s, x[:, 64:] * s], axis=1))


def test_strided_readers_read_the_slices_in_place(tmp_path: Path, kernel_cache: Path) -> None:
    compiled = ir.compile(StridedReaders, output_dir=tmp_path / "readers")
    text = _kernel(compiled)
    assert "TMOV(" in text and text.count("TMOV(") == 1  # only the explicit pl.move
    rng = np.random.default_rng(5)
    x = rng.uniform(0.5, 2.0, (16, 128)).astype(np.float32)
    rv = rng.uniform(0.5, 2.0, (16, 1)).astype(np.float32)
    cv = rng.uniform(0.5, 2.0, (1, 64)).astype(np.float32)
    got = compiled.run(x, rv, cv, cache_dir=kernel_cache)
    want = compiled.interpret(x, rv, cv)
    _agree(compiled, got, want)
    np.testing.assert_array_equal(got[0][:, 448:512], x[:, :64] - x[:, 64:])  # one FP32 sub rounds alike anywhere


def test_other_reads_of_slices_go_through_copies(tmp_path: Path, kernel_cache: Path) -> None:
    compiled = ir.compile(CopiedViews, output_dir=tmp_path / "copied")
    text = _kernel(compiled)
    for copy in ("TMOV(lo, lo_view);", "TMOV(hi, hi_view);"):
        assert copy in text
    rng = np.random.default_rng(9)
    x = rng.standard_normal((16, 128)).astype(np.float32)
    got = compiled.run(x, cache_dir=kernel_cache)
    want = compiled.interpret(x)
    _agree(compiled, got, want)
    np.testing.assert_array_equal(got[2], 2 * x[4:12, 80:112])  # doubling is exact


def test_slices_of_a_partially_valid_tile_keep_their_part_of_it(tmp_path: Path, kernel_cache: Path) -> None:
    compiled = ir.compile(PartialWindows, output_dir=tmp_path / "partial")
    text = _kernel(compiled)
    assert "Vec_16x128_fp32 lo(12, 64);" in text and "Vec_16x128_fp32 hi(12, 8);" in text
    x = np.random.default_rng(11).standard_normal((16, 128)).astype(np.float32)
    (y, s), (want_y, want_s) = compiled.run(x, cache_dir=kernel_cache), compiled.interpret(x)
    # Only the valid rows and columns are written: compare those.
    (y_rtol, y_atol), (s_rtol, s_atol) = _tolerances(compiled)
    np.testing.assert_allclose(y[:12, :72], want_y[:12, :72], rtol=y_rtol, atol=y_atol)
    np.testing.assert_allclose(s[:12], want_s[:12], rtol=s_rtol, atol=s_atol)
    want_sum = x[:12, 64:72].astype(np.float64).sum(axis=1)
    np.testing.assert_allclose(s[:12, 0], want_sum, rtol=s_rtol, atol=s_atol)


def test_lower_rank_windows_of_a_3d_tensor_equal_the_interpreter(tmp_path: Path, kernel_cache: Path) -> None:
    compiled = ir.compile(LowerRankWindows, output_dir=tmp_path / "lower_rank")
    text = (compiled.output_dir / "kernels" / "aiv" / "k.cpp").read_text()
    assert "TSUBVIEW(w_tile, window_1, 0, 0);" in text and "Vec_1x64_fp32 w_tile(1, 40);" in text
    pto = (compiled.output_dir / "ptoas" / "k.pto").read_text()  # the other target loads the same windows
    for window in ("1x1x64", "1x1x40", "1x16x64"):  # the partly valid row loads its valid part
        assert f"-> !pto.partition_tensor_view<{window}xf32>" in pto
    assert "ChipTensor t__tmp_v0 = t__tmp_v0_window.reshape(t__tmp_v0_kept, 2);" in (
        compiled.output_dir / "orchestration" / "main.cpp").read_text()
    x = np.random.default_rng(13).standard_normal((4, 16, 64)).astype(np.float32)
    (got, got_z), (want, want_z) = compiled.run(x, cache_dir=kernel_cache), compiled.interpret(x)
    (rtol, atol), (ztol, zatol) = _tolerances(compiled)
    rows = [*range(4), *range(8, 24)]  # rows 4-7 are valid in their first 40 columns only
    np.testing.assert_allclose(got[rows], want[rows], rtol=rtol, atol=atol)
    np.testing.assert_allclose(got[4:8, :40], want[4:8, :40], rtol=rtol, atol=atol)
    np.testing.assert_allclose(got_z, want_z, rtol=ztol, atol=zatol)
    np.testing.assert_array_equal(want[4:8, :40], -x[:, 5, :40])
    np.testing.assert_array_equal(want[8:], x[2] + 1.0)
    np.testing.assert_allclose(want_z, np.exp(x[3]), rtol=1e-6)
