"""Orchestrations compiled with ``analyze_auto_scopes_for_deps=True`` run on a2a3sim and give what the
interpreter and the default build give: the compiler's explicit edges order the tasks as the
runtime's automatic tracking does."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from auto_deps_programs import DIAMOND, LOOP, SEVERAL_READERS

import pypto.language as pl
from pypto import ir
from pypto.compiled import parameters
from pypto.ir.enums import ParamDirection
from pypto.ir.numpy_dtypes import numpy_dtype
from pypto.runtime import simulator_missing_reason

if (_missing := simulator_missing_reason()) is not None:
    pytest.skip(f"simulator tier: {_missing} (scripts/install-simulator.sh installs it)", allow_module_level=True)

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
# Program -> whether the pass turns its body into a compiler-owned manual scope.
CASES = {"chained": True, "diamond": True, "loop": True, "several_readers": False}


def _program(name: str) -> ir.Program:
    if name == "chained":
        return pl.loads_program(str(EXAMPLES / "chained.py"))
    return pl.parse({"diamond": DIAMOND, "loop": LOOP, "several_readers": SEVERAL_READERS}[name])


@pytest.mark.parametrize("name", sorted(CASES))
def test_derived_edges_give_the_interpreter_and_default_results(
    name: str, tmp_path: Path, kernel_cache: Path, record_timing
) -> None:
    program = _program(name)
    derived = ir.compile(program, output_dir=tmp_path / "on", dump_passes=False, analyze_auto_scopes_for_deps=True)
    default = ir.compile(program, output_dir=tmp_path / "off", dump_passes=False)
    [orch] = [f for f in derived.files if f.startswith("orchestration/")]
    text = (tmp_path / "on" / orch).read_text()
    assert ("PTO2ScopeMode::MANUAL" in text) is CASES[name]
    assert (text == (tmp_path / "off" / orch).read_text()) is not CASES[name]
    entry = derived.entry_function()
    rng = np.random.default_rng(3)
    inputs = [rng.standard_normal(p.shape).astype(numpy_dtype(p.dtype))
              for p, d in zip(parameters(entry), entry.param_directions) if d != ParamDirection.Out]
    want = derived.interpret(*[a.copy() for a in inputs])
    got_on = derived.run(*[a.copy() for a in inputs], cache_dir=kernel_cache)
    got_off = default.run(*[a.copy() for a in inputs], cache_dir=kernel_cache)
    np.testing.assert_array_equal(got_on, got_off)
    np.testing.assert_allclose(got_on, want, rtol=1e-6, atol=1e-6)
    record_timing(f"{name}: analyze_auto_scopes_for_deps", derived.last_run)
