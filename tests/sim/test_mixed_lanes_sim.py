"""An unsplit mixed kernel on a2a3sim runs its vector kernel on both AIV lanes (issue 30): lane 0
computes, lane 1 replays the pipe traffic (SplitVectorKernel). With four round trips through
two-slot pipes both ways, a slot is reused only after both lanes freed it, and the result equals the
interpreter's."""

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


def test_a_two_way_mixed_loop_runs_on_both_lanes(tmp_path: Path, kernel_cache: Path, record_timing) -> None:
    compiled = ir.compile(pl.parse("import pypto.language as pl\n" + MIXED_ATTENTION), output_dir=tmp_path / "att")
    orch = (tmp_path / "att" / "orchestration" / "main.cpp").read_text()
    assert "MixedKernels mixed_0 = {0, 1, 1};" in orch
    vector = (tmp_path / "att" / "kernels" / "aiv" / "main_incore_0_aiv.cpp").read_text()
    assert "if (lane == 0) {" in vector and "} else {" in vector
    rng = np.random.default_rng(7)
    q = (rng.standard_normal((64, 64)) * 0.3).astype(np.float16)
    k = (rng.standard_normal((256, 64)) * 0.3).astype(np.float16)
    v = rng.standard_normal((256, 64)).astype(np.float16)
    got = compiled.run(q, k, v, cache_dir=kernel_cache)
    record_timing("mixed_attention_two_lanes", compiled.last_run)
    np.testing.assert_allclose(got, compiled.interpret(q, k, v), rtol=2e-3, atol=2e-3)
