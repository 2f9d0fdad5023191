"""Kernels printed by the CCE emitter run on a2a3sim and match numpy (spec/codegen.md §3).

Each case parses a hand-written program in the final (``runtime``) form from
``tests/codegen/data/cce/``, prints its kernels with ``generate_cce`` into a copy of an artifact
tree whose orchestration and ``kernel_config.py`` are hand-written, and runs it.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

import pypto.language as pl
from pypto import DataType
from pypto.codegen.cce import generate_cce
from pypto.runtime import ScalarParam, SimulatorBuildError, TensorParam, run_on_simulator, simulator_missing_reason

if (_missing := simulator_missing_reason()) is not None:
    pytest.skip(f"simulator tier: {_missing} (scripts/install-simulator.sh installs it)", allow_module_level=True)

DATA = Path(__file__).resolve().parent / "data"
PROGRAMS = Path(__file__).resolve().parents[1] / "codegen" / "data" / "cce"


def _tree(tmp_path: Path, program: str, tree: Path) -> Path:
    """A copy of ``tree`` with the generated kernels of ``program`` in place of any it had."""
    out = tmp_path / tree.name
    shutil.copytree(tree, out, ignore=shutil.ignore_patterns("kernels"))
    for rel, text in generate_cce(pl.loads_program(PROGRAMS / f"{program}.py")).items():
        path = out / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return out


def _rng(seed: int) -> np.random.Generator:
    return np.random.default_rng(seed)


def test_tile_add(tmp_path: Path, kernel_cache: Path, record_timing) -> None:
    rng = _rng(0)
    a, b = (rng.standard_normal((128, 128), dtype=np.float32) for _ in range(2))
    c = np.full((128, 128), np.nan, dtype=np.float32)
    params = [TensorParam(n, DataType.FP32, (128, 128)) for n in ("a", "b", "c")]
    run = run_on_simulator(_tree(tmp_path, "tile_add", DATA / "tile_add"), [a, b, c], params, cache_dir=kernel_cache)
    record_timing("cce tile_add", run)
    np.testing.assert_array_equal(c, a + b)


def test_row_blocks_with_a_scalar_row_offset(tmp_path: Path, kernel_cache: Path, record_timing) -> None:
    rng = _rng(1)
    a, b = (rng.standard_normal((128, 128), dtype=np.float32) for _ in range(2))
    c = np.full((128, 128), np.nan, dtype=np.float32)
    params = [TensorParam("a", DataType.FP32, (128, 128)), TensorParam("b", DataType.FP32, (128, 128)),
              ScalarParam("alpha", DataType.FP32), TensorParam("c", DataType.FP32, (128, 128))]
    tree = _tree(tmp_path, "row_blocks", DATA / "row_blocks")
    run = run_on_simulator(tree, [a, b, 0.5, c], params, cache_dir=kernel_cache)
    record_timing("cce row_blocks", run)
    np.testing.assert_array_equal(c, (a + b) * np.float32(0.5))


def test_row_softmax_with_scratch_tiles(tmp_path: Path, kernel_cache: Path, record_timing) -> None:
    x = _rng(2).standard_normal((64, 64), dtype=np.float32)
    y = np.full((64, 64), np.nan, dtype=np.float32)
    params = [TensorParam("x", DataType.FP32, (64, 64)), TensorParam("y", DataType.FP32, (64, 64))]
    run = run_on_simulator(_tree(tmp_path, "row_softmax", DATA / "cce" / "row_softmax"), [x, y], params,
                           cache_dir=kernel_cache)
    record_timing("cce row_softmax", run)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(y, e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-7)


def test_fp16_matmul_through_mat_left_right_acc(tmp_path: Path, kernel_cache: Path, record_timing) -> None:
    rng = _rng(3)
    a, b = (rng.standard_normal((64, 64)).astype(np.float16) for _ in range(2))
    c_move, c_split = (np.full((64, 64), np.nan, dtype=np.float32) for _ in range(2))
    params = [TensorParam("a", DataType.FP16, (64, 64)), TensorParam("b", DataType.FP16, (64, 64)),
              TensorParam("c_move", DataType.FP32, (64, 64)), TensorParam("c_split", DataType.FP32, (64, 64))]
    run = run_on_simulator(_tree(tmp_path, "matmul", DATA / "cce" / "matmul"), [a, b, c_move, c_split], params,
                           cache_dir=kernel_cache)
    record_timing("cce matmul", run)
    want = a.astype(np.float32) @ b.astype(np.float32)
    np.testing.assert_allclose(c_move, want, rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(c_split, want, rtol=1e-5, atol=1e-4)


def test_scalar_param_and_a_tile_carried_through_iter_args(tmp_path: Path, kernel_cache: Path, record_timing) -> None:
    x = _rng(4).standard_normal((256, 64), dtype=np.float32)
    out = np.full((64, 64), np.nan, dtype=np.float32)
    params = [TensorParam("x", DataType.FP32, (256, 64)), ScalarParam("alpha", DataType.FP32),
              TensorParam("out", DataType.FP32, (64, 64))]
    run = run_on_simulator(_tree(tmp_path, "scaled_sum", DATA / "cce" / "scaled_sum"), [x, 0.25, out], params,
                           cache_dir=kernel_cache)
    record_timing("cce scaled_sum", run)
    want = np.zeros((64, 64), np.float32)
    for i in range(4):
        want += x[64 * i:64 * (i + 1)] * np.float32(0.25)
    np.testing.assert_allclose(out, want, rtol=1e-6, atol=1e-6)


def test_a_generated_kernel_that_fails_to_compile_shows_its_file_and_line(tmp_path: Path) -> None:
    # pto-isa's row-expand ops take no INT8 tiles and neither does the IR: an INT16 kernel retyped to
    # INT8 stands in for a compiler bug, so the C++ compiler is the one to say no.
    tree = _tree(tmp_path, "int8_row_expand", DATA / "cce" / "int8_row_expand")
    kernel = tree / "kernels" / "aiv" / "int8_row_expand.cpp"
    kernel.write_text(kernel.read_text().replace("int16_t", "int8_t"))
    line = kernel.read_text().splitlines().index("  TROWEXPANDSUB(d, t, w);") + 1
    x, y = np.zeros((64, 64), np.int8), np.zeros((64, 64), np.int8)
    with pytest.raises(SimulatorBuildError) as info:
        run_on_simulator(tree, [x, np.zeros((64, 1), np.int8), y], cache_dir=tmp_path / "cache")
    err = info.value
    assert "TRowExpandOp: unsupported data type" in err.message
    assert f"{kernel}:{line}:" in err.message  # the generated line that instantiates the op
    assert err.output_dir == tree and kernel.is_file()
