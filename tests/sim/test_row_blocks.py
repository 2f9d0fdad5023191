"""An orchestration loop submitting one AIV task per 64-row block, with a scalar row offset and an FP32
scalar parameter passed through to the kernel (spec/codegen.md §2.3, §2.6, §3)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from pypto import DataType
from pypto.runtime import ScalarParam, TensorParam, run_on_simulator, simulator_missing_reason

if (_missing := simulator_missing_reason()) is not None:
    pytest.skip(f"simulator tier: {_missing} (scripts/install-simulator.sh installs it)", allow_module_level=True)

ROW_BLOCKS = Path(__file__).resolve().parent / "data" / "row_blocks"
PARAMS = [
    TensorParam("a", DataType.FP32, (128, 128)),
    TensorParam("b", DataType.FP32, (128, 128)),
    ScalarParam("alpha", DataType.FP32),
    TensorParam("c", DataType.FP32, (128, 128)),
]


def test_each_block_is_scaled_by_alpha(kernel_cache: Path, record_timing) -> None:
    rng = np.random.default_rng(7)
    a = rng.standard_normal((128, 128), dtype=np.float32)
    b = rng.standard_normal((128, 128), dtype=np.float32)
    c = np.full((128, 128), np.nan, dtype=np.float32)
    run = run_on_simulator(ROW_BLOCKS, [a, b, 0.5, c], PARAMS, cache_dir=kernel_cache)
    record_timing("row_blocks", run)
    np.testing.assert_array_equal(c, (a + b) * np.float32(0.5))
