"""The timeline SVG renders in headless Chromium: it parses as SVG, every bar has its width and a label
of non-zero length, every edge is drawn. Needs Debian's ``chromium`` (.ci/run installs it)."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

from chromium import dump_dom, render_png, requires_chromium
from timeline_captures import write_run

from pypto.timeline import load_timeline, render_svg

pytestmark = requires_chromium

# Measured by the browser after layout: the bars' boxes and label lengths, the edges, the root element's class.
PROBE = """<pre id="probe"></pre><script>
const bars = [...document.querySelectorAll("g.task")].map(g => [
  g.dataset.kernel, Math.round(g.querySelector("rect").getBBox().width),
  g.querySelector("text").getComputedTextLength() > 0]);
document.getElementById("probe").textContent = JSON.stringify({
  svg: document.querySelector("svg") instanceof SVGSVGElement, bars,
  edges: document.querySelectorAll("line.dep").length, ticks: document.querySelectorAll("text.tick-label").length});
</script>"""



def test_the_svg_renders_in_chromium(tmp_path: Path) -> None:
    svg = render_svg(load_timeline(write_run(tmp_path / "run")))
    alone = tmp_path / "run.svg"
    alone.write_text(svg)
    assert "parsererror" not in dump_dom(alone.as_uri())  # a standalone file is read as XML: it must be well formed
    page = tmp_path / "page.html"
    page.write_text(f"<!doctype html><html><body>{svg.split('?>', 1)[1]}{PROBE}</body></html>")
    found = re.search(r'<pre id="probe">(.*?)</pre>', dump_dom(page.as_uri()), re.DOTALL)
    assert found is not None
    assert json.loads(html.unescape(found.group(1))) == {
        "svg": True, "bars": [["stage1", 550, True], ["stage2", 220, True]], "edges": 1, "ticks": 9,
    }


def test_the_svg_renders_to_a_png(tmp_path: Path) -> None:
    alone = tmp_path / "run.svg"
    alone.write_text(render_svg(load_timeline(write_run(tmp_path / "run"))))
    drawn = render_png(alone, tmp_path / "run.png", 1000, 300)
    assert (drawn.width, drawn.height) == (1000, 300)
    assert drawn.colours > 4 and 0.02 < drawn.ink < 0.6  # bars, text and axis drawn on a mostly white page
