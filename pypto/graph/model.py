"""The task graph of a program's orchestration: tasks, dependency edges and the frames around them.

One :class:`Task` per task site of the final IR (a kernel call, a ``pl.submit``, a ``task_dummy``):
a loop's body is there once, not unrolled. :class:`Frame` is a runtime scope, a loop or a branch
of an ``if``; frames nest, and frame 0 is the function itself.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum


class EdgeKind(str, Enum):
    """Why the runtime orders two tasks."""

    AUTO = "auto"  # the runtime's tensor tracking: a task reads a buffer an earlier task wrote
    EXPLICIT = "explicit"  # a ``deps=`` of ``pl.submit`` or ``task_dummy``
    FENCE = "fence"  # through a phase-fence barrier that ExpandManualPhaseFence put in
    DERIVED = "derived"  # an edge the compiler added (``attrs["compiler_manual_dep_edges"]``)


class FrameKind(str, Enum):
    """What a frame stands for."""

    FUNCTION = "function"
    SCOPE = "scope"  # an automatic PTO2 runtime scope: ``PTO2_SCOPE() {``
    MANUAL = "manual"  # ``pl.manual_scope()``: ``PTO2_SCOPE(PTO2ScopeMode::MANUAL) {``
    LOOP = "loop"
    BRANCH = "branch"  # one side of an ``if``


@dataclass
class Frame:
    """A runtime scope, loop or branch; ``trips`` is a loop's constant trip count (None: not constant)."""

    id: int
    kind: FrameKind
    label: str
    parent: int | None
    trips: int | None = None


@dataclass
class Task:
    """One task site. ``core`` is ``AIV``, ``AIC``, ``mixed`` (a Group of AIC and AIV kernels),
    ``Group`` (a Group of one core type), ``dummy`` (dependency-only) or ``folded`` (a box standing
    for ``folded`` task sites, :mod:`pypto.graph.fold`); ``blocks`` is the spmd block count as text
    (None for a plain task), ``predicate`` the dispatch predicate as the scheduler reads it."""

    id: int
    kernel: str
    core: str
    frame: int
    line: int | None = None
    blocks: str | None = None
    predicate: str | None = None
    barrier: bool = False  # a phase-fence barrier (a dummy task ExpandManualPhaseFence added)
    folded: int = 0


@dataclass(frozen=True)
class Edge:
    """``dst`` waits for ``src``. ``carried``: across a loop's trips (``src`` of an earlier trip);
    ``buffer`` names the tensor an automatic edge is about."""

    src: int
    dst: int
    kind: EdgeKind
    carried: bool = False
    buffer: str | None = None


@dataclass
class TaskGraph:
    """The tasks, edges and frames of one orchestration function."""

    name: str
    tasks: list[Task] = field(default_factory=list)
    edges: list[Edge] = field(default_factory=list)
    frames: list[Frame] = field(default_factory=list)
    folded_from: int | None = None  # the task count before folding (None: nothing folded)

    def summary(self) -> str:
        """``3 task sites, 3 edges (1 explicit, 2 fence)`` (and what folding left out)."""
        n, m = len(self.tasks), len(self.edges)
        kinds = ", ".join(f"{c} {k.value}" for k in EdgeKind if (c := sum(e.kind is k for e in self.edges)))
        folded = "" if self.folded_from is None else f" (folded from {self.folded_from})"
        return f"{n} task site{'s' * (n != 1)}{folded}, {m} edge{'s' * (m != 1)}{f' ({kinds})' if kinds else ''}"

    def frame_chain(self, frame: int) -> list[int]:
        """``frame`` and its enclosing frames, innermost first."""
        chain = []
        current: int | None = frame
        while current is not None:
            chain.append(current)
            current = self.frames[current].parent
        return chain

    def depths(self) -> dict[int, int]:
        """Task id -> its dependency depth: the longest chain of edges (within one trip) leading to it."""
        depth = {t.id: 0 for t in self.tasks}
        order = sorted(depth)
        preds: dict[int, list[int]] = {t: [] for t in order}
        for e in self.edges:
            if not e.carried and e.src != e.dst:
                preds[e.dst].append(e.src)
        for t in order:  # tasks are numbered in program order and an edge within a trip points forward
            depth[t] = max((depth[p] + 1 for p in preds[t] if p < t), default=0)
        return depth
