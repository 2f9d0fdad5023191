"""``pl.assemble`` of a source whose dtype differs from the target's (flash attention writes FP32 results
into FP16/BF16 outputs): the source is cast (cast mode 'round') before the store, on a2a3sim as in the
interpreter, for a vector result and for a matmul's accumulator."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import pypto.language as pl
from pypto import ir
from pypto.runtime import simulator_missing_reason

if (_missing := simulator_missing_reason()) is not None:
    pytest.skip(f"simulator tier: {_missing} (scripts/install-simulator.sh installs it)", allow_module_level=True)


@pl.program
class Casting:
    @pl.function
    def main(self, a: pl.Tensor[[16, 32], pl.FP16], b: pl.Tensor[[32, 32], pl.FP16], x: pl.Tensor[[16, 32], pl.FP32],
             out: pl.Out[pl.Tensor[[32, 32], pl.FP16]], acc: pl.Out[pl.Tensor[[16, 32], pl.FP16]]
             ) -> tuple[pl.Tensor[[32, 32], pl.FP16], pl.Tensor[[16, 32], pl.FP16]]:
        with pl.at(level=pl.Level.CORE_GROUP):
            out = pl.assemble(out, pl.exp(x), [0, 0])
            out = pl.assemble(out, pl.mul(x, 2.0), [16, 0])
        with pl.at(level=pl.Level.CORE_GROUP):
            acc = pl.assemble(acc, pl.matmul(a, b), [0, 0])
        return out, acc


def test_assemble_across_dtypes_casts_on_the_simulator_as_in_the_interpreter(tmp_path: Path,
                                                                              kernel_cache: Path) -> None:
    compiled = ir.compile(Casting, output_dir=tmp_path / "out")
    rng = np.random.default_rng(1)
    a = rng.standard_normal((16, 32)).astype(np.float16)
    b = rng.standard_normal((32, 32)).astype(np.float16)
    x = rng.standard_normal((16, 32)).astype(np.float32)
    got = compiled.run(a, b, x, cache_dir=kernel_cache)
    want = compiled.interpret(a, b, x)
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(want[0][16:], (2 * x).astype(np.float16))
    np.testing.assert_allclose(got[1].astype(np.float32), want[1].astype(np.float32), rtol=2e-3, atol=1e-3)
    np.testing.assert_allclose(want[1].astype(np.float32), a.astype(np.float32) @ b.astype(np.float32),
                               rtol=2e-3, atol=2e-2)
