"""ExpandManualPhaseFence: N x M explicit edges through one dependency-only barrier (N + M)."""

from __future__ import annotations

import pytest
from pass_helpers import before_after
from runtime_programs import PHASE_FENCES, inputs, parse

from pypto import ir, passes
from pypto.analysis import walk
from pypto.interp.testing import assert_pass_preserves
from pypto.languages import memref

REWRITTEN = ["parallel_carry_phase_fence", "task_id_array_consumers", "array_consumers_in_a_sequential_loop"]
DIRECT = ["two_branches_stay_direct", "array_updated_in_the_loop_stays_direct", "another_dep_stays_direct"]


def ready(source: str) -> ir.Program:
    return passes.derive_call_directions()(parse(source))


def barriers(program: ir.Program) -> list[ir.Call]:
    return [n for n in walk(program.get_function("main").body)
            if isinstance(n, ir.Call) and isinstance(n.op, ir.Op) and n.op.name == "system.task_dummy"]


def submit_deps(program: ir.Program) -> list[list[str]]:
    return [[d.name_hint for d in n.deps] for n in walk(program.get_function("main").body) if isinstance(n, ir.Submit)]


def test_the_cases_are_split_into_rewritten_and_direct() -> None:
    assert sorted(REWRITTEN + DIRECT) == sorted(PHASE_FENCES)


@pytest.mark.parametrize("name", REWRITTEN)
def test_one_barrier_before_the_consumer_loop(name: str) -> None:
    after = passes.expand_manual_phase_fence()(ready(PHASE_FENCES[name]))
    [bar] = barriers(after)
    assert bar.attrs["dummy_task"] is True
    [source] = bar.attrs["manual_dep_edges"]
    assert source.name_hint == {"parallel_carry_phase_fence": "p", "task_id_array_consumers": "t3",
                                "array_consumers_in_a_sequential_loop": "t1"}[name]
    assert ["phase_fence_barrier_0"] in submit_deps(after)
    assert all(deps in ([], ["phase_fence_barrier_0"]) for deps in submit_deps(after))
    assert memref.check(after) == []


@pytest.mark.parametrize("name", DIRECT)
def test_unsafe_or_unprofitable_fences_stay_direct(name: str) -> None:
    before = ready(PHASE_FENCES[name])
    assert passes.expand_manual_phase_fence()(before) is before


@pytest.mark.parametrize("name", sorted(PHASE_FENCES))
def test_preserves_results(name: str) -> None:
    program = ready(PHASE_FENCES[name])
    assert_pass_preserves(passes.expand_manual_phase_fence(), program, inputs(program))


def test_snapshot(snapshot) -> None:
    before = ready(PHASE_FENCES["parallel_carry_phase_fence"])
    after = passes.expand_manual_phase_fence()(before)
    assert before_after("ExpandManualPhaseFence", before, after) == snapshot


def test_idempotent_and_the_barrier_parses_back() -> None:
    once = passes.expand_manual_phase_fence()(ready(PHASE_FENCES["task_id_array_consumers"]))
    assert passes.expand_manual_phase_fence()(once) is once
    ir.assert_structural_equal(parse(once.as_python()), once)
