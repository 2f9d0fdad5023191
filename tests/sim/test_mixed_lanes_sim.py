"""A two-way mixed loop on a2a3sim (issue 30): attention's QK^T on the cube, exp on the vector, PV on
the cube, four round trips through two-slot pipes both ways. The vector kernel runs on both AIV lanes
(lane 0 computes, lane 1 replays the pipe traffic, SplitVectorKernel). pto-isa's CPU model once handed
the vector a later cube->vector tile before an earlier one when the shared ring wrapped (a third to a
half of the runs); CCE prints a two-way pipe as one one-way pipe per direction, and every run equals
the interpreter."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from shared_programs import MIXED_ATTENTION

import pypto.language as pl
from pypto import ir
from pypto.runtime import simulator_missing_reason

if (_missing := simulator_missing_reason()) is not None:
    pytest.skip(f"simulator tier: {_missing} (scripts/install-simulator.sh installs it)", allow_module_level=True)

# The fault depended on how the two kernels' threads interleave: several runs make a regression show.
_RUNS = 8


def test_a_two_way_mixed_loop_equals_the_interpreter_on_every_run(tmp_path: Path, kernel_cache: Path,
                                                                   record_timing) -> None:
    compiled = ir.compile(pl.parse("import pypto.language as pl\n" + MIXED_ATTENTION), output_dir=tmp_path / "att")
    orch = (tmp_path / "att" / "orchestration" / "main.cpp").read_text()
    assert "MixedKernels mixed_0 = {0, 1, 1};" in orch
    vector = (tmp_path / "att" / "kernels" / "aiv" / "main_incore_0_aiv.cpp").read_text()
    assert "if (lane == 0) {" in vector and "} else {" in vector
    rng = np.random.default_rng(7)
    q = (rng.standard_normal((64, 64)) * 0.3).astype(np.float16)
    k = (rng.standard_normal((256, 64)) * 0.3).astype(np.float16)
    v = rng.standard_normal((256, 64)).astype(np.float16)
    want = compiled.interpret(q, k, v)
    for run in range(_RUNS):
        got = compiled.run(q, k, v, cache_dir=kernel_cache)
        np.testing.assert_allclose(got, want, rtol=2e-3, atol=2e-3, err_msg=f"run {run + 1} of {_RUNS}")
    record_timing("mixed_attention_two_way", compiled.last_run)
