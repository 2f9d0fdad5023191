"""Draw a :class:`~pypto.graph.model.TaskGraph` as SVG with Graphviz's ``dot``.

``dot`` ranks the tasks by dependency depth (a task sits below every task it waits for; carried
edges, from an earlier trip of a loop, do not constrain the ranks) and draws each frame as a
cluster around its tasks. Elements carry classes and ``data-*`` attributes so that tools and tests
can read the picture back:

* ``g.task`` (also ``dummy``, ``barrier``, ``predicated``, ``folded``): ``data-task``, ``data-kernel``,
  ``data-core``, ``data-blocks``, ``data-predicate``, ``data-line``, ``data-depth``, ``data-frame``,
  ``data-folded`` (the task sites a folded box stands for);
* ``g.edge`` (also the edge kind, ``carried``): ``data-src``, ``data-dst``, ``data-kind``, ``data-carried``,
  ``data-buffer``;
* ``g.frame`` (also the frame kind): ``data-frame``, ``data-kind``, ``data-label``, ``data-trips``,
  ``data-parent``.
"""

from __future__ import annotations

import shutil
import xml.etree.ElementTree as ET

from pypto.ir.errors import PyptoError

from .model import Edge, EdgeKind, Frame, FrameKind, Task, TaskGraph

SVG_NS = "http://www.w3.org/2000/svg"
_XLINK_NS = "http://www.w3.org/1999/xlink"

_FILL = {"AIV": "#b3de69", "AIC": "#80b1d3", "mixed": "#fdb462", "Group": "#fdb462", "dummy": "#eeeeee"}
_EDGE_STYLE: dict[EdgeKind, dict[str, str]] = {
    EdgeKind.AUTO: {"color": "#888888", "fontcolor": "#666666"},
    EdgeKind.EXPLICIT: {"color": "#000000", "penwidth": "1.6"},
    EdgeKind.FENCE: {"color": "#1f5fbf", "style": "dashed", "penwidth": "1.6"},
    EdgeKind.DERIVED: {"color": "#8e44ad", "style": "dotted", "penwidth": "1.6"},
}
# Every attribute is given for every kind: a cluster inherits what its enclosing cluster sets.
_FRAME_STYLE: dict[FrameKind, dict[str, str]] = {
    FrameKind.SCOPE: {"color": "#aaaaaa", "style": "dashed", "penwidth": "1"},
    FrameKind.MANUAL: {"color": "#d9822b", "style": "solid", "penwidth": "2"},
    FrameKind.LOOP: {"color": "#1f5fbf", "style": "rounded", "penwidth": "1.4"},
    FrameKind.BRANCH: {"color": "#555555", "style": "dotted", "penwidth": "1"},
}
LEGEND = ("edges: black = deps=,  grey = automatic (a buffer written, then read),",
          "blue dashed = phase fence,  purple dotted = compiler-derived,  ↻ = from the previous trip")


class GraphvizMissingError(PyptoError):
    """Graphviz's ``dot`` program, which lays out and draws the graph, is not installed."""


def check_dot() -> None:
    """Raise :class:`GraphvizMissingError` unless Graphviz's ``dot`` is on the PATH."""
    if shutil.which("dot") is None:
        raise GraphvizMissingError(
            "drawing a task graph needs Graphviz's 'dot' program, which is not on the PATH "
            "(hint: install Graphviz: apt-get install graphviz on Debian or Ubuntu, brew install graphviz on macOS)")


def render_svg(graph: TaskGraph) -> str:
    """The SVG document of ``graph``."""
    import graphviz

    check_dot()
    dot = graphviz.Digraph(graph.name, graph_attr={
        "rankdir": "TB", "fontname": "sans-serif", "fontsize": "12", "labelloc": "t", "labeljust": "l",
        "label": _title(graph), "nodesep": "0.3", "ranksep": "0.45", "newrank": "true"},
        node_attr={"fontname": "sans-serif", "fontsize": "11", "shape": "box", "style": "filled,rounded"},
        edge_attr={"fontname": "sans-serif", "fontsize": "9", "arrowsize": "0.7"})
    children: dict[int | None, list[Frame]] = {}
    for frame in graph.frames:
        children.setdefault(frame.parent, []).append(frame)
    tasks: dict[int, list[Task]] = {}
    for task in graph.tasks:
        tasks.setdefault(task.frame, []).append(task)
    busy = _busy_frames(graph)

    def fill(sub: graphviz.Digraph, frame: Frame) -> None:
        for task in tasks.get(frame.id, []):
            sub.node(f"t{task.id}", _task_label(task), id=f"task{task.id}", **_task_style(task))
        for child in children.get(frame.id, []):
            if child.id not in busy:
                continue
            with sub.subgraph(name=f"cluster_{child.id}") as inner:
                inner.attr(label=_frame_label(child), id=f"frame{child.id}", fontsize="10", **_FRAME_STYLE[child.kind])
                fill(inner, child)

    fill(dot, graph.frames[0])
    for k, edge in enumerate(graph.edges):
        attrs = dict(_EDGE_STYLE[edge.kind])
        label = edge.buffer or ""
        if edge.carried:
            attrs.update(constraint="false", tailport="e", headport="e")
            label = f"↻ {label}".strip()
        dot.edge(f"t{edge.src}", f"t{edge.dst}", label=label, id=f"edge{k}", **attrs)
    try:
        text = dot.pipe(format="svg", encoding="utf-8")
    except graphviz.ExecutableNotFound:
        check_dot()
        raise
    except graphviz.CalledProcessError as err:
        raise PyptoError(f"Graphviz's dot failed drawing the task graph: {err.stderr!r}") from None
    return _annotate(text, graph)


