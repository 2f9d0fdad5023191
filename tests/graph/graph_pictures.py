"""Read a task-graph SVG back: its tasks, edges and frames from the classes and ``data-*`` attributes."""

from __future__ import annotations

import shutil
import xml.etree.ElementTree as ET
from dataclasses import dataclass

import pytest

import pypto.language as pl
from pypto import ir
from pypto.graph import draw

NS = {"svg": "http://www.w3.org/2000/svg"}
requires_dot = pytest.mark.skipif(shutil.which("dot") is None,
                                  reason="Graphviz's dot is not installed (.ci/run installs it with apt)")


@dataclass(frozen=True)
class Picture:
    """The groups of one drawn graph, each as its ``data-*`` attributes plus ``class`` and ``text``."""

    root: ET.Element
    tasks: list[dict[str, str]]
    edges: list[dict[str, str]]
    frames: list[dict[str, str]]

    def kernels(self) -> list[tuple[str, str]]:
        return [(t["kernel"], t["core"]) for t in self.tasks]

    def edge_set(self) -> set[tuple[str, str, str, str]]:
        """(source kernel, destination kernel, kind, carried) of every edge."""
        name = {t["task"]: t["kernel"] for t in self.tasks}
        return {(name[e["src"]], name[e["dst"]], e["kind"], e["carried"]) for e in self.edges}


def _groups(root: ET.Element, cls: str) -> list[dict[str, str]]:
    found = []
    for g in root.iter(f"{{{NS['svg']}}}g"):
        classes = (g.get("class") or "").split()
        if cls in classes:
            data = {k[5:]: v for k, v in g.attrib.items() if k.startswith("data-")}
            data["class"] = " ".join(classes)
            data["text"] = " | ".join(t.text or "" for t in g.iter(f"{{{NS['svg']}}}text"))
            found.append(data)
    return found


def read(svg: str) -> Picture:
    """The picture ``svg`` shows: tasks and frames in program order, edges by source and destination."""
    root = ET.fromstring(svg)
    tasks = sorted(_groups(root, "task"), key=lambda t: int(t["task"]))
    edges = sorted(_groups(root, "edge"), key=lambda e: (int(e["src"]), int(e["dst"]), e["kind"]))
    frames = sorted(_groups(root, "frame"), key=lambda f: int(f["frame"]))
    return Picture(root, tasks, edges, frames)


def drawn(program: pl.Program | str, **options: object) -> str:
    """The task-graph SVG of a program (a path, or a program object), compiled without writing pass dumps."""
    if isinstance(program, str):
        program = pl.loads_program(program)
    compiled = ir.compile(program, dump_passes=False)
    return draw(compiled.final_program, **options)
