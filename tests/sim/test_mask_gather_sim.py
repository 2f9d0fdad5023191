"""``pl.tensor.gather`` / ``pl.tensor.scatter`` with a mask pattern lower to TGATHER / TSCATTER with the
pattern as a template argument; on a2a3sim they equal the interpreter for strides 1, 2 and 4."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import pypto.language as pl
from pypto import ir
from pypto.runtime import simulator_missing_reason

if (_missing := simulator_missing_reason()) is not None:
    pytest.skip(f"simulator tier: {_missing} (scripts/install-simulator.sh installs it)", allow_module_level=True)

SRC = """
@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[[16, 64], pl.FP32], d: pl.InOut[pl.Tensor[[16, 64], pl.FP32]],
             g: pl.Out[pl.Tensor[[16, {n}], pl.FP32]], o: pl.Out[pl.Tensor[[16, 64], pl.FP32]]
             ) -> tuple[pl.Tensor[[16, {n}], pl.FP32], pl.Tensor[[16, 64], pl.FP32]]:
        with pl.at(level=pl.Level.CORE_GROUP):
            y = pl.tensor.gather(x, mask_pattern=pl.MaskPattern.{p})
            g[:] = y
            o[:] = pl.tensor.scatter(y, mask_pattern=pl.MaskPattern.{p}, dst=d)
        return g, o
"""


@pytest.mark.parametrize("pattern, cols, first, stride", [("P1010", 32, 1, 2), ("P0100", 16, 2, 4),
                                                          ("P1111", 64, 0, 1)])
def test_mask_gather_and_scatter_on_the_simulator_equal_the_interpreter(
        pattern: str, cols: int, first: int, stride: int, tmp_path: Path, kernel_cache: Path) -> None:
    compiled = ir.compile(pl.parse(SRC.format(n=cols, p=pattern)), output_dir=tmp_path / "out")
    (kernel,) = [f for f in compiled.files if f.startswith("kernels/aiv/")]
    text = (compiled.output_dir / kernel).read_text()
    assert f"MaskPattern::{pattern}>(" in text and f"TSCATTER<MaskPattern::{pattern}>(" in text
    (pto,) = [f for f in compiled.files if f.endswith(".pto")]
    pto_text = (compiled.output_dir / pto).read_text()
    for mnemonic in ("pto.tgather", "pto.tscatter"):
        assert f"{mnemonic} ins(%" in pto_text
    assert pto_text.count(f"{{maskPattern = #pto<mask_pattern {pattern}>}}") == 2
    x = np.random.default_rng(5).standard_normal((16, 64)).astype(np.float32)
    d = np.ones((16, 64), np.float32)
    got = compiled.run(x, d, cache_dir=kernel_cache)
    want = compiled.interpret(x, d)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w)
    np.testing.assert_array_equal(got[0], x[:, first::stride])
    spread = np.zeros_like(x)
    spread[:, first::stride] = x[:, first::stride]
    np.testing.assert_array_equal(got[1], spread)