def _title(graph: TaskGraph) -> str:
    return "".join(f"{line}\\l" for line in (f"{graph.name}: {graph.summary()}", *LEGEND))


def _busy_frames(graph: TaskGraph) -> set[int]:
    """The frames holding a task (directly or in a frame inside): empty frames are not drawn."""
    busy: set[int] = set()
    for task in graph.tasks:
        busy.update(graph.frame_chain(task.frame))
    return busy


def _frame_label(frame: Frame) -> str:
    if frame.kind is not FrameKind.LOOP:
        return frame.label
    return f"{frame.label} ×{frame.trips if frame.trips is not None else ' dynamic'}"


def _task_label(task: Task) -> str:
    if task.folded:
        return f"{task.folded} tasks folded\n{task.kernel}"
    lines = [task.kernel]
    if task.core != "dummy":
        lines.append(task.core if task.blocks is None else f"{task.core} × {task.blocks} blocks")
    if task.predicate is not None:
        lines.append(f"only if {task.predicate}")
    return "\n".join(lines)


def _task_style(task: Task) -> dict[str, str]:
    style = {"fillcolor": _FILL.get(task.core, "#ffffff")}
    if task.folded:
        style.update(shape="folder", style="filled", fillcolor="#f4f4f4")
    elif task.core == "dummy":
        style.update(shape="octagon", style="filled,dashed")
    if task.predicate is not None:
        style["peripheries"] = "2"
    return style


def _annotate(text: str, graph: TaskGraph) -> str:
    """Set the classes and ``data-*`` attributes on the groups dot drew for tasks, edges and frames."""
    ET.register_namespace("", SVG_NS)
    ET.register_namespace("xlink", _XLINK_NS)
    root = ET.fromstring(text)
    groups = {g.get("id"): g for g in root.iter(f"{{{SVG_NS}}}g")}
    depths = graph.depths()
    for task in graph.tasks:
        g = groups.get(f"task{task.id}")
        if g is not None:
            _set(g, _task_classes(task), _task_data(task, depths[task.id]))
    for k, edge in enumerate(graph.edges):
        g = groups.get(f"edge{k}")
        if g is not None:
            _set(g, ["edge", edge.kind.value] + (["carried"] if edge.carried else []), _edge_data(edge))
    for frame in graph.frames:
        g = groups.get(f"frame{frame.id}")
        if g is not None:
            _set(g, ["frame", frame.kind.value], {
                "frame": str(frame.id), "kind": frame.kind.value, "label": frame.label,
                "trips": "" if frame.trips is None else str(frame.trips),
                "parent": "" if frame.parent is None else str(frame.parent)})
    return ET.tostring(root, encoding="unicode", xml_declaration=False) + "\n"


def _set(g: ET.Element, classes: list[str], data: dict[str, str]) -> None:
    g.set("class", " ".join(classes))
    for key, value in data.items():
        g.set(f"data-{key}", value)


def _task_classes(task: Task) -> list[str]:
    classes = ["task"]
    if task.core == "dummy":
        classes.append("dummy")
    if task.barrier:
        classes.append("barrier")
    if task.predicate is not None:
        classes.append("predicated")
    if task.folded:
        classes.append("folded")
    return classes


def _task_data(task: Task, depth: int) -> dict[str, str]:
    return {"task": str(task.id), "kernel": task.kernel, "core": task.core, "blocks": task.blocks or "",
            "predicate": task.predicate or "", "line": "" if task.line is None else str(task.line),
            "depth": str(depth), "frame": str(task.frame), "folded": str(task.folded)}


def _edge_data(edge: Edge) -> dict[str, str]:
    return {"src": str(edge.src), "dst": str(edge.dst), "kind": edge.kind.value,
            "carried": "true" if edge.carried else "false", "buffer": edge.buffer or ""}
