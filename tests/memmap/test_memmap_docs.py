"""The docs page on the memory map shows the softmax example's map, generated while the site builds."""

from __future__ import annotations

import importlib.util
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pypto.language as pl
from pypto.memmap import plan_maps, render_svg

ROOT = Path(__file__).resolve().parents[2]


def test_the_memmap_page_inlines_the_softmax_map() -> None:
    spec = importlib.util.spec_from_file_location("docs_reference_memmap", ROOT / "docs" / "_gen" / "reference.py")
    reference = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(reference)
    page = reference.expand((ROOT / "docs" / "memmap.md").read_text())
    found = re.search(r"<svg .*?</svg>", page, re.DOTALL)
    assert found is not None and "<!-- generate:" not in page
    drawn = render_svg(plan_maps(pl.loads_program(str(ROOT / "examples" / "row_softmax.py"))).maps["softmax"])
    assert found.group(0) == drawn.split("?>", 1)[1].strip()
    root = ET.fromstring(found.group(0))
    assert root.get("data-kernel") == "softmax" and len(root.findall(".//{*}g[@class='buffer']")) == 4
