"""Property (c) of the differential tests: generated programs (tests/differential/kernel_gen.py)
compiled by ``ir.compile`` and run on a2a3sim give the interpreter's outputs within dtype tolerance.

CI runs a fixed sample chosen to cover the generator's constructs (a chained pair of kernels as
``pl.submit`` tasks with ``deps=`` and row reductions; a branch on a scalar parameter; a matmul
accumulated twice; tensor ops in a ``pl.at`` block inside an orchestration loop; a ``pl.spmd`` body); ``tests/differential/long_run.py --simulator N`` runs more.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import pypto.language as pl
from pypto import ir
from pypto.interp.tolerance import output_tolerances
from pypto.ir.enums import ParamDirection
from pypto.runtime import simulator_missing_reason

if (_missing := simulator_missing_reason()) is not None:
    pytest.skip(f"simulator tier: {_missing} (scripts/install-simulator.sh installs it)", allow_module_level=True)

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "differential"))
from kernel_gen import generate  # noqa: E402

# seed -> constructs its program must hold (checked, so a generator change cannot empty the sample)
SAMPLE = {
    46: ("pl.submit(", "deps=[t0]", "pl.row_", "pl.exp("),
    27: ("if flag > ", "pl.row_", "def k1("),
    21: ("pl.matmul_acc(",),
    41: ("with pl.at(", "for i in pl.range(", "pl.row_"),
    12: ("for i in pl.spmd(", "pl.row_"),
}


def run_and_compare(seed: int, output_dir: Path, kernel_cache: Path) -> float:
    """Compile the program of ``seed``, run it on the simulator and compare every output with the
    interpreter's; returns the largest absolute error."""
    generated = generate(seed)
    compiled = ir.compile(pl.parse(generated.text), output_dir=output_dir, dump_passes=False)
    args = generated.short_arrays(seed=seed)
    got = compiled.run(*args, cache_dir=kernel_cache)
    want = compiled.interpret(*args)
    entry = compiled.entry_function()
    outs = [p for p, d in zip(entry.params, entry.param_directions) if d == ParamDirection.Out]
    got_all = got if isinstance(got, tuple) else (got,)
    want_all = want if isinstance(want, tuple) else (want,)
    worst = 0.0
    tolerances = output_tolerances(compiled.program, entry)
    for param, g, w in zip(outs, got_all, want_all, strict=True):
        rtol, atol = tolerances[param.name_hint]
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, err_msg=f"seed {seed}: output {param.name_hint}")
        worst = max(worst, float(np.max(np.abs(g.astype(np.float64) - w.astype(np.float64)))))
    return worst


@pytest.mark.parametrize("seed", sorted(SAMPLE))
def test_a_generated_program_on_the_simulator_equals_the_interpreter(seed: int, tmp_path: Path, kernel_cache: Path) -> None:
    text = generate(seed).text
    for construct in SAMPLE[seed]:
        assert construct in text, f"seed {seed} no longer generates {construct!r}"
    run_and_compare(seed, tmp_path / "out", kernel_cache)
