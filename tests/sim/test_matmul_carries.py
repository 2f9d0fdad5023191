"""Matmul accumulators carried through kernel control flow run on a2a3sim and equal the interpreter:
an if choosing ``pl.matmul`` for the first K block and ``pl.matmul_acc`` for the others, with blocks
that fit L0 and with blocks AutoTileMatmulL0 splits into K slabs."""

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

# {m}x{k} by {k}x{n} in {blocks} K blocks of {step}.
IF_ELSE = """
    import pypto.language as pl

    @pl.program
    class IfElseAcc:
        @pl.function
        def main(
            self,
            a: pl.Tensor[[{m}, {k}], pl.FP16],
            b: pl.Tensor[[{k}, {n}], pl.FP16],
            out: pl.Out[pl.Tensor[[{m}, {n}], pl.FP32]],
        ) -> pl.Tensor[[{m}, {n}], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP):
                acc = pl.create_tensor([{m}, {n}], dtype=pl.FP32)
                for k in pl.range({blocks}):
                    if k == 0:
                        acc = pl.matmul(a[:, 0:{step}], b[0:{step}, :], out_dtype=pl.FP32)
                    else:
                        lo = k * {step}
                        acc = pl.matmul_acc(acc, a[:, lo : lo + {step}], b[lo : lo + {step}, :])
                out[:] = acc
            return out
"""
# Blocks that fit L0; blocks of 128x512 / 512x128 FP16, each twice L0A / L0B, split into K slabs.
SIZES = {"fitting": (64, 256, 32, 4), "k_slabs": (128, 1024, 128, 2)}


@pytest.mark.parametrize("size", sorted(SIZES))
def test_an_if_choosing_matmul_or_matmul_acc_equals_the_interpreter(
    size: str, tmp_path: Path, kernel_cache: Path, record_timing
) -> None:
    m, k, n, blocks = SIZES[size]
    source = textwrap.dedent(IF_ELSE).format(m=m, k=k, n=n, blocks=blocks, step=k // blocks)
    compiled = ir.compile(pl.parse(source), output_dir=tmp_path, dump_passes=False)
    rng = np.random.default_rng(3)
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    got = compiled.run(a, b, cache_dir=kernel_cache)
    want = compiled.interpret(a, b)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(want, a.astype(np.float32) @ b.astype(np.float32), rtol=1e-4, atol=2e-3)
    record_timing(f"if/else matmul or matmul_acc ({size})", compiled.last_run)
