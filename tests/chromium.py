"""Headless Chromium for the picture tests: render an SVG to a PNG and say what the browser drew.

Needs Debian's ``chromium`` (``.ci/run`` installs it); tests that use it carry ``requires_chromium``.
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
requires_chromium = pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium is not installed (.ci/run installs it)")
_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars")


def dump_dom(url: str) -> str:
    """The page's DOM after its scripts ran."""
    assert CHROMIUM is not None
    done = subprocess.run([CHROMIUM, *_FLAGS, "--dump-dom", url], capture_output=True, text=True, timeout=120, check=True)
    return done.stdout


@dataclass(frozen=True)
class Rendered:
    """A PNG Chromium drew: its size, how many distinct colours, the share of pixels that are not background."""

    width: int
    height: int
    colours: int
    ink: float


def render_png(svg: Path, png: Path, width: int, height: int) -> Rendered:
    """Screenshot ``svg`` (a file) at ``width`` x ``height`` into ``png`` and measure the picture."""
    assert CHROMIUM is not None
    subprocess.run(
        [CHROMIUM, *_FLAGS, f"--screenshot={png}", f"--window-size={width},{height}", svg.as_uri()],
        capture_output=True, text=True, timeout=120, check=True,
    )
    with Image.open(png) as image:
        pixels = np.asarray(image.convert("RGB")).reshape(-1, 3)
        width, height = image.size
    ink = float(np.any(pixels != pixels[0], axis=1).mean())  # the top-left pixel is background
    return Rendered(width, height, len(np.unique(pixels, axis=0)), ink)
