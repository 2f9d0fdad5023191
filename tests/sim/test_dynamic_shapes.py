"""Dynamic shapes on a2a3sim, equal to the interpreter: slices whose symbolic extents simplify
(``x[:, c + 64:c + 128]`` is 64 wide), ``pypto run`` of a program with a dynamic row count sized by
its ``--inputs`` arrays, and valid shapes with dynamic extents in ``pl.TensorView``."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import pypto.language as pl
from pypto import ir
from pypto.cli import main
from pypto.runtime import simulator_missing_reason

if (_missing := simulator_missing_reason()) is not None:
    pytest.skip(f"simulator tier: {_missing} (scripts/install-simulator.sh installs it)", allow_module_level=True)

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

SYMBOLIC_SLICE = """
import pypto.language as pl


@pl.program
class SymbolicSlice:
    @pl.function
    def main(self, x: pl.Tensor[[16, 256], pl.FP32], y: pl.Tensor[[16, 64], pl.FP32], c: pl.Scalar[pl.INDEX],
             out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            t = x[:, c + 64:c + 128]
            u = pl.slice(x, [16, c + 128 - (c + 64)], [0, c + 128])
            out = pl.assemble(out, pl.add(pl.mul(t, u), y), [0, 0])
        return out
"""


def test_slice_with_a_symbolic_extent_runs_as_the_interpreter_says(tmp_path: Path, kernel_cache: Path) -> None:
    compiled = ir.compile(pl.parse(SYMBOLIC_SLICE), output_dir=tmp_path / "symbolic_slice")
    rng = np.random.default_rng(29)
    x = rng.standard_normal((16, 256)).astype(np.float32)
    y = rng.standard_normal((16, 64)).astype(np.float32)
    got = np.zeros((16, 64), np.float32)
    compiled.run(x, y, 64, got, cache_dir=kernel_cache)
    want = compiled.interpret(x, y, 64)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(want, x[:, 128:192] * x[:, 192:256] + y, rtol=1e-6)


def test_pypto_run_sizes_a_dynamic_program_from_its_inputs(
    tmp_path: Path, kernel_cache: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """N = 80 rows: two full 32-row blocks and a 16-row tail; the output is sized from x."""
    monkeypatch.setenv("PYPTO_CACHE_DIR", str(kernel_cache))
    inputs = tmp_path / "in.npz"
    np.savez(inputs, x=np.random.default_rng(3).standard_normal((80, 64)).astype(np.float32))
    argv = ["run", str(EXAMPLES / "tensor_dyn_rows.py"), "--inputs", str(inputs), "-o", str(tmp_path / "out")]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "  out: max error " in out and out.rstrip().endswith(" ok")
