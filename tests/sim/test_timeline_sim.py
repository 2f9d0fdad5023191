"""Scheduling properties proved with the chip swimlane capture of real a2a3sim runs (issue 34).

A manual-scope pipeline of M x N two-stage tiles: every stage-2 task starts after its stage-1 task
ended, and nothing else orders them. A ``pl.parallel`` loop: its iterations are ready together, run
on several cores and overlap in time; a second loop reading all of the first one's output starts after
every task of it ended. The record fields simpler writes at each swimlane level.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import pypto.language as pl
from pypto import ir
from pypto.runtime import CaptureError, ChipWorker, RunConfig, simulator_missing_reason
from pypto.timeline import edge_runs, edge_violations, fence_violations, load_timeline, overlapping_pairs

if (_missing := simulator_missing_reason()) is not None:
    pytest.skip(f"simulator tier: {_missing} (scripts/install-simulator.sh installs it)", allow_module_level=True)

M, N = 2, 3
T = f"pl.Tensor[[{M * 32}, {N * 64}], pl.FP32]"
PIPELINE = f"""
import pypto.language as pl


@pl.program
class Pipeline:
    @pl.function(type=pl.FunctionType.InCore)
    def stage1(self, x: {T}, mid: pl.InOut[{T}],
               row: pl.Scalar[pl.INDEX], col: pl.Scalar[pl.INDEX]) -> {T}:
        t: pl.Tile[[32, 64], pl.FP32] = pl.load(x, [row, col], [32, 64])
        mid = pl.store(pl.mul(t, 2.0), [row, col], mid)
        return mid

    @pl.function(type=pl.FunctionType.InCore)
    def stage2(self, mid: {T}, out: pl.InOut[{T}],
               row: pl.Scalar[pl.INDEX], col: pl.Scalar[pl.INDEX]) -> {T}:
        t: pl.Tile[[32, 64], pl.FP32] = pl.load(mid, [row, col], [32, 64])
        out = pl.store(pl.add(t, 1.0), [row, col], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: {T}, mid: pl.Out[{T}],
             out: pl.Out[{T}]) -> {T}:
        with pl.manual_scope():
            for i in pl.range({M}):
                for j in pl.range({N}):
                    mid, t1 = pl.submit(self.stage1, x, mid, i * 32, j * 64)
                    out, _ = pl.submit(self.stage2, mid, out, i * 32, j * 64, deps=[t1])
        return out
"""

# Phase 0: each iteration is long enough (a 2000-step loop) for the host to run several simulated cores at
# once. Phase 1 reads all of phase 0's output, so each of its tasks waits for every task of phase 0.
PARALLEL = """
import pypto.language as pl


@pl.program
class Parallel:
    @pl.function
    def main(self, x: pl.Tensor[[128, 256], pl.FP32], mid: pl.Out[pl.Tensor[[128, 256], pl.FP32]],
             out: pl.Out[pl.Tensor[[128, 256], pl.FP32]]) -> pl.Tensor[[128, 256], pl.FP32]:
        for i in pl.parallel(4):
            with pl.at(level=pl.Level.CORE_GROUP):
                t: pl.Tensor[[32, 256], pl.FP32] = pl.slice(x, [32, 256], [i * 32, 0])
                for k in pl.range(2000):
                    t = pl.add(pl.mul(t, 0.5), 0.25)
                mid = pl.assemble(mid, t, [i * 32, 0])
        for j in pl.parallel(2):
            with pl.at(level=pl.Level.CORE_GROUP):
                u: pl.Tensor[[64, 256], pl.FP32] = pl.slice(mid, [64, 256], [64 - j * 64, 0])
                out = pl.assemble(out, pl.add(u, 1.0), [j * 64, 0])
        return out
