"""Task-graph pictures of compiled programs (docs/graph.md).

    graph = build_task_graph(compiled.final_program)    # tasks, edges and frames of the orchestration
    Path("graph.svg").write_text(render_svg(fold(graph)))

:func:`draw` does both: the SVG of a compiled (``runtime`` or later) program, folded when large.
"""

from pypto.ir.function import Program

from .build import build_task_graph
from .fold import FOLD_LIMIT, fold
from .model import Edge, EdgeKind, Frame, FrameKind, Task, TaskGraph
from .svg import GraphvizMissingError, check_dot, render_svg

GRAPH_FILE = "graph.svg"


def draw(program: Program, limit: int = FOLD_LIMIT) -> str:
    """The task-graph SVG of a compiled program (more than ``limit`` task sites are folded)."""
    return render_svg(fold(build_task_graph(program), limit))


__all__ = [
    "FOLD_LIMIT",
    "GRAPH_FILE",
    "Edge",
    "EdgeKind",
    "Frame",
    "FrameKind",
    "GraphvizMissingError",
    "Task",
    "TaskGraph",
    "build_task_graph",
    "check_dot",
    "draw",
    "fold",
    "render_svg",
]
