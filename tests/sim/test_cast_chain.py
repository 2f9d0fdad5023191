"""A cast with no native pair runs on a2a3sim as LegalizeTileCast's chain (FP32 -> FP16 -> INT8 on
a2a3), rounding at each step; the interpreter rounds the same way, so the two agree exactly on
fractional data, including values where rounding through FP16 first differs from rounding once.

pto-isa's CPU backend converts float to float with a plain C++ cast (round to nearest even) whatever
the mode (``convert_value`` in pto/cpu/TCvt.hpp), while TCVT's specification and the interpreter
round that step by the mode too; so only the nearest modes are compared here (with them the FP16
step of the chain rounds alike on both, ties included)."""

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
class CastChain:
    @pl.function
    def main(self, x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.INT8]]) -> pl.Tensor[[16, 64], pl.INT8]:
        with pl.at(level=pl.Level.CORE_GROUP):
            out[:] = pl.cast(x, pl.INT8, mode="MODE")
        return out
"""

# Just below a rounding boundary k + 0.5 (k odd) of INT8 by less than half an FP16 step there: FP16
# rounds them onto the boundary (3.4999 -> 3.5), so the chain gives 4 where one rounding gives 3.
DOUBLE_ROUNDED = np.array([3.4999, -3.4999, 7.49999, -11.4998, 1.49999, 101.49], np.float32)


def _inputs() -> np.ndarray:
    x = np.random.default_rng(3).uniform(-100, 100, (16, 64)).astype(np.float32)
    x[0, : DOUBLE_ROUNDED.size] = DOUBLE_ROUNDED
    x[1, :4] = [1 + 2**-11, 2.5 - 2**-10, -(2.5 - 2**-10), 3.5]  # exact FP16 ties and an INT8 tie
    return x


@pytest.mark.parametrize("mode", ["round", "rint"])
def test_a_cast_chain_on_fractional_data_equals_the_interpreter(mode: str, tmp_path: Path, kernel_cache: Path) -> None:
    compiled = ir.compile(pl.parse(SOURCE.replace("MODE", mode)), output_dir=tmp_path / mode)
    (kernel,) = [f for f in compiled.files if f.startswith("kernels/aiv/")]
    text = (compiled.output_dir / kernel).read_text()
    spelled = {"round": "CAST_ROUND", "rint": "CAST_RINT"}[mode]
    assert text.count(f"RoundMode::{spelled}") == 2  # FP32 -> FP16, FP16 -> INT8
    x = _inputs()
    got = compiled.run(x, cache_dir=kernel_cache)
    want = compiled.interpret(x)
    np.testing.assert_array_equal(got, want)
    once = {"round": np.trunc(x + np.copysign(0.5, x)), "rint": np.rint(x)}[mode].astype(np.int8)
    assert (got[0, : DOUBLE_ROUNDED.size] != once[0, : DOUBLE_ROUNDED.size]).all()  # they did round twice
