"""A dependency edge the runtime must honour (issue 31 item 6): tests/sim/data/dropped_edge.py runs
PAIRS producer/consumer pairs in a manual scope, ordered by nothing but each consumer's explicit edge.

With the edge every run equals the interpreter, and the swimlane capture shows each consumer starting
after its producer ended. A hand-edited copy of the generated orchestration C++ without the edge (the
one line that puts the producer's TaskId in the consumer's deps) gives a wrong result: the consumer
(one vector add, well under a millisecond on a2a3sim) starts while its producer (two 64 x 64 x 64
matmuls, tens of milliseconds) still runs. a2a3sim runs every simulated core and the orchestrator as
host threads, so nothing serialises them; with a producer barely longer than the consumer the race
showed in only some runs (the orchestrator could be descheduled between the two submits until the
producer ended), so the producer is made long, and the test still allows a few tries.
tests/benchmarks/bench_dropped_edge.py counts over many runs (20 of 20 wrong without the edge, 0 of
20 with it).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

import pypto.language as pl
from pypto import ir
from pypto.compiled import CompiledProgram
from pypto.runtime import RunConfig, simulator_missing_reason
from pypto.timeline import edge_runs, edge_violations, load_timeline

if (_missing := simulator_missing_reason()) is not None:
    pytest.skip(f"simulator tier: {_missing} (scripts/install-simulator.sh installs it)", allow_module_level=True)

SOURCE = Path(__file__).resolve().parent / "data" / "dropped_edge.py"
EDGE = "params_t1_deps[params_t1_deps_count++] = produced;"
CAPTURE = RunConfig(enable_chip_swimlane=1, enable_dep_gen=True)
TRIES = 5
PAIRS, N = 4, 64  # as in the program
PRODUCE, CONSUME = "main_incore_0", "main_incore_1"  # the outlined pl.at blocks


def compile_pair(folder: Path) -> tuple[CompiledProgram, CompiledProgram]:
    """The program compiled into ``folder/with``, and a copy in ``folder/without`` whose orchestration
    C++ lacks the consumer's edge (its deps array stays empty)."""
    with_edge = ir.compile(pl.loads_program(str(SOURCE)), output_dir=folder / "with")
    shutil.copytree(folder / "with", folder / "without")
    cpp = folder / "without" / "orchestration" / "main.cpp"
    lines = cpp.read_text().splitlines(keepends=True)
    [edge] = [k for k, line in enumerate(lines) if line.strip() == EDGE]
    cpp.write_text("".join(lines[:edge] + lines[edge + 1 :]))
    return with_edge, CompiledProgram.from_dir(folder / "without")


def inputs() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``a`` and ``b`` of small integers (the FP32 sums are exact) and a zero output of every row pair."""
    rng = np.random.default_rng(5)
    a, b = (rng.integers(-2, 3, (N, N)).astype(np.float16) for _ in range(2))
    return a, b, np.zeros((N * PAIRS, N), np.float32)


def run(compiled: CompiledProgram, cache: Path, config: RunConfig | None = None) -> np.ndarray:
    a, b, zeros = inputs()
    scratch, out = zeros.copy(), zeros.copy()  # a consumer that reads too early sees zeros
    compiled.run(a, b, scratch, out, cache_dir=cache, config=config)
    return out


def early_consumers(compiled: CompiledProgram) -> list[int]:
    """The consumers (by task id) of the last captured run that started before their producer, the task
    submitted just before them, ended."""
    timeline = load_timeline(compiled.output_dir)
    produced = {t.task_id: t for t in timeline.of_kernel(PRODUCE)}
    return [c.task_id for c in timeline.of_kernel(CONSUME)
            if c.task_id - 1 in produced and c.start_us < produced[c.task_id - 1].end_us]


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> tuple[CompiledProgram, CompiledProgram]:
    return compile_pair(tmp_path_factory.mktemp("dropped_edge"))


@pytest.fixture(scope="module")
def want(pair: tuple[CompiledProgram, CompiledProgram]) -> np.ndarray:
    a, b, zeros = inputs()
    out = zeros.copy()
    pair[0].interpret(a, b, zeros.copy(), out)
    return out


def test_the_copy_differs_only_by_the_edge(pair: tuple[CompiledProgram, CompiledProgram]) -> None:
    with_edge, without = ((c.output_dir / "orchestration" / "main.cpp").read_text().splitlines() for c in pair)
    assert [line.strip() for line in with_edge if line not in without] == [EDGE]
    assert len(with_edge) == len(without) + 1


def test_with_the_edge_every_run_is_right_and_each_consumer_starts_after_its_producer(
    pair: tuple[CompiledProgram, CompiledProgram], want: np.ndarray, kernel_cache: Path
) -> None:
    with_edge, _ = pair
    for _ in range(2):
        np.testing.assert_array_equal(run(with_edge, kernel_cache), want)
    np.testing.assert_array_equal(run(with_edge, kernel_cache, CAPTURE), want)
    timeline = load_timeline(with_edge.output_dir)
    assert sorted((a.kernel, b.kernel) for a, b in edge_runs(timeline)) == [(PRODUCE, CONSUME)] * PAIRS
    assert edge_violations(timeline) == [] and early_consumers(with_edge) == []


def test_without_the_edge_a_consumer_reads_the_scratch_too_early(
    pair: tuple[CompiledProgram, CompiledProgram], want: np.ndarray, kernel_cache: Path
) -> None:
    _, without = pair
    seen = []
    for _ in range(TRIES):
        out = run(without, kernel_cache, CAPTURE)
        early = early_consumers(without)
        assert load_timeline(without.output_dir).edges == ()  # the runtime knows no edge at all
        seen.append((not np.array_equal(out, want), bool(early)))
        if seen[-1] == (True, True):
            break
    assert (True, True) in seen, f"no run went wrong in {TRIES}: (wrong result, early consumer) per run {seen}"
    # A consumer that started early read the zeros the scratch held before its producer stored.
    assert np.unique(out[out != want]).tolist() == [1.0]