"""

CAPTURE = RunConfig(enable_chip_swimlane=4, enable_dep_gen=True)


def _compile(source: str, folder: Path) -> ir.CompiledProgram:
    return ir.compile(pl.parse(source, filename="timeline.py"), output_dir=folder)


@pytest.fixture(scope="module")
def pipeline(tmp_path_factory: pytest.TempPathFactory) -> ir.CompiledProgram:
    return _compile(PIPELINE, tmp_path_factory.mktemp("pipeline") / "out")


def _run_pipeline(pipeline: ir.CompiledProgram, config: RunConfig, cache: Path) -> None:
    x = np.random.default_rng(1).standard_normal((M * 32, N * 64)).astype(np.float32)
    mid, out = np.zeros_like(x), np.zeros_like(x)
    pipeline.run(x, mid, out, config=config, cache_dir=cache)
    np.testing.assert_array_equal(out, x * 2 + 1)


def test_each_stage_2_task_starts_after_its_stage_1_task_ends(pipeline: ir.CompiledProgram, kernel_cache: Path) -> None:
    _run_pipeline(pipeline, CAPTURE, kernel_cache)
    timeline = load_timeline(pipeline.output_dir)
    stage1, stage2 = timeline.of_kernel("stage1"), timeline.of_kernel("stage2")
    assert len(stage1) == len(stage2) == M * N and len(timeline.tasks) == 2 * M * N
    pairs = edge_runs(timeline)
    # The explicit deps are the only edges: each stage-2 task waits for its own stage-1 task.
    assert sorted((a.kernel, b.kernel) for a, b in pairs) == [("stage1", "stage2")] * (M * N)
    assert sorted(b.task_id - a.task_id for a, b in pairs) == [1] * (M * N)
    assert edge_violations(timeline) == []


@pytest.mark.parametrize("level", [1, 2, 3, 4])
def test_the_record_fields_of_each_level(pipeline: ir.CompiledProgram, kernel_cache: Path, level: int) -> None:
    _run_pipeline(pipeline, RunConfig(enable_chip_swimlane=level, enable_dep_gen=True), kernel_cache)
    dfx = pipeline.output_dir / "dfx_outputs"
    records = json.loads((dfx / "chip_swimlane_records.json").read_text())
    assert records["chip_swimlane_level"] == level
    assert {"clock_freq_hz", "num_cores", "core_types"} <= set(records["metadata"])
    assert len(records["aicore_tasks"]) == 2 * M * N and all(len(row) == 6 for row in records["aicore_tasks"])
    assert len(records["aicpu_tasks"]) == (2 * M * N if level >= 2 else 0)
    assert bool(records.get("aicpu_scheduler_phases")) == (level >= 3)
    assert bool(records.get("aicpu_orchestrator_phases")) == (level >= 4)
    deps = json.loads((dfx / "deps.json").read_text())
    assert {"tasks", "tensors", "edges"} <= set(deps) and len(deps["tasks"]) == 2 * M * N
    timeline = load_timeline(pipeline.output_dir)
    assert all((t.dispatch_us is None) == (level == 1) for t in timeline.tasks)
    assert edge_violations(timeline) == []


def test_parallel_iterations_run_on_several_cores_at_once_and_the_next_phase_after_them(
    tmp_path: Path, kernel_cache: Path
) -> None:
    compiled = _compile(PARALLEL, tmp_path / "out")
    x = np.random.default_rng(2).standard_normal((128, 256)).astype(np.float32)
    mid, out = np.zeros_like(x), np.zeros_like(x)
    compiled.run(x, mid, out, config=CAPTURE, cache_dir=kernel_cache)
    np.testing.assert_allclose(out, np.concatenate([mid[64:], mid[:64]]) + 1, rtol=1e-6)
    timeline = load_timeline(compiled.output_dir)
    phase0, phase1 = timeline.of_kernel("main_incore_0"), timeline.of_kernel("main_incore_1")
    assert len(phase0) == 4 and len(phase1) == 2 and len(timeline.tasks) == 6
    # No edge among the iterations of a phase; each task of phase 1 waits for every task of phase 0.
    assert sorted((a.kernel, b.kernel) for a, b in edge_runs(timeline)) == [("main_incore_0", "main_incore_1")] * 8
    assert len({t.core_id for t in phase0}) >= 2
    # The runtime made every phase-0 iteration ready at once: all were dispatched before the first one finished.
    assert max(t.dispatch_us for t in phase0) < min(t.finish_us for t in phase0)
    assert overlapping_pairs(phase0)
    assert fence_violations(phase0, phase1) == [] and edge_violations(timeline) == []


def test_a_run_after_a_level_4_capture_runs(pipeline: ir.CompiledProgram, kernel_cache: Path) -> None:
    """simpler's worker hangs in a plain run after a level-4 capture; pypto replaces the worker after one."""
    _run_pipeline(pipeline, CAPTURE, kernel_cache)
    _run_pipeline(pipeline, RunConfig(), kernel_cache)


def test_a_chip_worker_refuses_a_level_4_capture(pipeline: ir.CompiledProgram, kernel_cache: Path) -> None:
    with ChipWorker():
        with pytest.raises(CaptureError, match="a level-4 chip swimlane capture cannot run on a ChipWorker"):
            _run_pipeline(pipeline, CAPTURE, kernel_cache)
        _run_pipeline(pipeline, RunConfig(enable_chip_swimlane=3, enable_dep_gen=True), kernel_cache)
        _run_pipeline(pipeline, RunConfig(), kernel_cache)


def test_a_phase_fence_starts_each_phase_after_every_task_of_the_previous_one(
    tmp_path: Path, kernel_cache: Path
) -> None:
    """examples/deps_phase_fence.py: 3 phases of 4 pl.parallel branches behind ExpandManualPhaseFence's barriers."""
    source = (Path(__file__).resolve().parents[2] / "examples" / "deps_phase_fence.py").read_text()
    compiled = _compile(source, tmp_path / "out")
    data = np.random.default_rng(3).standard_normal((192, 64)).astype(np.float32)
    out = np.zeros((64, 64), np.float32)
    compiled.run(data, out, config=RunConfig(enable_chip_swimlane=2, enable_dep_gen=True), cache_dir=kernel_cache)
    want = np.zeros((64, 64), np.float32)
    compiled.interpret(data, want)
    np.testing.assert_allclose(out, want, rtol=1e-6)
    timeline = load_timeline(compiled.output_dir)
    stripes = sorted(timeline.of_kernel("kernel_stripe"), key=lambda t: t.task_id)  # in submission order
    phases = [stripes[k : k + 4] for k in range(0, 12, 4)]
    assert len(stripes) == 12 and len(timeline.of_kernel("finish")) == 1
    for before, after in zip(phases, phases[1:]):
        assert fence_violations(before, after) == []
    # The branches of a phase are not chained: all four were dispatched before the first one finished.
    assert all(max(t.dispatch_us for t in phase) < min(t.finish_us for t in phase) for phase in phases)
    assert fence_violations(phases[-1], timeline.of_kernel("finish")) == []
    assert edge_violations(timeline) == []
