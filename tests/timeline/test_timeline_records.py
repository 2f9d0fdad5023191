"""pypto.timeline reads simpler's capture: the join of AICore and AICPU records, kernels, edges, errors."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from timeline_captures import R1, records, write_run

from pypto.timeline import (
    TaskRun,
    TimelineError,
    edge_violations,
    fence_violations,
    load_timeline,
    overlapping_pairs,
    task_label,
)


def test_a_level_4_capture_joins_core_and_scheduler_records(tmp_path: Path) -> None:
    timeline = load_timeline(write_run(tmp_path / "run"))
    assert timeline.level == 4 and timeline.has_deps
    assert timeline.tasks == (
        TaskRun(task_id=R1, kernel="stage1", core_id=10, core_type="aiv", start_us=10.0, end_us=110.0,
                dispatch_us=0.0, finish_us=115.0),
        TaskRun(task_id=R1 + 1, kernel="stage2", core_id=11, core_type="aiv", start_us=120.0, end_us=160.0,
                dispatch_us=116.0, finish_us=162.0),
    )
    assert timeline.edges == ((R1, R1 + 1),)  # the explicit and the tensor edge are one pair
    assert timeline.span_us == 160.0 and timeline.cores() == (10, 11)
    assert [t.label for t in timeline.tasks] == ["r1t0", "r1t1"] and timeline.tasks[0].core_label == "AIV 10"


def test_the_dfx_folder_itself_can_be_given(tmp_path: Path) -> None:
    root = write_run(tmp_path / "run")
    assert load_timeline(root / "dfx_outputs") == load_timeline(root)


def test_level_1_has_no_dispatch_or_finish_times(tmp_path: Path) -> None:
    timeline = load_timeline(write_run(tmp_path / "run", level=1))
    times = [(t.start_us, t.dispatch_us, t.finish_us) for t in timeline.tasks]
    assert times == [(0.0, None, None), (110.0, None, None)]


def test_without_deps_json_the_tasks_have_no_kernel_and_there_are_no_edges(tmp_path: Path) -> None:
    timeline = load_timeline(write_run(tmp_path / "run", deps=False))
    assert not timeline.has_deps and timeline.edges == ()
    assert [t.kernel for t in timeline.tasks] == ["?", "?"]


def test_kernel_names_can_be_given(tmp_path: Path) -> None:
    timeline = load_timeline(write_run(tmp_path / "run"), kernel_names={0: "a"})
    assert [t.kernel for t in timeline.tasks] == ["a", "func_1"]


def test_task_labels_follow_simpler() -> None:
    assert (task_label(3), task_label((2 << 32) | 7)) == ("t3", "r2t7")


def test_missing_records_are_an_error_with_the_fix(tmp_path: Path) -> None:
    root = write_run(tmp_path / "run")
    (root / "dfx_outputs" / "chip_swimlane_records.json").unlink()
    with pytest.raises(TimelineError) as caught:
        load_timeline(root)
    assert caught.value.message == f"{root / 'dfx_outputs' / 'chip_swimlane_records.json'} does not exist"
    assert "enable_chip_swimlane=1..4" in caught.value.hint and "--swimlane LEVEL" in caught.value.hint


def test_a_path_that_is_not_a_folder_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(TimelineError, match="is not a folder"):
        load_timeline(tmp_path / "nowhere")


def test_truncated_records_are_an_error(tmp_path: Path) -> None:
    root = write_run(tmp_path / "run")
    path = root / "dfx_outputs" / "chip_swimlane_records.json"
    path.write_text(path.read_text()[:100])
    with pytest.raises(TimelineError) as caught:
        load_timeline(root)
    assert caught.value.message.startswith(f"{path} is truncated or not JSON (")
    assert caught.value.hint == "the run that wrote it did not finish; rerun the capture"


def test_truncated_deps_are_an_error(tmp_path: Path) -> None:
    root = write_run(tmp_path / "run")
    (root / "dfx_outputs" / "deps.json").write_text('{"tasks": [')
    with pytest.raises(TimelineError, match=r"deps.json is truncated or not JSON"):
        load_timeline(root)


@pytest.mark.parametrize(
    "change, why",
    [
        (lambda d: d.pop("metadata"), "KeyError: 'metadata'"),
        (lambda d: d.update(chip_swimlane_level=7), "ValueError: chip_swimlane_level 7 is not 1-4"),
        (lambda d: d["aicore_tasks"].append([3, 1]), "ValueError: not enough values to unpack"),
        (lambda d: d["metadata"].update(clock_freq_hz=0), "ValueError: clock_freq_hz 0 is not positive"),
    ],
)
def test_records_outside_simplers_layout_are_an_error(tmp_path: Path, change, why: str) -> None:
    root = write_run(tmp_path / "run")
    doc = records(4)
    change(doc)
    path = root / "dfx_outputs" / "chip_swimlane_records.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(TimelineError) as caught:
        load_timeline(root)
    assert caught.value.message.startswith(f"{path} is not in simpler's chip swimlane layout: {why}")


def _run(task_id: int, core: int, start: float, end: float) -> TaskRun:
    return TaskRun(task_id=task_id, kernel="k", core_id=core, core_type="aiv", start_us=start, end_us=end)


def test_schedule_checks_name_the_offending_runs(tmp_path: Path) -> None:
    timeline = load_timeline(write_run(tmp_path / "run"))
    assert edge_violations(timeline) == []
    early = replace(timeline.tasks[1], start_us=100.0)
    broken = replace(timeline, tasks=(timeline.tasks[0], early))
    assert edge_violations(broken) == [(timeline.tasks[0], early)]
    a, b, c = _run(1, 0, 0, 10), _run(2, 1, 5, 15), _run(3, 1, 20, 30)
    assert fence_violations([a, b], [c]) == [] and fence_violations([a, c], [b]) == [(a, b), (c, b)]
    assert overlapping_pairs([c, b, a]) == [(a, b)]
    assert overlapping_pairs([_run(1, 0, 0, 10), _run(2, 0, 5, 15)]) == []  # one core: not concurrent
