"""A process may run more distinct programs on a2a3sim than simpler's worker can hold registered:
the least recently run program is unregistered to make room."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import pypto.language as pl
from pypto import ir
from pypto.runtime import simulator, simulator_missing_reason

if (_missing := simulator_missing_reason()) is not None:
    pytest.skip(f"simulator tier: {_missing} (scripts/install-simulator.sh installs it)", allow_module_level=True)


def _program(k: float) -> str:
    return f"""
import pypto.language as pl


@pl.program
class AddConst:
    @pl.function(type=pl.FunctionType.InCore)
    def add_k(self, a: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t: pl.Tile[[16, 16], pl.FP32] = pl.load(a, [0, 0], [16, 16])
        u: pl.Tile[[16, 16], pl.FP32] = pl.add(t, {k})
        out = pl.store(u, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        out = self.add_k(a, out)
        return out
"""


def test_the_handle_limit_is_simplers() -> None:
    from simpler.worker import MAX_REGISTERED_CALLABLE_IDS

    assert simulator.MAX_HANDLES == MAX_REGISTERED_CALLABLE_IDS


def test_more_programs_than_registered_handles_all_run(
    tmp_path: Path, kernel_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(simulator, "MAX_HANDLES", 2)
    a = np.arange(256, dtype=np.float32).reshape(16, 16)
    compiled = [ir.compile(pl.parse(_program(k)), output_dir=tmp_path / str(k), dump_passes=False) for k in (1.0, 2.0, 3.0)]
    for k, program in [(1.0, compiled[0]), (2.0, compiled[1]), (3.0, compiled[2]), (1.0, compiled[0])]:
        np.testing.assert_array_equal(program.run(a, cache_dir=kernel_cache), a + k)
        assert len(simulator._handles) <= 2
