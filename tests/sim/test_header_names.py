"""Kernels and variables named after what the generated C++'s headers declare run on a2a3sim (issue 29).

``half`` and ``bfloat16_t`` are pto-isa typedefs, ``int8_t``/``uint8_t`` <stdint.h> ones, ``TADD`` a
function the kernel calls and ``PIPE_V`` an enumerator: the emitters suffix them, the C++ builds and
the results equal the interpreter's.
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
class Names:
    @pl.function(type=pl.FunctionType.InCore)
    def half(self, int8_t: pl.Tensor[[16, 64], pl.FP32],
             y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        bfloat16_t = pl.load(int8_t, [0, 0], [16, 64])
        TADD = pl.add(bfloat16_t, bfloat16_t)
        PIPE_V = pl.mul(TADD, 3.0)
        out = pl.store(PIPE_V, [0, 0], y)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, uint8_t: pl.Tensor[[16, 64], pl.FP32],
             size_t: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        size_t = self.half(uint8_t, size_t)
        return size_t
"""


def test_names_of_header_types_and_macros_build_and_run(tmp_path: Path, kernel_cache: Path) -> None:
    compiled = ir.compile(pl.parse(SOURCE), output_dir=tmp_path / "names")
    x = np.random.default_rng(7).standard_normal((16, 64)).astype(np.float32)
    got, want = np.zeros((16, 64), np.float32), np.zeros((16, 64), np.float32)
    compiled.run(x, got, cache_dir=kernel_cache)
    compiled.interpret(x, want)
    np.testing.assert_allclose(want, 6.0 * x, rtol=1e-6)
    np.testing.assert_array_equal(got, want)
