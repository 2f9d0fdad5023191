"""Scalar powers and absolute values in orchestration and kernel code run on a2a3sim as the
interpreter computes them (Pow and Abs have a rule in every code generator): integer powers wrap at
the dtype's width, and a negative exponent gives the real power truncated towards zero."""

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
class PowerRows:
    @pl.function(type=pl.FunctionType.InCore)
    def block(
        self,
        a: pl.Tensor[[128, 64], pl.FP32],
        c: pl.Out[pl.Tensor[[128, 64], pl.FP32]],
        row: pl.Scalar[pl.INDEX],
        k: pl.Scalar[pl.INT32],
    ) -> pl.Tensor[[128, 64], pl.FP32]:
        t: pl.Tile[[32, 64], pl.FP32] = pl.load(a, [row, 0], [32, 64])
        p = abs(k - 3) ** 2 + (k - 3) ** (k - 5) + (k + 1) ** 63 % 7
        s: pl.Scalar[pl.FP32] = pl.cast(p, pl.FP32)
        u: pl.Tile[[32, 64], pl.FP32] = pl.mul(t, s)
        c = pl.store(u, [row, 0], c)
        return c

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self, a: pl.Tensor[[128, 64], pl.FP32], c: pl.Out[pl.Tensor[[128, 64], pl.FP32]]
    ) -> pl.Tensor[[128, 64], pl.FP32]:
        for i in pl.range(4):
            row: pl.Scalar[pl.INDEX] = (i ** 2 - i) // 2 * 32
            k: pl.Scalar[pl.INT32] = pl.cast(2 ** i + (i + 1) ** (i - 2), pl.INT32)
            c = self.block(a, c, row, k)
        return c
"""


def test_powers_in_orchestration_and_kernel(tmp_path: Path, kernel_cache: Path) -> None:
    compiled = ir.compile(pl.parse(SOURCE), output_dir=tmp_path, dump_passes=False)
    orchestration = next(tmp_path.rglob("orchestration/*.cpp")).read_text()
    assert "__pypto_e >>= 1" in orchestration
    a = np.random.default_rng(3).standard_normal((128, 64)).astype(np.float32)
    got = compiled.run(a, cache_dir=kernel_cache)
    np.testing.assert_array_equal(got, compiled.interpret(a))
