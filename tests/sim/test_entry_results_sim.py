"""An entry that returns tensors it creates, on a2a3sim: the call allocates them and returns them in
return order beside its Out parameter, equal to the interpreter, in both call forms and from the
artifact folder alone (ExportEntryResults; the compile side is tests/test_compiled_results.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from entry_result_programs import CreatedMixed, CreatedResult

from pypto import ir
from pypto.cli import main
from pypto.compiled import CompiledProgram
from pypto.runtime import RunConfig, run, simulator_missing_reason

if (_missing := simulator_missing_reason()) is not None:
    pytest.skip(f"simulator tier: {_missing} (scripts/install-simulator.sh installs it)", allow_module_level=True)


def test_created_results_come_back_from_the_simulator(tmp_path: Path, kernel_cache: Path, record_timing) -> None:
    """y is made in a manual scope, z after a loop; o is the Out parameter between them."""
    compiled = ir.compile(CreatedMixed, output_dir=tmp_path / "out")
    a = np.random.default_rng(7).standard_normal((16, 16)).astype(np.float32)
    expected = compiled.interpret(a)
    y, o, z = compiled.run(a, cache_dir=kernel_cache)
    record_timing("created results", compiled.last_run)
    for got, want, factor in zip((y, o, z), expected, (2, 4, 5)):
        np.testing.assert_allclose(got, want, rtol=1e-6)
        np.testing.assert_allclose(got, factor * a, rtol=1e-5)
    given = np.zeros((16, 16), np.float32)
    y2, o2, z2 = CompiledProgram.from_dir(tmp_path / "out").run(a, given, cache_dir=kernel_cache)
    assert o2 is given
    for got, want in zip((y2, o2, z2), expected):
        np.testing.assert_allclose(got, want, rtol=1e-6)


CREATED = """
import pypto.language as pl

T16 = pl.Tensor[[16, 16], pl.FP32]


@pl.program
class Created:
    @pl.function(type=pl.FunctionType.InCore)
    def double(self, a: T16, out: pl.Out[T16]) -> T16:
        out = pl.store(pl.mul(pl.load(a, [0, 0], [16, 16]), 2.0), [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: T16, o: pl.Out[T16]) -> tuple[T16, T16]:
        y = pl.create_tensor([16, 16], dtype=pl.FP32)
        y = self.double(a, y)
        o = self.double(y, o)
        return y, o
"""


def test_pypto_run_compares_the_created_results(
    tmp_path: Path, kernel_cache: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`pypto run` compares what the call returns too, not only the Out parameters."""
    monkeypatch.setenv("PYPTO_CACHE_DIR", str(kernel_cache))
    source = tmp_path / "created.py"
    source.write_text(CREATED)
    assert main(["run", str(source), "-o", str(tmp_path / "out")]) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if "max error" in line]
    assert lines == ["  o: max error 0 ok", "  y: max error 0 ok"]


def test_runtime_run_keeps_what_the_call_returns(
    tmp_path: Path, kernel_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """pypto.runtime.run returns the program: the created tensor the call returned is its last_result."""
    monkeypatch.setenv("PYPTO_CACHE_DIR", str(kernel_cache))
    a = np.arange(256, dtype=np.float32).reshape(16, 16)
    compiled = run(CreatedResult, a, config=RunConfig(save_kernels_dir=str(tmp_path / "out")))
    np.testing.assert_array_equal(compiled.last_result, 2 * a)
