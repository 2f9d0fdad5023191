"""A long-lived process runs any number of programs on a2a3sim: simpler's simulated AICore creates five
pthread keys a run and never deletes them (``aicore_execute_wrapper``), which used to kill the process
with SIGSEGV at address 0xa0 once its 1024 keys were gone (about 200 runs); pypto gives them back after
each run (pypto/runtime/thread_keys.py). The tests hold most keys so a few runs reach the limit."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from held_keys import keys_left, libc

import pypto.language as pl
from pypto import ir
from pypto.compiled import CompiledProgram
from pypto.runtime import SimulatorRunError, simulator_missing_reason
from pypto.runtime.thread_keys import RUN_KEYS, WRAPPER_KEYS, free_keys

if (_missing := simulator_missing_reason()) is not None:
    pytest.skip(f"simulator tier: {_missing} (scripts/install-simulator.sh installs it)", allow_module_level=True)

SCALE = """
import pypto.language as pl


@pl.program
class Scale:
    @pl.function(type=pl.FunctionType.InCore)
    def scale(
        self, a: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]
    ) -> pl.Tensor[[16, 16], pl.FP32]:
        t: pl.Tile[[16, 16], pl.FP32] = pl.load(a, [0, 0], [16, 16])
        u: pl.Tile[[16, 16], pl.FP32] = pl.mul(t, 2.0)
        out = pl.store(u, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self, a: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]
    ) -> pl.Tensor[[16, 16], pl.FP32]:
        out = self.scale(a, out)
        return out
"""

A = np.arange(256, dtype=np.float32).reshape(16, 16)


@pytest.fixture(scope="module")
def scale(tmp_path_factory: pytest.TempPathFactory, kernel_cache: Path) -> CompiledProgram:
    compiled = ir.compile(pl.parse(SCALE, filename="scale.py"), output_dir=tmp_path_factory.mktemp("scale") / "out")
    run(compiled, kernel_cache)  # the first run on a worker keeps the keys simpler makes for the worker
    return compiled


def run(compiled: CompiledProgram, cache: Path) -> None:
    out = np.zeros_like(A)
    compiled.run(A, out, cache_dir=cache)
    np.testing.assert_array_equal(out, A * 2)


def test_runs_leave_the_free_keys_as_they_were(scale: CompiledProgram, kernel_cache: Path) -> None:
    before = free_keys(libc, RUN_KEYS)
    for _ in range(3):
        run(scale, kernel_cache)
    assert free_keys(libc, RUN_KEYS) == before


def test_more_runs_than_the_free_keys_allow_for(scale: CompiledProgram, kernel_cache: Path) -> None:
    keys = 6 * WRAPPER_KEYS  # at least RUN_KEYS; a multiple of 5, so a leaking run 7 would get no key at all
    with keys_left(keys):  # and crash the process (with some keys, it would hang)
        for _ in range(2 * keys // WRAPPER_KEYS):
            run(scale, kernel_cache)


def test_a_process_nearly_out_of_keys_gets_an_error_and_its_arrays_back(scale: CompiledProgram,
                                                                        kernel_cache: Path) -> None:
    out = np.full((16, 16), 7.0, dtype=np.float32)
    with keys_left(RUN_KEYS - 1), pytest.raises(SimulatorRunError, match="free pthread keys left"):
        scale.run(A, out, cache_dir=kernel_cache)
    assert (out == 7.0).all()
    run(scale, kernel_cache)
