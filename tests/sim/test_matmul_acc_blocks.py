"""Matmul accumulators too big for L0C, written as ``pl.matmul_acc`` with an init condition, run on
a2a3sim in output blocks (AutoTileMatmulL0) and equal the interpreter: the if/else form (``matmul``
for the first K block, ``matmul_acc`` for the others), the ``init_cond=`` form, and blocks whose K
is split into slabs again."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import pypto.language as pl
from pypto import ir
from pypto.runtime import simulator_missing_reason

if (_missing := simulator_missing_reason()) is not None:
    pytest.skip(f"simulator tier: {_missing} (scripts/install-simulator.sh installs it)", allow_module_level=True)

# {m}x{k} by {k}x{n} in {blocks} K blocks of {step}; the FP32 {m}x{n} result exceeds L0C.
PROGRAM = """
import pypto.language as pl

@pl.program
class BlockedAcc:
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
BODY
            out[:] = acc
        return out
"""
BODIES = {
    "if_else": """
                if k == 0:
                    acc = pl.matmul(a[:, 0:{step}], b[0:{step}, :], out_dtype=pl.FP32)
                else:
                    lo = k * {step}
                    acc = pl.matmul_acc(acc, a[:, lo : lo + {step}], b[lo : lo + {step}, :])""",
    "init_cond": """
                lo = k * {step}
                acc = pl.matmul_acc(acc, a[:, lo : lo + {step}], b[lo : lo + {step}, :], init_cond=k == 0)""",
}
# (form, m, k, n, blocks): 256x256 in four 128x128 blocks whose operands fit L0A/L0B whole; 384x128
# in three 128x128 blocks whose [128, 512] operands split into K slabs of 128.
CASES = {
    "if_else_blocks": ("if_else", 256, 256, 256, 4),
    "init_cond_blocks": ("init_cond", 256, 256, 256, 4),
    "init_cond_blocks_k_slabs": ("init_cond", 384, 1024, 128, 2),
}


def source(case: str) -> str:
    form, m, k, n, blocks = CASES[case]
    text = PROGRAM.replace("BODY", BODIES[form].strip("\n"))
    return text.format(m=m, k=k, n=n, blocks=blocks, step=k // blocks)


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_blocked_accumulator_equals_the_interpreter(case: str, tmp_path: Path, kernel_cache: Path,
                                                      record_timing) -> None:
    _, m, k, n, _ = CASES[case]
    compiled = ir.compile(pl.parse(source(case)), output_dir=tmp_path, dump_passes=False)
    assert compiled.peak_memory()[ir.MemorySpace.Acc] <= 65536
    rng = np.random.default_rng(5)
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    got = compiled.run(a, b, cache_dir=kernel_cache)
    want = compiled.interpret(a, b)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(want, a.astype(np.float32) @ b.astype(np.float32), rtol=1e-4, atol=2e-3)
    print(f"{case}: simulator max error {np.max(np.abs(got - want)):.3g}")
    record_timing(f"blocked matmul_acc ({case})", compiled.last_run)
