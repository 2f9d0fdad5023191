"""Matmul accumulators carried through kernel control flow run on a2a3sim and equal the interpreter:
an if choosing ``pl.matmul`` for the first K block and ``pl.matmul_acc`` for the others."""

from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import pytest

import pypto.language as pl
from pypto import ir
from pypto.runtime import simulator_missing_reason

if (_missing := simulator_missing_reason()) is not None:
    pytest.skip(f"simulator tier: {_missing} (scripts/install-simulator.sh installs it)", allow_module_level=True)

IF_ELSE = """
    import pypto.language as pl

    @pl.program
    class IfElseAcc:
        @pl.function
        def main(
            self,
            a: pl.Tensor[[64, 256], pl.FP16],
            b: pl.Tensor[[256, 32], pl.FP16],
            out: pl.Out[pl.Tensor[[64, 32], pl.FP32]],
        ) -> pl.Tensor[[64, 32], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP):
                acc = pl.create_tensor([64, 32], dtype=pl.FP32)
                for k in pl.range(4):
                    if k == 0:
                        acc = pl.matmul(a[:, 0:64], b[0:64, :], out_dtype=pl.FP32)
                    else:
                        acc = pl.matmul_acc(acc, a[:, k * 64 : k * 64 + 64], b[k * 64 : k * 64 + 64, :])
                out[:] = acc
            return out
"""


def test_an_if_choosing_matmul_or_matmul_acc_equals_the_interpreter(
    tmp_path: Path, kernel_cache: Path, record_timing
) -> None:
    compiled = ir.compile(pl.parse(textwrap.dedent(IF_ELSE)), output_dir=tmp_path, dump_passes=False)
    rng = np.random.default_rng(3)
    a = rng.standard_normal((64, 256)).astype(np.float16)
    b = rng.standard_normal((256, 32)).astype(np.float16)
    got = compiled.run(a, b, cache_dir=kernel_cache)
    want = compiled.interpret(a, b)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(want, a.astype(np.float32) @ b.astype(np.float32), rtol=1e-4, atol=1e-3)
    record_timing("if/else matmul or matmul_acc", compiled.last_run)
