"""Memory maps render in headless Chromium: a well-formed SVG document, drawn to a PNG of the expected size
that is neither blank nor all ink. Needs Debian's ``chromium`` (.ci/run installs it)."""

from __future__ import annotations

from pathlib import Path

import pytest
from chromium import dump_dom, render_png, requires_chromium

import pypto.language as pl
from pypto.memmap import plan_maps, render_svg

pytestmark = requires_chromium
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.mark.parametrize("example, kernel, height", [
    ("row_softmax", "softmax", 346),
    ("mixed_matmul_softmax", "main_incore_0_aic", 1234),
])
def test_the_memory_map_renders_to_a_png(example: str, kernel: str, height: int, tmp_path: Path) -> None:
    svg = tmp_path / f"{kernel}.svg"
    svg.write_text(render_svg(plan_maps(pl.loads_program(str(EXAMPLES / f"{example}.py"))).maps[kernel]))
    assert "parsererror" not in dump_dom(svg.as_uri())
    drawn = render_png(svg, tmp_path / f"{kernel}.png", 1000, height)
    assert (drawn.width, drawn.height) == (1000, height)
    assert drawn.colours > 8 and 0.05 < drawn.ink < 0.8  # lanes, boxes, lines and text on a white page
