"""AutoDeriveTaskDependencies: explicit task edges for a straight-line orchestration, only when enabled."""

from __future__ import annotations

import pytest
from auto_deps_programs import BRANCH, COPY_AND_NO_DEP, DIAMOND, LOOP, SEVERAL_READERS, SWAPPED, USER_MANUAL
from pass_helpers import before_after
from pypto.codegen.orchestration import generate_orchestration
from pypto.languages import memref
from pypto.passes import AutoDeriveTaskDependencies
from runtime_programs import inputs

import pypto.language as pl
from pypto import ir, passes
from pypto.analysis import walk
from pypto.compile import compile as ir_compile
from pypto.interp.testing import assert_pass_preserves
from pypto.ir.enums import ArgDirection as AD


def ready(source: str) -> ir.Program:
    """``source`` as the pipeline hands it to the pass (after DeriveCallDirections)."""
    program = pl.parse(source)
    for p in passes.builtin_passes():
        program = p(program)
        if p.name == "DeriveCallDirections":
            return program
    raise AssertionError("no DeriveCallDirections in the pipeline")


ON = AutoDeriveTaskDependencies(enabled=True)


def tasks(program: ir.Program) -> list[tuple[str, list[AD], list[str]]]:
    """Each task's kernel, directions and derived edges (TaskId names), in program order."""
    return [(n.op.name, list(n.attrs.get("arg_directions")),
             [e.name_hint for e in n.attrs.get("compiler_manual_dep_edges") or []])
            for n in walk(program.get_function("main").body)
            if isinstance(n, (ir.Call, ir.Submit)) and isinstance(n.op, ir.GlobalVar)]


def test_the_diamond_waits_for_exactly_its_conflicts() -> None:
    after = ON(ready(DIAMOND))
    assert tasks(after) == [
        ("scale", [AD.NoDep, AD.OutputExisting], []),
        ("shift", [AD.NoDep, AD.OutputExisting], []),
        ("plus", [AD.NoDep, AD.NoDep, AD.OutputExisting], ["scale_tid_0", "shift_tid_0"]),  # RAW on l, r
        ("scale", [AD.NoDep, AD.OutputExisting], ["scale_tid_0", "shift_tid_0", "plus_tid_0"]),  # WAR x, RAW out
    ]
    [scope] = [n for n in walk(after.get_function("main").body) if isinstance(n, ir.RuntimeScopeStmt)]
    assert scope.manual and scope.name_hint == "auto_derived_deps"
    assert memref.check(after) == []


def test_a_copy_is_followed_and_a_no_dep_argument_is_left_to_the_user() -> None:
    assert tasks(ON(ready(COPY_AND_NO_DEP))) == [
        ("scale", [AD.NoDep, AD.OutputExisting], []),
        ("shift", [AD.NoDep, AD.OutputExisting], ["scale_tid_0"]),  # RAW on t through the copy u
        ("plus", [AD.NoDep, AD.NoDep, AD.OutputExisting], ["shift_tid_0"]),  # WAW on out; t is no_dep
    ]


def test_a_loop_carries_the_taskid_of_the_trip_before() -> None:
    after = ON(ready(LOOP))
    assert tasks(after) == [
        ("scale", [AD.NoDep, AD.OutputExisting], []),
        ("shift", [AD.NoDep, AD.OutputExisting], ["scale_tid_0", "shift_tid_iter_0"]),  # first trip, trip before
        ("scale", [AD.NoDep, AD.OutputExisting], ["shift_tid_rv_0"]),  # the last trip
    ]
    [loop] = [n for n in walk(after.get_function("main").body) if isinstance(n, ir.ForStmt)]
    carry = loop.iter_args[-1]
    assert carry.name_hint == "shift_tid_iter_0" and carry.initValue.op.name == "system.task_invalid"
    assert memref.check(after) == []


@pytest.mark.parametrize("name", ["DIAMOND", "LOOP"])
def test_snapshot(name: str, snapshot) -> None:
    before = ready({"DIAMOND": DIAMOND, "LOOP": LOOP}[name])
    assert before_after("AutoDeriveTaskDependencies", before, ON(before)) == snapshot


@pytest.mark.parametrize("source", [DIAMOND, COPY_AND_NO_DEP, LOOP, SEVERAL_READERS, USER_MANUAL],
                         ids=["diamond", "copy_and_no_dep", "loop", "several_readers", "user_manual"])
def test_preserves_results(source: str) -> None:
    program = ready(source)
    assert_pass_preserves(ON, program, inputs(program))


@pytest.mark.parametrize("source", [SEVERAL_READERS, BRANCH, USER_MANUAL, SWAPPED],
                         ids=["several_readers", "branch", "user_manual", "swapped_buffers"])
def test_a_region_it_cannot_express_keeps_automatic_tracking(source: str) -> None:
    before = ready(source)
    assert ON(before) is before


@pytest.mark.parametrize("source", [DIAMOND, LOOP, USER_MANUAL], ids=["diamond", "loop", "user_manual"])
def test_off_by_default_it_changes_nothing(source: str) -> None:
    before = ready(source)
    assert AutoDeriveTaskDependencies()(before) is before


@pytest.mark.parametrize("source", [DIAMOND, LOOP], ids=["diamond", "loop"])
def test_the_rewritten_program_parses_back_and_is_idempotent(source: str) -> None:
    once = ON(ready(source))
    ir.assert_structural_equal(pl.parse(once.as_python()), once)
    assert ON(once) is once


def test_the_compile_option_prints_explicit_edges_in_a_manual_scope(tmp_path, snapshot) -> None:
    compiled = ir_compile(pl.parse(DIAMOND), output_dir=tmp_path / "on", dump_passes=False, skip_ptoas=True,
                          analyze_auto_scopes_for_deps=True)
    text = (tmp_path / "on" / "orchestration" / "main.cpp").read_text()
    assert "PTO2_SCOPE(PTO2ScopeMode::MANUAL) {" in text and text.count(".set_dependencies(") == 2
    assert text == snapshot
    assert compiled.final_program.get_function("main").attrs.get("auto_scope") is False


def test_the_default_build_is_unchanged(tmp_path) -> None:
    program = pl.parse(DIAMOND)
    default = ir_compile(program, output_dir=tmp_path / "d", dump_passes=False, skip_ptoas=True)
    assert "PTO2ScopeMode::MANUAL" not in (tmp_path / "d" / "orchestration" / "main.cpp").read_text()
    pipeline = [p for p in passes.builtin_passes() if p.name != "AutoDeriveTaskDependencies"]
    alone = passes.PassManager(pipeline).run_passes(program)
    assert generate_orchestration(alone, None) == generate_orchestration(default.final_program, None)
