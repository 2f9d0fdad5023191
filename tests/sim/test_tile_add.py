"""The hand-written 128x128 FP32 tile add tree (spec/codegen.md §2, §3) runs on a2a3sim and matches numpy."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from pypto import DataType
from pypto.runtime import (
    SimulatorArgumentError,
    SimulatorBuildError,
    TensorParam,
    run_on_simulator,
    simulator_missing_reason,
)

if (_missing := simulator_missing_reason()) is not None:
    pytest.skip(f"simulator tier: {_missing} (scripts/install-simulator.sh installs it)", allow_module_level=True)

TILE_ADD = Path(__file__).resolve().parent / "data" / "tile_add"
PARAMS = [TensorParam(name, DataType.FP32, (128, 128)) for name in ("a", "b", "c")]


def _inputs(seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return rng.standard_normal((128, 128), dtype=np.float32), rng.standard_normal((128, 128), dtype=np.float32)


def test_tile_add_equals_numpy(kernel_cache: Path, record_timing) -> None:
    a, b = _inputs(0)
    c = np.full((128, 128), np.nan, dtype=np.float32)
    a0, b0 = a.copy(), b.copy()
    run = run_on_simulator(TILE_ADD, [a, b, c], PARAMS, cache_dir=kernel_cache)
    record_timing("tile_add (first run)", run)
    np.testing.assert_array_equal(c, a + b)
    np.testing.assert_array_equal(a, a0)
    np.testing.assert_array_equal(b, b0)
    assert [record.unit for record in run.builds] == ["orchestration", "tile_add"]


def test_second_run_takes_every_unit_from_the_cache(kernel_cache: Path, record_timing) -> None:
    run_on_simulator(TILE_ADD, [*_inputs(1), np.zeros((128, 128), np.float32)], PARAMS, cache_dir=kernel_cache)
    a, b = _inputs(2)
    c = np.zeros((128, 128), np.float32)
    run = run_on_simulator(TILE_ADD, [a, b, c], PARAMS, cache_dir=kernel_cache)
    record_timing("tile_add (cached)", run)
    assert all(record.cached for record in run.builds)
    np.testing.assert_array_equal(c, a + b)


def test_without_params_the_arrays_dtypes_are_used(kernel_cache: Path) -> None:
    a, b = _inputs(3)
    c = np.zeros((128, 128), np.float32)
    run_on_simulator(TILE_ADD, [a, b, c], cache_dir=kernel_cache)
    np.testing.assert_array_equal(c, a + b)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (lambda a, b, c: [a, b], "the program takes 3 arguments (a, b, c), got 2"),
        (lambda a, b, c: [a, b.astype(np.float16), c], "b must have dtype float32 (fp32), got float16"),
        (lambda a, b, c: [a, b, c[:64]], "c must have shape [128, 128], got [64, 128]"),
    ],
    ids=["count", "dtype", "shape"],
)
def test_bad_arguments_fail_before_anything_is_built(tmp_path: Path, args, message: str) -> None:
    a, b = _inputs(4)
    c = np.zeros((128, 128), np.float32)
    with pytest.raises(SimulatorArgumentError) as info:
        run_on_simulator(TILE_ADD, args(a, b, c), PARAMS, cache_dir=tmp_path / "cache")
    assert info.value.message == message
    assert not (tmp_path / "cache").exists()  # nothing was compiled
    assert not c.any()


def test_a_kernel_syntax_error_shows_the_generated_file_and_line(tmp_path: Path) -> None:
    tree = tmp_path / "tile_add"
    shutil.copytree(TILE_ADD, tree)
    kernel = tree / "kernels" / "aiv" / "tile_add.cpp"
    lines = kernel.read_text().splitlines()
    line = lines.index("  TADD(tc, ta, tb);") + 1
    lines[line - 1] = "  TADD(tc, ta, tb)"
    kernel.write_text("\n".join(lines) + "\n")
    a, b = _inputs(5)
    c = np.zeros((128, 128), np.float32)
    with pytest.raises(SimulatorBuildError) as info:
        run_on_simulator(tree, [a, b, c], PARAMS, cache_dir=tmp_path / "cache")
    err = info.value
    assert err.span.filename == str(kernel)
    assert err.span.begin_line == line
    assert f"{kernel}:{line}:" in err.message
    assert "expected ';'" in err.message
    assert "  TADD(tc, ta, tb)\n" in err.message  # the offending source line is quoted
    assert err.output_dir == tree and kernel.is_file()  # the tree stays for inspection
    assert not c.any()
