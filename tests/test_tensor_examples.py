"""The tensor-level examples (issue 12) compile by ``ir.compile`` into the kernels, tasks and memory
their blocks call for; tests/sim/test_examples.py runs them on a2a3sim against the interpreter."""

from __future__ import annotations

from pathlib import Path

import pytest

import pypto.language as pl
from pypto import ir
from pypto.ir.enums import MemorySpace

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
Vec, Mat, Left, Right, Acc = MemorySpace.Vec, MemorySpace.Mat, MemorySpace.Left, MemorySpace.Right, MemorySpace.Acc

# Example -> (function names by kind, tasks per run, peak bytes per memory space).
EXPECTED = {
    # 64x128 and 128x64 FP16 operands in Mat, moved to Left/Right; the 64x64 FP32 product in Acc.
    "tensor_matmul": (
        {"AIC": ["main_incore_0"], "Orchestration": ["main"]}, 1,
        {Mat: 32768, Left: 16384, Right: 16384, Acc: 16384},
    ),
    # Two loaded 64x128 FP32 tiles (32 KiB each); add/exp/muls reuse them.
    "tensor_elementwise": ({"AIV": ["main_incore_0"], "Orchestration": ["main"]}, 1, {Vec: 65536}),
    # One kernel call per 32-row block: a 32x64 FP32 block and its exp.
    "tensor_row_loop": ({"AIV": ["main_incore_0"], "Orchestration": ["main"]}, 4, {Vec: 16384}),
    # The input and the reduction scratch (64x128 FP32) plus the 64x1 row max/sum (one 256-byte row each).
    "tensor_softmax": ({"AIV": ["main_incore_0"], "Orchestration": ["main"]}, 1, {Vec: 65792}),
    # Two batches of 32x64 @ 64x32 FP16: both 3-D operand windows in Mat (8 KiB each), one batch's
    # Left/Right slabs at a time, the two 32x32 FP32 products in Acc until they are stored.
    "tensor_batch_matmul": (
        {"AIC": ["main_incore_0"], "Orchestration": ["main"]}, 1,
        {Mat: 16384, Left: 4096, Right: 4096, Acc: 8192},
    ),
    # One Spmd launch of four blocks; each block holds a 32x64 FP32 block and its scaled copy.
    "tensor_spmd": (
        {"AIV": ["main_incore_0"], "Spmd": ["main_incore_0_spmd"], "Orchestration": ["main"]}, 1, {Vec: 16384},
    ),
    # A 32x64 FP32 block and its exp per call; the trip count depends on the dynamic N.
    "tensor_dyn_rows": ({"AIV": ["main_incore_0"], "Orchestration": ["main"]}, None, {Vec: 16384}),
    # Two 16x64 FP32 blocks per call (the product reuses one); N, the row pitch, is read off x.
    "tensor_dyn_cols": ({"AIV": ["main_incore_0"], "Orchestration": ["main"]}, None, {Vec: 8192}),
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_a_tensor_level_example_compiles_into_its_kernels(name: str, tmp_path: Path) -> None:
    compiled = ir.compile(pl.loads_program(str(EXAMPLES / f"{name}.py")), output_dir=tmp_path / name)
    kinds, tasks, peak = EXPECTED[name]
    assert compiled.final_dialect == "synced"
    assert {k: sorted(v) for k, v in compiled.functions_by_kind().items()} == kinds
    assert compiled.tasks().per_run == tasks
    assert compiled.peak_memory() == peak
    for kernel in kinds.get("AIV", []) + kinds.get("AIC", []):
        assert f"ptoas/{kernel}.pto" in compiled.files
