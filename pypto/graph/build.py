"""Build the :class:`~pypto.graph.model.TaskGraph` of a compiled program from its final IR: the task
sites and frames (:mod:`pypto.graph.sites`), then the edges between them (:mod:`pypto.graph.flows`)."""

from __future__ import annotations

from pypto.codegen.orchestration import orchestration_function
from pypto.ir.errors import PyptoError
from pypto.ir.function import Program

from .flows import dependency_edges
from .model import TaskGraph
from .sites import Sites


def build_task_graph(program: Program) -> TaskGraph:
    """The task graph of ``program``'s Orchestration function (a ``runtime`` or later program)."""
    func = orchestration_function(program)
    if func is None:
        raise PyptoError(f"program '{program.name}' has no Orchestration function: it submits no tasks, so there "
                         "is no task graph to draw (hint: the graph shows the kernel calls of a function of "
                         "type pl.FunctionType.Orchestration)")
    sites = Sites(program, func)
    sites.graph.edges = dependency_edges(program, func, sites.graph.tasks, sites.task)
    return sites.graph
