"""Integer scalar operands take the tile's dtype and wrap to its width (docs/ops.md#arguments): an
INT16 ``adds`` of 70000 adds 4464, and a UINT16 ``sels`` of 65535 selects through its INT16 twin
(-1, the same bits); an INDEX value written into an INT32 tensor or tile is cast to it. a2a3sim
agrees with the interpreter."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import pypto.language as pl
from pypto import ir
from pypto.runtime import simulator_missing_reason

if (_missing := simulator_missing_reason()) is not None:
    pytest.skip(f"simulator tier: {_missing} (scripts/install-simulator.sh installs it)", allow_module_level=True)

SOURCE = """
import pypto.language as pl


@pl.program
class Wrapped:
    @pl.function(type=pl.FunctionType.InCore)
    def block(
        self,
        a: pl.Tensor[[16, 64], pl.INT16],
        b: pl.Tensor[[16, 64], pl.UINT16],
        m: pl.Tensor[[16, 32], pl.UINT8],
        c: pl.Out[pl.Tensor[[16, 64], pl.INT16]],
        d: pl.Out[pl.Tensor[[16, 64], pl.UINT16]],
    ) -> tuple[pl.Tensor[[16, 64], pl.INT16], pl.Tensor[[16, 64], pl.UINT16]]:
        t: pl.Tile[[16, 64], pl.INT16] = pl.load(a, [0, 0], [16, 64])
        u: pl.Tile[[16, 64], pl.INT16] = pl.add(t, 70000)
        c = pl.store(u, [0, 0], c)
        s: pl.Tile[[16, 64], pl.UINT16] = pl.load(b, [0, 0], [16, 64])
        mask: pl.Tile[[16, 32], pl.UINT8] = pl.load(m, [0, 0], [16, 32], valid_shape=[16, 8])
        tmp: pl.Tile[[16, 64], pl.UINT16] = pl.tile.create([16, 64], dtype=pl.UINT16)
        v: pl.Tile[[16, 64], pl.UINT16] = pl.tile.sels(mask, s, tmp, 65535)
        d = pl.store(v, [0, 0], d)
        return c, d

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self,
        a: pl.Tensor[[16, 64], pl.INT16],
        b: pl.Tensor[[16, 64], pl.UINT16],
        m: pl.Tensor[[16, 32], pl.UINT8],
        c: pl.Out[pl.Tensor[[16, 64], pl.INT16]],
        d: pl.Out[pl.Tensor[[16, 64], pl.UINT16]],
    ) -> tuple[pl.Tensor[[16, 64], pl.INT16], pl.Tensor[[16, 64], pl.UINT16]]:
        c, d = self.block(a, b, m, c, d)
        return c, d
"""


def test_wrapped_integer_scalars_run_as_interpreted(tmp_path: Path, kernel_cache: Path) -> None:
    program = pl.parse(SOURCE)
    printed = program.as_python()
    assert "pl.tile.adds(t, pl.const(4464, pl.INT16))" in printed
    assert "pl.tile.sels(mask, s, tmp, pl.const(-1, pl.INT16))" in printed
    compiled = ir.compile(program, output_dir=tmp_path, dump_passes=False)
    rng = np.random.default_rng(7)
    a = rng.integers(-30000, 30000, (16, 64)).astype(np.int16)
    b = rng.integers(0, 1000, (16, 64)).astype(np.uint16)
    m = rng.integers(0, 256, (16, 32)).astype(np.uint8)
    want = compiled.interpret(a, b, m)
    np.testing.assert_array_equal(want[0], (a.astype(np.int32) + 4464).astype(np.int16))
    assert (want[1] == 65535).any() and (want[1] != 65535).any()
    got = compiled.run(a, b, m, cache_dir=kernel_cache)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


INDEX_WRITES = """
import pypto.language as pl


@pl.program
class IndexWrites:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[8], pl.INT32], out: pl.Out[pl.Tensor[[8], pl.INT32]]) -> pl.Tensor[[8], pl.INT32]:
        for i in pl.range(8):
            out = pl.tensor.write(out, [i], i * 2)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[8], pl.INT32], out: pl.Out[pl.Tensor[[8], pl.INT32]]) -> pl.Tensor[[8], pl.INT32]:
        out = self.k(x, out)
        for j in pl.range(2):
            out = pl.tensor.write(out, [j], j + 100)
        return out
"""


def test_index_values_written_in_a_kernel_and_in_orchestration(tmp_path: Path, kernel_cache: Path) -> None:
    compiled = ir.compile(pl.parse(INDEX_WRITES), output_dir=tmp_path, dump_passes=False)
    x = np.zeros(8, np.int32)
    want = compiled.interpret(x)
    assert want.tolist() == [100, 101, 4, 6, 8, 10, 12, 14]
    np.testing.assert_array_equal(compiled.run(x, cache_dir=kernel_cache), want)


TILE_INDEX_WRITES = """
import pypto.language as pl


@pl.program
class TileIndexWrites:
    @pl.function(type=pl.FunctionType.InCore)
    def k(
        self, x: pl.Tensor[[8, 8], pl.INT32], out: pl.Out[pl.Tensor[[8, 8], pl.INT32]]
    ) -> pl.Tensor[[8, 8], pl.INT32]:
        t: pl.Tile[[8, 8], pl.INT32] = pl.load(x, [0, 0], [8, 8])
        for i in pl.range(8):
            t = pl.tile.write(t, [i, 7 - i], i * 3 + 1)
        out = pl.store(t, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self, x: pl.Tensor[[8, 8], pl.INT32], out: pl.Out[pl.Tensor[[8, 8], pl.INT32]]
    ) -> pl.Tensor[[8, 8], pl.INT32]:
        out = self.k(x, out)
        return out
"""


def test_index_values_written_into_a_tile(tmp_path: Path, kernel_cache: Path) -> None:
    program = pl.parse(TILE_INDEX_WRITES)
    assert "pl.tile.write(t, [i, 7 - i], pl.cast(i * 3 + 1, pl.INT32))" in program.as_python()
    compiled = ir.compile(program, output_dir=tmp_path, dump_passes=False)
    x = np.arange(64, dtype=np.int32).reshape(8, 8)
    want = compiled.interpret(x)
    expected = x.copy()
    expected[np.arange(8), 7 - np.arange(8)] = np.arange(8) * 3 + 1
    np.testing.assert_array_equal(want, expected)
    np.testing.assert_array_equal(compiled.run(x, cache_dir=kernel_cache), want)
