"""Fold a task graph too large to read into one with at most ``limit`` boxes.

The innermost frames go first: every frame of the deepest nesting level that holds more than one
task becomes one box standing for its tasks (``Task.folded`` counts them), then the next level out,
until the graph fits. A graph still too large (many tasks straight in one frame) keeps its first
``limit - 1`` tasks and folds the rest into one box. Edges follow their tasks into the boxes; edges
inside a box are dropped, and parallel edges merge.
"""

from __future__ import annotations

from dataclasses import replace

from .model import Edge, Task, TaskGraph

FOLD_LIMIT = 300


def fold(graph: TaskGraph, limit: int = FOLD_LIMIT) -> TaskGraph:
    """``graph`` itself when it has at most ``limit`` tasks, else a folded copy."""
    if len(graph.tasks) <= limit:
        return graph
    depth = {f.id: len(graph.frame_chain(f.id)) - 1 for f in graph.frames}
    owner = {t.id: t.id for t in graph.tasks}  # task -> the box it is drawn in
    boxes = {t.id: t for t in graph.tasks}
    kernels = {t.id: {t.kernel} for t in graph.tasks}  # box -> the kernels of the tasks in it
    for level in sorted({d for d in depth.values() if d > 0}, reverse=True):
        if len(boxes) <= limit:
            break
        for frame in (f for f in graph.frames if depth[f.id] == level):
            inside = sorted(t for t, box in boxes.items() if frame.id in graph.frame_chain(box.frame))
            if len(inside) > 1:
                _merge(boxes, kernels, owner, inside, frame.id, f"in {frame.label}")
    if len(boxes) > limit:
        rest = sorted(boxes)[limit - 1:]
        _merge(boxes, kernels, owner, rest, 0, "the tasks after these")
    edges: dict[tuple[int, int, object, bool], Edge] = {}
    for e in graph.edges:
        src, dst = owner[e.src], owner[e.dst]
        if src == dst and not e.carried:
            continue
        key = (src, dst, e.kind, e.carried)
        edges.setdefault(key, replace(e, src=src, dst=dst))
    return TaskGraph(graph.name, [boxes[k] for k in sorted(boxes)], list(edges.values()), graph.frames,
                     folded_from=len(graph.tasks))


def _merge(boxes: dict[int, Task], kernels: dict[int, set[str]], owner: dict[int, int], inside: list[int],
           frame: int, where: str) -> None:
    """Replace the boxes ``inside`` by one box in ``frame`` (it takes the first one's id)."""
    count = sum(max(boxes[t].folded, 1) for t in inside)
    first = inside[0]
    names = set().union(*(kernels.pop(t) for t in inside))
    kernels[first] = names
    shown = sorted(names)
    text = ", ".join(shown[:3]) + (f" and {len(shown) - 3} more" if len(shown) > 3 else "")
    boxes[first] = Task(first, f"{where}: {text}", "folded", frame, boxes[first].line, folded=count)
    for t in inside[1:]:
        del boxes[t]
    merged = set(inside)
    for t, box in owner.items():
        if box in merged:
            owner[t] = first
