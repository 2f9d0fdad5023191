"""Draw a :class:`~pypto.memmap.model.KernelMap` as SVG: one lane per memory space the kernel uses.

In a lane, x is the statement number (program order, a loop body once) and y the byte address, 0 at
the bottom and the platform's capacity (or the peak, when it is higher) at the top. Each buffer
lifetime is a box from its first to its last statement over its address range, labelled with its
first tile's name, its size and its address (a ``<title>`` lists every tile and the exact figures);
boxes at one address at different times are reuse. Pale bands behind the boxes are loops (a box
across a band lives through every iteration). A dashed line marks the capacity, another the peak;
the part of a box past the capacity, and the band above it, are red. Elements carry classes (``lane``,
``buffer``, ``ring``, ``overflow``, ``loop``, ``capacity``, ``peak``) and ``data-*`` attributes
(name, space, address, size, first and last statement; a lane's pixel geometry) so tools and tests
can read the picture back.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from collections.abc import Callable

from pypto.ir.enums import MemorySpace

from .model import Buffer, KernelMap, LoopSpan

# Pixels of an address (y) or of a statement number's column start (x).
Scale = Callable[[int], float]
_LEFT, _RIGHT, _TOP = 110.0, 170.0, 50.0
_HEADER, _PLOT, _AXIS = 22.0, 240.0, 34.0
_LANE = _HEADER + _PLOT + _AXIS
# Tile colours (ColorBrewer Set3 tones that keep black text legible), by lifetime order within a lane.
_PALETTE = ("#8dd3c7", "#ffffb3", "#bebada", "#80b1d3", "#fdb462", "#b3de69", "#fccde5", "#bc80bd", "#ccebc5")
_RED, _PALE_RED, _RING = "#e0301e", "#fde0dd", "#d9d9d9"
# A box is at least this tall, so a small buffer in a large space stays visible (its true size is in data-size).
MIN_HEIGHT = 3.0


def render_svg(kmap: KernelMap, width: float = 1000.0) -> str:
    """The SVG document of ``kmap``, ``width`` pixels wide."""
    spaces = kmap.spaces()
    plot = width - _LEFT - _RIGHT
    height = _TOP + max(len(spaces), 1) * _LANE
    svg = ET.Element(
        "svg", xmlns="http://www.w3.org/2000/svg", width=_n(width), height=_n(height),
        viewBox=f"0 0 {_n(width)} {_n(height)}",
        attrib={"font-family": "sans-serif", "font-size": "11", "class": "memmap", "data-kernel": kmap.kernel,
                "data-core": kmap.core, "data-platform": kmap.platform, "data-statements": str(kmap.statements)},
    )
    ET.SubElement(svg, "rect", width="100%", height="100%", fill="#ffffff")
    ET.SubElement(svg, "text", x=_n(_LEFT), y="18", attrib={"font-size": "13", "class": "title"}).text = (
        f"{kmap.kernel} ({kmap.core}) on {kmap.platform}: {kmap.statements} statements, "
        f"{len(kmap.buffers)} buffer lifetimes"
    )
    over = kmap.overflowing()
    note = ET.SubElement(svg, "text", x=_n(_LEFT), y="36", attrib={"class": "status"},
                         fill=_RED if over else "#444")
    note.text = ("does not fit: " + "; ".join(
        f"{s.name} needs {kmap.peak(s)} of {kmap.capacity[s]} bytes" for s in over
    )) if over else "fits: every space stays under its capacity"
    if not spaces:
        note.text = "no on-chip buffers"
    for i, space in enumerate(spaces):
        _lane(svg, kmap, space, _TOP + i * _LANE, plot)
    ET.indent(svg)
    return ET.tostring(svg, encoding="unicode", xml_declaration=True) + "\n"


def _lane(svg: ET.Element, kmap: KernelMap, space: MemorySpace, top: float, plot: float) -> None:
    cap = kmap.capacity.get(space)
    peak = kmap.peak(space)
    extent = max(cap or 0, peak, 1)
    bottom = top + _HEADER + _PLOT
    column = plot / kmap.statements

    def y(address: int) -> float:
        return bottom - address / extent * _PLOT

    def x(statement: int) -> float:
        return _LEFT + (statement - 1) * column

    lane = ET.SubElement(svg, "g", attrib={
        "class": "lane", "data-space": space.name, "data-capacity": str(cap if cap is not None else ""),
        "data-peak": str(peak), "data-extent": str(extent), "data-left": _n(_LEFT), "data-width": _n(plot),
        "data-top": _n(bottom - _PLOT), "data-bottom": _n(bottom), "data-column": repr(column),
    })
    ET.SubElement(lane, "text", x=_n(_LEFT), y=_n(top + 15), attrib={"font-size": "12", "class": "lane-label"}).text = (
        f"{space.name}: peak {_bytes(peak)}" + (f" of {_bytes(cap)} ({100 * peak / cap:.0f}%)" if cap else "")
    )
    ET.SubElement(lane, "rect", attrib={"class": "plot"}, x=_n(_LEFT), y=_n(bottom - _PLOT), width=_n(plot),
                  height=_n(_PLOT), fill="#f7f7f7", stroke="#bbb")
    if cap is not None and peak > cap:
        ET.SubElement(lane, "rect", attrib={"class": "over-capacity"}, x=_n(_LEFT), y=_n(y(extent)),
                      width=_n(plot), height=_n(y(cap) - y(extent)), fill=_PALE_RED)
    for depth, loop in enumerate(kmap.loops):
        _loop(lane, loop, x, bottom, depth)
    _address_axis(lane, extent, y)
    _statement_axis(lane, kmap.statements, x, bottom, column)
    for index, buffer in enumerate(b for b in kmap.buffers if b.space is space):
        _box(lane, buffer, cap, x, y, _PALETTE[index % len(_PALETTE)])
    # The capacity's label above its line, the peak's below: apart even when the peak is the capacity.
    if cap is not None:
        _mark(lane, "capacity", cap, y(cap), plot, _RED, f"capacity {_bytes(cap)}", y(cap) - 3)
    kib = "" if peak % 1024 == 0 else f" ({peak / 1024:.1f} KiB)"
    _mark(lane, "peak", peak, y(peak), plot, "#1f5fa8", f"peak {_bytes(peak)}{kib}", y(peak) + 11)


def _loop(lane: ET.Element, loop: LoopSpan, x: Scale, bottom: float, depth: int) -> None:
    """A pale band behind the boxes over the loop's statements: a tile live across it lives every iteration."""
    trips = "" if loop.trips is None else f" \u00d7{loop.trips}"
    band = ET.SubElement(lane, "g", attrib={"class": "loop", "data-first": str(loop.first),
                                            "data-last": str(loop.last), "data-trips": str(loop.trips or "")})
    ET.SubElement(band, "title").text = f"loop{trips}: statements {loop.first}-{loop.last}"
    ET.SubElement(band, "rect", x=_n(x(loop.first)), y=_n(bottom - _PLOT), width=_n(x(loop.last + 1) - x(loop.first)),
                  height=_n(_PLOT), fill="#dfe8f5", attrib={"fill-opacity": "0.6"})
    ET.SubElement(band, "text", x=_n(x(loop.first) + 2), y=_n(bottom - _PLOT + 10 + 10 * (depth % 3)), fill="#5a6f8f",
                  attrib={"font-size": "9"}).text = f"loop{trips}"


