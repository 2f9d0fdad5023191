"""A :class:`~pypto.timeline.records.Timeline` as Chrome Trace Event JSON (opens in Perfetto and chrome://tracing).

One process (``pid`` 1, named ``a2a3sim``) with a thread per core; each task execution is a
complete event (``ph: X``, times in microseconds) named after its kernel, with its task id and the
dispatch/finish times in ``args``; each dependency edge is a flow (``ph: s`` on the predecessor,
``ph: f`` on the successor) so Perfetto draws the arrow.
"""

from __future__ import annotations

import json
import os
from typing import Any

from .records import Timeline

_PID = 1


def chrome_trace(timeline: Timeline) -> dict[str, Any]:
    """The trace document of ``timeline`` (``json.dumps`` it to write a ``.json`` file)."""
    events: list[dict[str, Any]] = [{"ph": "M", "pid": _PID, "name": "process_name", "args": {"name": "a2a3sim"}}]
    for task in sorted({t.core_id: t for t in timeline.tasks}.values(), key=lambda t: t.core_id):
        events.append({"ph": "M", "pid": _PID, "tid": task.core_id, "name": "thread_name",
                       "args": {"name": task.core_label}})
        events.append({"ph": "M", "pid": _PID, "tid": task.core_id, "name": "thread_sort_index",
                       "args": {"sort_index": task.core_id}})
    for task in timeline.tasks:
        args: dict[str, Any] = {"task_id": task.task_id, "task": task.label}
        if task.dispatch_us is not None:
            args |= {"dispatch_us": task.dispatch_us, "finish_us": task.finish_us}
        events.append({"ph": "X", "pid": _PID, "tid": task.core_id, "name": task.kernel, "cat": "task",
                       "ts": task.start_us, "dur": task.end_us - task.start_us, "args": args})
    runs = {t.task_id: t for t in reversed(timeline.tasks)}  # the first run of each task anchors its flows
    for flow, (pred, succ) in enumerate(timeline.edges):
        a, b = runs.get(pred), runs.get(succ)
        if a is None or b is None:
            continue
        common = {"pid": _PID, "name": "dep", "cat": "dep", "id": flow}
        events.append({**common, "ph": "s", "tid": a.core_id, "ts": a.start_us})
        events.append({**common, "ph": "f", "bp": "e", "tid": b.core_id, "ts": b.start_us})
    return {"traceEvents": events, "displayTimeUnit": "ns"}


def write_chrome_trace(timeline: Timeline, path: str | os.PathLike[str]) -> None:
    """Write :func:`chrome_trace` of ``timeline`` to ``path``."""
    with open(path, "w") as f:
        json.dump(chrome_trace(timeline), f)
