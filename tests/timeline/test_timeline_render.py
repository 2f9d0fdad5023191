"""The timeline SVG renders in headless Chromium: it parses as SVG, every bar has its width and a label
of non-zero length, every edge is drawn. Needs Debian's ``chromium`` (.ci/run installs it)."""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from timeline_captures import write_run

from pypto.timeline import load_timeline, render_svg

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium is not installed (.ci/run installs it)")

# Measured by the browser after layout: the bars' boxes and label lengths, the edges, the root element's class.
PROBE = """<pre id="probe"></pre><script>
const bars = [...document.querySelectorAll("g.task")].map(g => [
  g.dataset.kernel, Math.round(g.querySelector("rect").getBBox().width),
  g.querySelector("text").getComputedTextLength() > 0]);
document.getElementById("probe").textContent = JSON.stringify({
  svg: document.querySelector("svg") instanceof SVGSVGElement, bars,
  edges: document.querySelectorAll("line.dep").length, ticks: document.querySelectorAll("text.tick-label").length});
</script>"""


def _dump(url: str) -> str:
    done = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", url],
        capture_output=True, text=True, timeout=120, check=True,
    )
    return done.stdout


def test_the_svg_renders_in_chromium(tmp_path: Path) -> None:
    svg = render_svg(load_timeline(write_run(tmp_path / "run")))
    alone = tmp_path / "run.svg"
    alone.write_text(svg)
    assert "parsererror" not in _dump(alone.as_uri())  # a standalone file is read as XML: it must be well formed
    page = tmp_path / "page.html"
    page.write_text(f"<!doctype html><html><body>{svg.split('?>', 1)[1]}{PROBE}</body></html>")
    found = re.search(r'<pre id="probe">(.*?)</pre>', _dump(page.as_uri()), re.DOTALL)
    assert found is not None
    assert json.loads(html.unescape(found.group(1))) == {
        "svg": True, "bars": [["stage1", 550, True], ["stage2", 220, True]], "edges": 1, "ticks": 9,
    }