def _box(lane: ET.Element, buffer: Buffer, cap: int | None, x: Scale, y: Scale, colour: str) -> None:
    """The box of ``buffer``; the part of it past the capacity ``cap`` is red."""
    overflow = cap is not None and buffer.end > cap
    kind = "ring" if buffer.ring else "buffer"
    classes = kind + (" overflow" if overflow else "")
    group = ET.SubElement(lane, "g", attrib={
        "class": classes, "data-name": buffer.names[0], "data-names": ",".join(buffer.names),
        "data-space": buffer.space.name, "data-address": str(buffer.address), "data-size": str(buffer.size),
        "data-first": str(buffer.first), "data-last": str(buffer.last),
    })
    tiles = "pipe ring " + buffer.names[0] if buffer.ring else ", ".join(buffer.names)
    ET.SubElement(group, "title").text = (
        f"{tiles}: {buffer.space.name} [{buffer.address}, {buffer.end}) = {buffer.size} bytes, "
        f"statements {buffer.first}-{buffer.last}" + (" (past the capacity)" if overflow else "")
    )
    left, right = x(buffer.first), x(buffer.last + 1)
    top, height = y(buffer.end), max(y(buffer.address) - y(buffer.end), MIN_HEIGHT)
    box = {"x": _n(left), "y": _n(top), "width": _n(right - left), "height": _n(height)}
    ET.SubElement(group, "rect", attrib={**box, "stroke-width": "0.6", **(
        {"stroke-dasharray": "4 2"} if buffer.ring else {})}, fill=_RING if buffer.ring else colour, stroke="#333")
    if overflow:
        over = y(max(cap, buffer.address))
        ET.SubElement(group, "rect", attrib={"class": "overflow-part"}, x=_n(left), y=_n(top), width=_n(right - left),
                      height=_n(over - top), fill=_RED)
    if height < 12:
        return
    clip_id = f"clip-{buffer.space.name}-{buffer.address}-{buffer.first}"
    clip = ET.SubElement(group, "clipPath", id=clip_id)
    ET.SubElement(clip, "rect", attrib=box)
    more = f" +{len(buffer.names) - 1}" if len(buffer.names) > 1 else ""
    label = ET.SubElement(group, "text", x=_n(left + 3), y=_n(top + min(height / 2 + 4, 13)),
                          attrib={"clip-path": f"url(#{clip_id})", "font-size": "10"})
    label.text = f"{buffer.names[0]}{more} {_bytes(buffer.size)} @{buffer.address}"


