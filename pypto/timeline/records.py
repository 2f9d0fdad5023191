"""Read a run's chip swimlane capture: ``dfx_outputs/chip_swimlane_records.json`` and ``deps.json``.

simpler writes both files as they are (their field names are simpler's, docs/timeline.md lists them);
this module joins them into one :class:`Timeline`: a :class:`TaskRun` per execution of a task on a
core, in microseconds from the earliest timestamp, labelled with its kernel, and the dependency
edges. The join follows simpler's ``swimlane_converter``: an AICore record (core, task token,
register id, start, end) meets its AICPU record (core, register id, dispatch, finish) by core and
register id; the kernel is ``deps.json``'s ``kernel_ids`` slot of the core's type.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pypto.runtime.call_options import DFX_DIR
from pypto.runtime.errors import SimulatorError

RECORDS_FILE = "chip_swimlane_records.json"
DEPS_FILE = "deps.json"
# deps.json's kernel_ids slots: [aic, aiv0, aiv1].
_AIC_SLOT, _AIV_SLOTS = 0, (1, 2)


class TimelineError(SimulatorError):
    """A capture to draw or check is missing, truncated or not in simpler's layout."""


@dataclass(frozen=True)
class TaskRun:
    """One execution of a task on a core; times in microseconds from the capture's first timestamp.

    ``dispatch_us``/``finish_us`` (when the AICPU scheduler sent the task and saw it done) exist from
    swimlane level 2 on; at level 1 they are ``None``.
    """

    task_id: int
    kernel: str
    core_id: int
    core_type: str
    start_us: float
    end_us: float
    dispatch_us: float | None = None
    finish_us: float | None = None

    @property
    def label(self) -> str:
        """simpler's short task name: ``t<local id>``, with ``r<ring>`` in front outside ring 0."""
        return task_label(self.task_id)

    @property
    def core_label(self) -> str:
        """The lane name: core type and id, e.g. ``AIV 8``."""
        return f"{self.core_type.upper()} {self.core_id}"


@dataclass(frozen=True)
class Timeline:
    """A run's task executions (by start time), its dependency edges (pred, succ task ids) and the level."""

    level: int
    tasks: tuple[TaskRun, ...]
    edges: tuple[tuple[int, int], ...]
    has_deps: bool

    @property
    def span_us(self) -> float:
        """From the first start (or dispatch) to the last end."""
        if not self.tasks:
            return 0.0
        first = min(t.start_us if t.dispatch_us is None else min(t.dispatch_us, t.start_us) for t in self.tasks)
        return max(t.end_us for t in self.tasks) - first

    def of_kernel(self, kernel: str) -> tuple[TaskRun, ...]:
        """The executions of ``kernel``'s tasks, by start time."""
        return tuple(t for t in self.tasks if t.kernel == kernel)

    def runs_of(self, task_id: int) -> tuple[TaskRun, ...]:
        """The executions of one task (several for an SPMD task)."""
        return tuple(t for t in self.tasks if t.task_id == task_id)

    def cores(self) -> tuple[int, ...]:
        """The cores that ran a task, in order."""
        return tuple(sorted({t.core_id for t in self.tasks}))


def task_label(task_id: int) -> str:
    """``t<local>`` for ring 0, else ``r<ring>t<local>`` (a PTO2 task id is ``ring << 32 | local``)."""
    ring, local = task_id >> 32, task_id & 0xFFFFFFFF
    return f"t{local}" if ring == 0 else f"r{ring}t{local}"


def capture_dir(path: str | Path) -> Path:
    """The folder holding the capture: ``path`` itself or its ``dfx_outputs``."""
    path = Path(path)
    if not path.is_dir():
        raise TimelineError(f"{path} is not a folder", "pass the output folder of a run made with a swimlane capture")
    nested = path / DFX_DIR
    return nested if nested.is_dir() else path


