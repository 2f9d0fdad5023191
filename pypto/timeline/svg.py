"""Draw a :class:`~pypto.timeline.records.Timeline` as SVG: one lane per core, one bar per task.

Each bar spans the task's start to end on its core and is labelled with its kernel (a ``<title>``
holds the task id and times); from swimlane level 2 a thin line before the bar shows the wait from
dispatch to start. Dependency edges are arrows from the end of the predecessor's bar to the start
of the successor's. The axis below the lanes is in microseconds. Elements carry classes (``lane``,
``task``, ``dispatch``, ``dep``, ``tick``) and ``data-*`` attributes so that tools and tests can read
the picture back.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from collections.abc import Callable

from .records import TaskRun, Timeline

Scale = Callable[[float], float]
_LEFT, _RIGHT, _TOP = 90.0, 30.0, 30.0
_LANE, _BAR = 30.0, 20.0
_AXIS, _LEGEND = 40.0, 22.0
# Kernel colours (ColorBrewer Set2/Set3 tones that keep black text legible), assigned by kernel name.
_PALETTE = ("#8dd3c7", "#fdb462", "#bebada", "#fb8072", "#80b1d3", "#b3de69", "#fccde5", "#d9d9d9", "#ffed6f")


def render_svg(timeline: Timeline, width: float = 1000.0, title: str | None = None) -> str:
    """The SVG document of ``timeline``, ``width`` pixels wide."""
    cores = {t.core_id: t.core_label for t in timeline.tasks}
    lanes = {core: i for i, core in enumerate(sorted(cores))}
    plot = width - _LEFT - _RIGHT
    origin = min((_first(t) for t in timeline.tasks), default=0.0)
    span = max(timeline.span_us, 1e-3)
    step = _tick_step(span)
    axis_end = math.ceil(span / step) * step
    scale = plot / axis_end
    height = _TOP + len(lanes) * _LANE + _AXIS + _LEGEND

    def x(us: float) -> float:
        return _LEFT + (us - origin) * scale

    def y(core: int) -> float:
        return _TOP + lanes[core] * _LANE + (_LANE - _BAR) / 2

    svg = ET.Element(
        "svg", xmlns="http://www.w3.org/2000/svg", width=_n(width), height=_n(height),
        viewBox=f"0 0 {_n(width)} {_n(height)}", attrib={"font-family": "sans-serif", "font-size": "11"},
    )
    defs = ET.SubElement(svg, "defs")
    marker = ET.SubElement(defs, "marker", id="arrow", viewBox="0 0 10 10", refX="10", refY="5",
                           markerWidth="6", markerHeight="6", orient="auto-start-reverse")
    ET.SubElement(marker, "path", d="M 0 0 L 10 5 L 0 10 z", fill="#444")
    cores_text = f"{len(lanes)} core{'s' * (len(lanes) != 1)}"
    ET.SubElement(svg, "text", x=_n(_LEFT), y="18", attrib={"font-size": "13"}).text = (
        title or f"{len(timeline.tasks)} task runs on {cores_text}, swimlane level {timeline.level}"
    )
    for core, lane in lanes.items():
        top = _TOP + lane * _LANE
        ET.SubElement(svg, "rect", attrib={"class": "lane", "data-core": str(core)}, x=_n(_LEFT), y=_n(top),
                      width=_n(plot), height=_n(_LANE), fill="#f4f4f4" if lane % 2 else "#ffffff")
        label = ET.SubElement(svg, "text", attrib={"class": "lane-label", "text-anchor": "end"},
                              x=_n(_LEFT - 8), y=_n(top + _LANE / 2 + 4))
        label.text = cores[core]
    _axis(svg, x, step, axis_end, origin, _TOP + len(lanes) * _LANE)
    colours = {k: _PALETTE[i % len(_PALETTE)] for i, k in enumerate(sorted({t.kernel for t in timeline.tasks}))}
    for index, task in enumerate(timeline.tasks):
        _bar(svg, index, task, x, y(task.core_id), colours[task.kernel])
    _edges(svg, timeline, x, y)
    _legend(svg, colours, height - _LEGEND + 4)
    ET.indent(svg)
    return ET.tostring(svg, encoding="unicode", xml_declaration=True) + "\n"


def _first(task: TaskRun) -> float:
    return task.start_us if task.dispatch_us is None else min(task.dispatch_us, task.start_us)


def _tick_step(span: float) -> float:
    """A 1/2/5 x 10^k step giving 5 to 10 ticks over ``span``."""
    raw = span / 8
    power = 10 ** math.floor(math.log10(raw))
    return next(m * power for m in (1, 2, 5, 10) if m * power >= raw)


def _axis(svg: ET.Element, x: Scale, step: float, end: float, origin: float, top: float) -> None:
    ET.SubElement(svg, "line", attrib={"class": "axis"}, x1=_n(x(origin)), y1=_n(top), x2=_n(x(origin + end)),
                  y2=_n(top), stroke="#000")
    for i in range(round(end / step) + 1):
        value = i * step
        at = x(origin + value)
        ET.SubElement(svg, "line", attrib={"class": "tick"}, x1=_n(at), y1=_n(top), x2=_n(at), y2=_n(top + 5),
                      stroke="#000")
        text = ET.SubElement(svg, "text", attrib={"class": "tick-label", "text-anchor": "middle"}, x=_n(at),
                             y=_n(top + 17))
        text.text = f"{value:g}"
    unit = ET.SubElement(svg, "text", attrib={"class": "axis-label", "text-anchor": "end"}, x=_n(x(origin + end)),
                         y=_n(top + 32))
    unit.text = "time (µs)"


def _bar(svg: ET.Element, index: int, task: TaskRun, x: Scale, top: float, colour: str) -> None:
    group = ET.SubElement(svg, "g", attrib={
        "class": "task", "data-task": str(task.task_id), "data-kernel": task.kernel, "data-core": str(task.core_id),
        "data-start-us": _n(task.start_us), "data-end-us": _n(task.end_us),
    })
    times = f"start {task.start_us:.3f} µs, end {task.end_us:.3f} µs"
    if task.dispatch_us is not None:
        times = f"dispatch {task.dispatch_us:.3f} µs, " + times + f", finish {task.finish_us:.3f} µs"
        # Along the bar's lower edge, below the edge arrows that run through the middle of the lane.
        ET.SubElement(group, "line", attrib={"class": "dispatch", "stroke-dasharray": "3 2"},
                      x1=_n(x(task.dispatch_us)), y1=_n(top + _BAR - 1), x2=_n(x(task.start_us)), y2=_n(top + _BAR - 1),
                      stroke="#999")
    ET.SubElement(group, "title").text = f"{task.kernel} {task.label} on {task.core_label}: {times}"
    box = {"x": _n(x(task.start_us)), "y": _n(top), "width": _n(max(x(task.end_us) - x(task.start_us), 1.0)),
           "height": _n(_BAR)}
    ET.SubElement(group, "rect", fill=colour, stroke="#333", attrib={**box, "stroke-width": "0.5"})
    # The label is clipped to its bar: a short task keeps its label (readable when zoomed) without spilling over.
    clip = ET.SubElement(group, "clipPath", id=f"bar{index}")
    ET.SubElement(clip, "rect", attrib=box)
    label = ET.SubElement(group, "text", x=_n(x(task.start_us) + 3), y=_n(top + _BAR / 2 + 4),
                          attrib={"clip-path": f"url(#bar{index})"})
    label.text = task.kernel


def _legend(svg: ET.Element, colours: dict[str, str], top: float) -> None:
    """A swatch and the name of each kernel, in a row under the axis."""
    at = _LEFT
    for kernel, colour in colours.items():
        item = ET.SubElement(svg, "g", attrib={"class": "legend", "data-kernel": kernel})
        ET.SubElement(item, "rect", x=_n(at), y=_n(top), width="12", height="12", fill=colour, stroke="#333",
                      attrib={"stroke-width": "0.5"})
        ET.SubElement(item, "text", x=_n(at + 16), y=_n(top + 10)).text = kernel
        at += 16 + 7 * len(kernel) + 18


def _edges(svg: ET.Element, timeline: Timeline, x: Scale, y: Callable[[int], float]) -> None:
    """An arrow per edge from each run of the predecessor to each run of the successor (one each, but SPMD)."""
    runs: dict[int, list[TaskRun]] = {}
    for task in timeline.tasks:
        runs.setdefault(task.task_id, []).append(task)
    for pred, succ in timeline.edges:
        for a in runs.get(pred, ()):
            for b in runs.get(succ, ()):
                ET.SubElement(svg, "line", attrib={
                    "class": "dep", "data-pred": str(pred), "data-succ": str(succ), "marker-end": "url(#arrow)",
                    "stroke-width": "1",
                }, x1=_n(x(a.end_us)), y1=_n(y(a.core_id) + _BAR / 2), x2=_n(x(b.start_us)),
                    y2=_n(y(b.core_id) + _BAR / 2), stroke="#444")


def _n(value: float) -> str:
    """A coordinate as short text (two decimals at most)."""
    return f"{value:.2f}".rstrip("0").rstrip(".")
