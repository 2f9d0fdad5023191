"""Kernels whose operands pto-isa needs row-major, written the natural way, on a2a3sim (issue 29).

RMSNorm reduces each row to an ``[N, 1]`` column (col-major) and then scales it with scalar ops
that pto-isa runs only on row-major tiles; the second kernel feeds a col-major tile to reductions
and broadcasts, the third casts a column and applies more scalar ops to it.
ResolveBackendOpLayouts makes each operand row-major; the C++ builds and the results equal the
interpreter's.
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

SOURCE = """
import pypto.language as pl


@pl.program
class Layouts:
    @pl.function(type=pl.FunctionType.InCore)
    def rms_norm(self, x: pl.Tensor[[16, 64], pl.FP32],
                 y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t = pl.load(x, [0, 0], [16, 64])
        tmp = pl.create_tile([16, 64], dtype=pl.FP32)
        s = pl.row_sum(pl.mul(t, t), tmp)
        m = pl.mul(s, 1.0 / 64)
        r = pl.rsqrt(pl.add(m, 1e-6))
        out = pl.store(pl.row_expand_mul(t, r), [0, 0], y)
        return out

    @pl.function(type=pl.FunctionType.InCore)
    def col_major(self, x: pl.Tensor[[16, 64], pl.FP32],
                  y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t = pl.load(x, [0, 0], [16, 64])
        c = pl.move(t, target_memory=pl.Mem.Vec, blayout=pl.TileLayout.col_major)
        tmp = pl.create_tile([16, 64], dtype=pl.FP32)
        s = pl.row_max(c, tmp)
        m = pl.col_sum(c)
        d = pl.col_expand_sub(pl.row_expand_sub(c, s), m)
        out = pl.store(pl.maximum(d, c), [0, 0], y)
        return out

    @pl.function(type=pl.FunctionType.InCore)
    def column_ops(self, x: pl.Tensor[[16, 64], pl.FP32],
                   y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t = pl.load(x, [0, 0], [16, 64])
        tmp = pl.create_tile([16, 64], dtype=pl.FP32)
        h = pl.cast(pl.row_max(t, tmp), pl.FP16)
        c = pl.minimum(pl.sub(pl.cast(h, pl.FP32), 0.5), 1.0)
        out = pl.store(pl.row_expand_sub(t, c), [0, 0], y)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 64], pl.FP32], a: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
             b: pl.Out[pl.Tensor[[16, 64], pl.FP32]], c: pl.Out[pl.Tensor[[16, 64], pl.FP32]]
             ) -> tuple[pl.Tensor[[16, 64], pl.FP32], pl.Tensor[[16, 64], pl.FP32], pl.Tensor[[16, 64], pl.FP32]]:
        a = self.rms_norm(x, a)
        b = self.col_major(x, b)
        c = self.column_ops(x, c)
        return a, b, c
"""


def test_row_major_needs_of_column_and_col_major_operands_run_equal_to_the_interpreter(
    tmp_path: Path, kernel_cache: Path
) -> None:
    compiled = ir.compile(pl.parse(SOURCE), output_dir=tmp_path / "layouts")
    x = np.random.default_rng(29).standard_normal((16, 64)).astype(np.float32)
    got = [np.zeros((16, 64), np.float32) for _ in range(3)]
    want = [g.copy() for g in got]
    compiled.run(x, *got, cache_dir=kernel_cache)
    compiled.interpret(x, *want)
    rms = x / np.sqrt((x * x).mean(axis=1, keepdims=True) + 1e-6)
    np.testing.assert_allclose(want[0], rms, rtol=1e-5, atol=1e-6)
    centred = x - x.max(axis=1, keepdims=True) - x.sum(axis=0, keepdims=True)
    np.testing.assert_allclose(want[1], np.maximum(centred, x), rtol=1e-5, atol=1e-5)
    column = np.minimum(x.max(axis=1, keepdims=True).astype(np.float16).astype(np.float32) - 0.5, 1.0)
    np.testing.assert_allclose(want[2], x - column, rtol=1e-6)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)
