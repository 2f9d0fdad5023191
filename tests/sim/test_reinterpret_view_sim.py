"""``tile.reinterpret_view`` in a kernel: the result is a view on the source's MemRef, so both targets
declare it over the same address with the new dtype (CCE: a Tile object TASSIGNed there; PTO: its
``pto.alloc_tile``). INT32 bits read as FP32 (then ``abs``) and as INT16 pairs, and a slice (copied to
a packed tile first) read as FP32; a2a3sim equals the interpreter and numpy's views."""

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
class Bits:
    @pl.function(type=pl.FunctionType.InCore)
    def k(
        self,
        x: pl.Tensor[[8, 64], pl.INT32],
        f: pl.Out[pl.Tensor[[8, 64], pl.FP32]],
        h: pl.Out[pl.Tensor[[8, 128], pl.INT16]],
        s: pl.Out[pl.Tensor[[8, 32], pl.FP32]],
    ) -> tuple[pl.Tensor[[8, 64], pl.FP32], pl.Tensor[[8, 128], pl.INT16], pl.Tensor[[8, 32], pl.FP32]]:
        t: pl.Tile[[8, 64], pl.INT32] = pl.load(x, [0, 0], [8, 64])
        u: pl.Tile[[8, 64], pl.FP32] = pl.tile.reinterpret_view(t, pl.FP32)
        v: pl.Tile[[8, 64], pl.FP32] = pl.tile.abs(u)
        f = pl.store(v, [0, 0], f)
        w: pl.Tile[[8, 128], pl.INT16] = pl.tile.reinterpret_view(t, pl.INT16)
        h = pl.store(w, [0, 0], h)
        q: pl.Tile[[8, 32], pl.INT32] = pl.tile.slice(t, [8, 32], [0, 32])
        r: pl.Tile[[8, 32], pl.FP32] = pl.tile.reinterpret_view(q, pl.FP32)
        s = pl.store(r, [0, 0], s)
        return f, h, s

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self,
        x: pl.Tensor[[8, 64], pl.INT32],
        f: pl.Out[pl.Tensor[[8, 64], pl.FP32]],
        h: pl.Out[pl.Tensor[[8, 128], pl.INT16]],
        s: pl.Out[pl.Tensor[[8, 32], pl.FP32]],
    ) -> tuple[pl.Tensor[[8, 64], pl.FP32], pl.Tensor[[8, 128], pl.INT16], pl.Tensor[[8, 32], pl.FP32]]:
        f, h, s = self.k(x, f, h, s)
        return f, h, s
"""


def test_reinterpreted_tiles_run_as_interpreted(tmp_path: Path, kernel_cache: Path) -> None:
    compiled = ir.compile(pl.parse(SOURCE), output_dir=tmp_path, dump_passes=False)
    cpp = (tmp_path / "kernels" / "aiv" / "k.cpp").read_text()
    assert "TASSIGN(t, 0x0);" in cpp and "TASSIGN(u, 0x0);" in cpp and "TASSIGN(w, 0x0);" in cpp
    pto = (tmp_path / "ptoas" / "k.pto").read_text()
    assert "%u = pto.alloc_tile addr = %c0_i64 valid_row = %c8_index valid_col = %c64_index" in pto
    rng = np.random.default_rng(1)
    x = rng.standard_normal((8, 64)).astype(np.float32).view(np.int32)
    want = compiled.interpret(x)
    np.testing.assert_array_equal(want[0], np.abs(x.view(np.float32)))
    np.testing.assert_array_equal(want[1], x.view(np.int16))
    np.testing.assert_array_equal(want[2], x[:, 32:].view(np.float32))
    got = compiled.run(x, cache_dir=kernel_cache)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w)