def _mark(lane: ET.Element, kind: str, value: int, at: float, plot: float, colour: str, text: str,
          label_at: float) -> None:
    """A dashed line across the lane at ``at`` with its label right of the plot, at ``label_at``."""
    ET.SubElement(lane, "line", attrib={"class": kind, "data-bytes": str(value), "stroke-dasharray": "6 3",
                                        "stroke-width": "1.5"},
                  x1=_n(_LEFT), y1=_n(at), x2=_n(_LEFT + plot), y2=_n(at), stroke=colour)
    label = ET.SubElement(lane, "text", attrib={"class": f"{kind}-label"}, x=_n(_LEFT + plot + 6),
                          y=_n(label_at), fill=colour)
    label.text = text


def _address_axis(lane: ET.Element, extent: int, y: Scale) -> None:
    step = _byte_step(extent)
    for i in range(int(extent // step) + 1):
        value = i * step
        ET.SubElement(lane, "line", attrib={"class": "tick"}, x1=_n(_LEFT - 5), y1=_n(y(value)), x2=_n(_LEFT),
                      y2=_n(y(value)), stroke="#000")
        ET.SubElement(lane, "text", attrib={"class": "tick-label", "text-anchor": "end"}, x=_n(_LEFT - 8),
                      y=_n(y(value) + 4)).text = _bytes(value)


def _statement_axis(lane: ET.Element, statements: int, x: Scale, bottom: float, column: float) -> None:
    step = _count_step(statements)
    for n in sorted({1, *range(step, statements + 1, step)}):
        at = x(n) + column / 2
        ET.SubElement(lane, "line", attrib={"class": "tick"}, x1=_n(at), y1=_n(bottom), x2=_n(at),
                      y2=_n(bottom + 4), stroke="#000")
        ET.SubElement(lane, "text", attrib={"class": "tick-label", "text-anchor": "middle"}, x=_n(at),
                      y=_n(bottom + 15)).text = str(n)
    ET.SubElement(lane, "text", attrib={"class": "axis-label", "text-anchor": "end"}, x=_n(x(statements + 1)),
                  y=_n(bottom + 28)).text = "statement (program order, a loop body once)"


def _byte_step(span: int) -> int:
    """An address tick step for about 5 ticks over ``span`` bytes: a power of two (of KiB when large)."""
    return 2 ** max(0, math.ceil(math.log2(max(span / 5, 1))))


def _count_step(span: int) -> int:
    """A 1/2/5 x 10^k statement tick step for about 10 ticks over ``span``."""
    raw = max(span / 10, 1)
    power = 10 ** math.floor(math.log10(raw))
    return int(next(m * power for m in (1, 2, 5, 10) if m * power >= raw))


def _bytes(n: int) -> str:
    """A byte count as text: KiB when a whole number of them."""
    return f"{n // 1024} KiB" if n and n % 1024 == 0 else f"{n} B"


def _n(value: float) -> str:
    """A coordinate as short text (two decimals at most)."""
    return f"{value:.2f}".rstrip("0").rstrip(".")
