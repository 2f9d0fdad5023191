"""Generated orchestration C++ and kernel_config.py, run on a2a3sim with hand-written kernels.

Each program of tests/codegen/orch_programs.py gets an artifact tree: the orchestration and the
kernel table printed by the generators, the kernels copied from tests/sim/data (the CCE generator's
job, checked elsewhere). The simulator's outputs must equal numpy's.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import numpy as np
import pytest

from pypto.runtime import ScalarParam, SimulatorBuildError, TensorParam, run_on_simulator, simulator_missing_reason

if (_missing := simulator_missing_reason()) is not None:
    pytest.skip(f"simulator tier: {_missing} (scripts/install-simulator.sh installs it)", allow_module_level=True)

import pypto.language as pl  # noqa: E402
from pypto import ir  # noqa: E402
from pypto.codegen.kernel_config import generate_kernel_config, kernel_source  # noqa: E402
from pypto.codegen.orchestration import generate_orchestration, orchestration_function  # noqa: E402
from pypto.ir.function import Program  # noqa: E402
from pypto.ir.types import TensorType  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "codegen"))
import orch_programs as programs  # noqa: E402

DATA = Path(__file__).resolve().parent / "data"


def write_tree(program: Program, kernels: Path, out: Path) -> Path:
    """The artifact tree of ``program`` in ``out``: generated orchestration and kernel_config.py,
    kernels copied from ``kernels`` (a tests/sim/data tree)."""
    for path, text in generate_orchestration(program).items():
        (out / path).parent.mkdir(parents=True, exist_ok=True)
        (out / path).write_text(text)
    (out / "kernel_config.py").write_text(generate_kernel_config(program))
    for func in program.functions.values():
        if func.func_type.name in ("AIV", "AIC"):
            target = out / kernel_source(func)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(kernels / kernel_source(func), target)
    return out


def params_of(program: Program) -> list[TensorParam | ScalarParam]:
    orch = orchestration_function(program)
    assert orch is not None
    return [TensorParam(p.name_hint, p.type.dtype, tuple(d.value for d in p.type.shape))
            if isinstance(p.type, TensorType) else ScalarParam(p.name_hint, p.type.dtype)
            for p in orch.params]


def arrays(seed: int, *shapes: tuple[int, ...]) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s, dtype=np.float32) for s in shapes]


def test_tile_add(tmp_path: Path, kernel_cache: Path, record_timing) -> None:
    tree = write_tree(programs.TileAdd, DATA / "tile_add", tmp_path)
    a, b = arrays(1, (128, 128), (128, 128))
    c = np.full((128, 128), np.nan, dtype=np.float32)
    run = run_on_simulator(tree, [a, b, c], params_of(programs.TileAdd), cache_dir=kernel_cache)
    record_timing("generated tile_add", run)
    np.testing.assert_array_equal(c, a + b)


def test_row_blocks_loop_with_a_scalar_row_offset(tmp_path: Path, kernel_cache: Path, record_timing) -> None:
    tree = write_tree(programs.RowBlocks, DATA / "row_blocks", tmp_path)
    a, b = arrays(2, (128, 128), (128, 128))
    c = np.full((128, 128), np.nan, dtype=np.float32)
    run = run_on_simulator(tree, [a, b, 0.5, c], params_of(programs.RowBlocks), cache_dir=kernel_cache)
    record_timing("generated row_blocks", run)
    np.testing.assert_array_equal(c, (a + b) * np.float32(0.5))


def test_two_kernels_chained_through_an_internal_tensor(tmp_path: Path, kernel_cache: Path, record_timing) -> None:
    tree = write_tree(programs.Chain, DATA / "chain", tmp_path)
    a, b = arrays(3, (128, 128), (128, 128))
    out = np.full((128, 128), np.nan, dtype=np.float32)
    run = run_on_simulator(tree, [a, b, -1.5, out], params_of(programs.Chain), cache_dir=kernel_cache)
    record_timing("generated chain", run)
    np.testing.assert_array_equal(out, (a + b) * np.float32(-1.5))


def test_a_compile_error_in_generated_orchestration_names_the_file_and_line(tmp_path: Path, kernel_cache: Path) -> None:
    tree = write_tree(programs.TileAdd, DATA / "tile_add", tmp_path)
    source = tree / "orchestration" / "main.cpp"
    text = source.read_text().replace("params_t0.add_input(ext_b);", "params_t0.add_input(ext_missing);")
    source.write_text(text)
    line = text.splitlines().index("        params_t0.add_input(ext_missing);") + 1
    a, b, c = (np.zeros((128, 128), np.float32) for _ in range(3))
    with pytest.raises(SimulatorBuildError) as err:
        run_on_simulator(tree, [a, b, c], params_of(programs.TileAdd), cache_dir=kernel_cache)
    assert f"main.cpp:{line}" in str(err.value) and "ext_missing" in str(err.value)
    assert source.exists()  # the output folder stays for inspection


def test_every_orchestration_form_compiles_against_the_runtime_api(tmp_path: Path, kernel_cache: Path) -> None:
    """The snapshot-only program (rebind carries, views, element access, an if with results, a
    manual scope with TaskId dependencies) compiles with the PTO2 headers."""
    from pypto.runtime import ArtifactTree, KernelCache, OrchestrationEntry, find_simulator
    from pypto.runtime.build import build_artifacts

    (path, text), = generate_orchestration(programs.Features).items()
    source = tmp_path / path
    source.parent.mkdir(parents=True)
    source.write_text(text)
    tree = ArtifactTree(root=tmp_path, runtime="tensormap_and_ringbuffer",
                        orchestration=OrchestrationEntry(source=source), kernels=())  # the orchestration alone
    built = build_artifacts(tree, find_simulator(), KernelCache(kernel_cache))
    assert built.orchestration


ROW_SLICE = '''
import pypto.language as pl

@pl.program
class RowSlice:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[64, 128], pl.FP32], out: pl.Out[pl.Tensor[[64, 128], pl.FP32]]) -> pl.Tensor[[64, 128], pl.FP32]:
        t = pl.load(x, [0, 0], [64, 128])
        u = pl.add(t, t)
        out = pl.store(u, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[128, 128], pl.FP32], out: pl.Out[pl.Tensor[[64, 128], pl.FP32]]) -> pl.Tensor[[64, 128], pl.FP32]:
        v = pl.slice(x, [64, 128], [64, 0])
        out = self.k(v, out)
        return out
'''


def test_a_block_of_whole_rows_sliced_for_a_kernel_reads_those_rows(tmp_path: Path, kernel_cache: Path) -> None:
    source = tmp_path / "row_slice.py"
    source.write_text(ROW_SLICE)
    compiled = ir.compile(pl.loads_program(str(source)), output_dir=tmp_path / "tree")
    (x,) = arrays(5, (128, 128))
    np.testing.assert_array_equal(compiled.run(x, cache_dir=kernel_cache), x[64:] + x[64:])
