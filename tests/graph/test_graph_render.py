"""The task-graph SVG renders in headless Chromium: a well-formed standalone file, every task box and edge
laid out with a size, the PNG not blank. Needs Debian's ``chromium`` (.ci/run installs it)."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

from chromium import dump_dom, render_png, requires_chromium
from graph_pictures import drawn, requires_dot

pytestmark = [requires_chromium, requires_dot]

# Measured by the browser after layout: each task's box size and label length, the edges and frames drawn.
PROBE = """<pre id="probe"></pre><script>
const size = g => { const b = g.getBBox(); return b.width > 10 && b.height > 10; };
document.getElementById("probe").textContent = JSON.stringify({
  tasks: [...document.querySelectorAll("g.task")].map(g => [
    g.dataset.kernel, size(g), g.querySelector("text").getComputedTextLength() > 0]),
  edges: [...document.querySelectorAll("g.edge")].map(g => g.querySelector("path").getTotalLength() > 10),
  frames: [...document.querySelectorAll("g.frame")].map(g => [g.dataset.kind, size(g)])});
</script>"""


def test_the_svg_renders_in_chromium(tmp_path: Path) -> None:
    svg = drawn("examples/deps_phase_fence.py")
    alone = tmp_path / "graph.svg"
    alone.write_text(svg)
    assert "parsererror" not in dump_dom(alone.as_uri())  # a standalone file is read as XML: it must be well formed
    page = tmp_path / "page.html"
    page.write_text(f"<!doctype html><html><body>{svg}{PROBE}</body></html>")
    found = re.search(r'<pre id="probe">(.*?)</pre>', dump_dom(page.as_uri()), re.DOTALL)
    assert found is not None
    probe = json.loads(html.unescape(found.group(1)))
    assert sorted(probe["tasks"]) == [["finish", True, True], ["kernel_stripe", True, True],
                                      ["phase fence barrier", True, True]]
    assert probe["edges"] == [True, True, True]
    assert sorted(probe["frames"]) == [["loop", True], ["loop", True], ["manual", True]]


def test_the_svg_renders_to_a_png(tmp_path: Path) -> None:
    alone = tmp_path / "graph.svg"
    alone.write_text(drawn("examples/deps_task_array.py"))
    shot = render_png(alone, tmp_path / "graph.png", 800, 500)
    assert (shot.width, shot.height) == (800, 500)
    assert shot.colours > 4 and 0.02 < shot.ink < 0.6  # boxes, frames, arrows and text on a mostly white page