def load_timeline(path: str | Path, kernel_names: dict[int, str] | None = None) -> Timeline:
    """The :class:`Timeline` of the capture in ``path`` (a run's output folder or its ``dfx_outputs``).

    Kernel names come from ``kernel_names`` (func_id -> name), else the run folder's
    ``kernel_config.py``. ``deps.json`` is optional: without it the bars carry no kernel and there
    are no edges. ``TimelineError`` when the records are missing, truncated or malformed.
    """
    folder = capture_dir(path)
    records_path = folder / RECORDS_FILE
    if not records_path.is_file():
        raise TimelineError(
            f"{records_path} does not exist",
            "run with RunConfig(enable_chip_swimlane=1..4, enable_dep_gen=True) or `pypto run --swimlane LEVEL -o DIR`",
        )
    records = _read_json(records_path)
    deps_path = folder / DEPS_FILE
    deps = _read_json(deps_path) if deps_path.is_file() else None
    names = kernel_names if kernel_names is not None else _kernel_names(folder)
    try:
        return _join(records, deps, names)
    except (KeyError, TypeError, ValueError, IndexError) as err:
        raise TimelineError(
            f"{records_path} is not in simpler's chip swimlane layout: {type(err).__name__}: {err}",
            "the file is written by simpler's chip swimlane collector; rerun the capture",
        ) from None


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text())
    except json.JSONDecodeError as err:
        raise TimelineError(
            f"{path} is truncated or not JSON ({err.msg} at line {err.lineno}, column {err.colno})",
            "the run that wrote it did not finish; rerun the capture",
        ) from None


def _kernel_names(folder: Path) -> dict[int, str]:
    """func_id -> kernel name from the artifact tree holding ``folder`` (none when it is elsewhere)."""
    from pypto.runtime.artifacts import load_artifacts

    root = folder.parent if folder.name == DFX_DIR else folder
    if not (root / "kernel_config.py").is_file():
        return {}
    return {kernel.func_id: kernel.label for kernel in load_artifacts(root).kernels}


def _join(records: dict[str, Any], deps: dict[str, Any] | None, names: dict[int, str]) -> Timeline:
    level = int(records["chip_swimlane_level"])
    if level not in (1, 2, 3, 4):
        raise ValueError(f"chip_swimlane_level {level} is not 1-4")
    meta = records["metadata"]
    freq = int(meta["clock_freq_hz"])
    if freq <= 0:
        raise ValueError(f"clock_freq_hz {freq} is not positive")
    core_types = list(meta["core_types"])
    aicpu = {(int(r[0]), int(r[1])): (int(r[2]), int(r[3])) for r in records.get("aicpu_tasks") or []}
    rows = [(int(c), int(token), int(reg), int(s), int(e)) for c, token, reg, s, e, *_ in records["aicore_tasks"]]
    stamps = [c for _, _, _, s, e in rows for c in (s, e)] + [c for pair in aicpu.values() for c in pair]
    base = min((c for c in stamps if c > 0), default=0)

    def us(cycles: int) -> float:
        return (cycles - base) * 1e6 / freq

    kernel_ids = _kernel_ids(deps)
    tasks = []
    for core, token, reg, start, end in rows:
        core_type = core_types[core]
        dispatch_finish = aicpu.get((core, reg))
        tasks.append(
            TaskRun(
                task_id=token,
                kernel=_kernel(kernel_ids.get(token), core_type, names),
                core_id=core,
                core_type=core_type,
                start_us=us(start),
                end_us=us(end),
                dispatch_us=None if dispatch_finish is None else us(dispatch_finish[0]),
                finish_us=None if dispatch_finish is None else us(dispatch_finish[1]),
            )
        )
    tasks.sort(key=lambda t: (t.start_us, t.core_id))
    edges = _edges(deps)
    return Timeline(level=level, tasks=tuple(tasks), edges=edges, has_deps=deps is not None)


def _kernel_ids(deps: dict[str, Any] | None) -> dict[int, list[int]]:
    if deps is None:
        return {}
    return {int(task["task_id"]): [int(k) for k in task["kernel_ids"]] for task in deps["tasks"]}


def _kernel(ids: list[int] | None, core_type: str, names: dict[int, str]) -> str:
    """The kernel a task ran on a core of ``core_type`` (``func_<id>`` without a name, ``?`` without deps)."""
    if ids is None:
        return "?"
    slots = (_AIC_SLOT,) if core_type == "aic" else _AIV_SLOTS
    func_id = next((ids[s] for s in slots if ids[s] >= 0), -1)
    return names.get(func_id, f"func_{func_id}")


def _edges(deps: dict[str, Any] | None) -> tuple[tuple[int, int], ...]:
    """The distinct (pred, succ) pairs of ``deps.json`` in file order (an edge per tensor collapses to one)."""
    if deps is None:
        return ()
    pairs = dict.fromkeys((int(e["pred"]), int(e["succ"])) for e in deps["edges"])
    return tuple(pairs)
