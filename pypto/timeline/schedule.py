"""Scheduling properties read off a :class:`~pypto.timeline.records.Timeline`.

Each function returns the offending task executions (empty when the property holds), so a test
asserts ``== []`` and a failure names the tasks:

    assert edge_violations(timeline) == []                 # every successor starts after its predecessor ends
    assert fence_violations(phase0, phase1) == []          # phase 1 starts after all of phase 0 ended
    assert overlapping_pairs(timeline.of_kernel("body"))   # some iterations ran at the same time
"""

from __future__ import annotations

from collections.abc import Iterable

from .records import TaskRun, Timeline


def edge_runs(timeline: Timeline) -> list[tuple[TaskRun, TaskRun]]:
    """Per dependency edge, each (predecessor run, successor run) pair; edges to tasks that ran on no
    core (dependency-only tasks) are left out."""
    runs: dict[int, list[TaskRun]] = {}
    for task in timeline.tasks:
        runs.setdefault(task.task_id, []).append(task)
    return [(a, b) for pred, succ in timeline.edges for a in runs.get(pred, ()) for b in runs.get(succ, ())]


def edge_violations(timeline: Timeline) -> list[tuple[TaskRun, TaskRun]]:
    """The (predecessor, successor) runs of an edge where the successor started before the predecessor ended."""
    return [(a, b) for a, b in edge_runs(timeline) if b.start_us < a.end_us]


def fence_violations(before: Iterable[TaskRun], after: Iterable[TaskRun]) -> list[tuple[TaskRun, TaskRun]]:
    """The pairs where a task of ``after`` started before a task of ``before`` ended."""
    before, after = tuple(before), tuple(after)
    return [(a, b) for a in before for b in after if b.start_us < a.end_us]


def overlapping_pairs(tasks: Iterable[TaskRun]) -> list[tuple[TaskRun, TaskRun]]:
    """The pairs of ``tasks`` that ran at the same time on different cores."""
    tasks = sorted(tasks, key=lambda t: t.start_us)
    return [
        (a, b)
        for i, a in enumerate(tasks)
        for b in tasks[i + 1 :]
        if a.core_id != b.core_id and b.start_us < a.end_us
    ]
