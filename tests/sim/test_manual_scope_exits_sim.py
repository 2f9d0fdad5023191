"""Values a manual scope makes and the code after it reads, on a2a3sim: views made in a loop and in
an if, and an array (the scope is a C++ block, so they are declared in front of it). The generated
orchestration builds and its results equal the interpreter's."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import pypto.language as pl
from pypto import ir
from pypto.runtime import simulator_missing_reason

if (_missing := simulator_missing_reason()) is not None:
    pytest.skip(f"simulator tier: {_missing} (scripts/install-simulator.sh installs it)", allow_module_level=True)

T16 = pl.Tensor[[16, 16], pl.FP32]


@pl.program
class ViewsLeavingManual:
    @pl.function(type=pl.FunctionType.InCore)
    def shift(self, a: T16, k: pl.Scalar[pl.INT32], out: pl.Out[T16]) -> T16:
        t = pl.load(a, [0, 0], [16, 16])
        out = pl.store(pl.add(t, pl.cast(k, pl.FP32)), [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 16], pl.FP32], n: pl.Scalar[pl.INDEX], x: pl.Out[T16],
             y: pl.Out[T16]) -> tuple[T16, T16]:
        with pl.manual_scope():
            counts = pl.array.create(2, pl.INT32)
            counts = pl.array.update_element(counts, 0, 3)
            v = pl.slice(a, [16, 16], [0, 0])
            for i in pl.range(1, n):
                v = pl.slice(a, [16, 16], [i * 16, 0])
            if n > 2:
                w = pl.slice(a, [16, 16], [16, 0])
            else:
                w = pl.slice(a, [16, 16], [48, 0])
        x = self.shift(v, pl.array.get_element(counts, 0), x)
        y = self.shift(w, pl.array.get_element(counts, 1), y)
        return x, y


def test_views_and_an_array_leaving_a_manual_scope(tmp_path: Path, kernel_cache: Path, record_timing) -> None:
    compiled = ir.compile(ViewsLeavingManual, output_dir=tmp_path / "out")
    text = (tmp_path / "out" / "orchestration" / "main.cpp").read_text()
    front = text[: text.index("PTO2_SCOPE(PTO2ScopeMode::MANUAL)")]
    assert "int32_t counts__ssa_v0[2] = {0};" in front
    assert front.count("ChipTensor ") == 2  # the loop's view and the if's view
    a = np.arange(64 * 16, dtype=np.float32).reshape(64, 16)
    for n in (2, 4):
        x, y = compiled.run(a, n, cache_dir=kernel_cache)
        record_timing(f"manual scope exits n={n}", compiled.last_run)
        want_x, want_y = compiled.interpret(a, n)
        np.testing.assert_array_equal(x, want_x)
        np.testing.assert_array_equal(y, want_y)
        np.testing.assert_array_equal(x, a[(n - 1) * 16 : n * 16] + 3)
        np.testing.assert_array_equal(y, a[16:32] if n > 2 else a[48:64])
