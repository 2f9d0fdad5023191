"""The edges of the task graph on hand-written ``runtime`` programs: the runtime's automatic rule (regions,
an ``inout`` that covers a writer), TaskIds carried through ``while`` loops and ``if`` results, and the
compiler's derived edges (docs/graph.md#contents)."""

from __future__ import annotations

import pypto.language as pl
from pypto.graph import EdgeKind, TaskGraph, build_task_graph, fold

HEAD = """
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIV)
    def k(self, x: pl.Tensor[[64, 64], pl.FP32],
          y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        return y

    @pl.function(type=pl.FunctionType.AIV)
    def h(self, x: pl.Tensor[[64, 64], pl.FP32],
          y: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        return y

    @pl.function(type=pl.FunctionType.AIV)
    def g(self, x: pl.Tensor[[32, 64], pl.FP32],
          y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        return y

    @pl.function(type=pl.FunctionType.Orchestration, auto_scope=False)
    def main(self, x: pl.Tensor[[64, 64], pl.FP32], n: pl.Scalar[pl.INDEX],
             y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
"""
IN_OUT = 'attrs={"arg_directions": [pl.adir.input, pl.adir.output_existing]}'
IN_INOUT = 'attrs={"arg_directions": [pl.adir.input, pl.adir.inout]}'


def graph(body: str) -> TaskGraph:
    return build_task_graph(pl.parse_program(HEAD + "".join(f"        {line}\n" for line in body.strip().splitlines())))


def edges(g: TaskGraph) -> set[tuple[int, int, str, bool]]:
    return {(e.src, e.dst, e.kind.value, e.carried) for e in g.edges}


def test_writers_of_disjoint_slices_feed_only_the_readers_of_their_own_rows() -> None:
    g = graph(f"""
with pl.scope():
    top: pl.Tensor[[32, 64], pl.FP32] = pl.tensor.slice(y, [32, 64], [0, 0])
    bottom: pl.Tensor[[32, 64], pl.FP32] = pl.tensor.slice(y, [32, 64], [32, 0])
    top_1: pl.Tensor[[32, 64], pl.FP32] = self.h(x, top, {IN_OUT})
    bottom_1: pl.Tensor[[32, 64], pl.FP32] = self.h(x, bottom, {IN_OUT})
    z: pl.Tensor[[64, 64], pl.FP32] = pl.create_tensor([64, 64], dtype=pl.FP32)
    w: pl.Tensor[[64, 64], pl.FP32] = pl.create_tensor([64, 64], dtype=pl.FP32)
    again: pl.Tensor[[32, 64], pl.FP32] = pl.tensor.slice(y, [32, 64], [32, 0])
    z_1: pl.Tensor[[64, 64], pl.FP32] = self.g(again, z, {IN_OUT})
    w_1: pl.Tensor[[64, 64], pl.FP32] = self.k(y, w, {IN_OUT})
return y""")
    # task 2 reads rows 32-64 (bottom's); task 3 reads all of y: both writers
    assert edges(g) == {(1, 2, "auto", False), (0, 3, "auto", False), (1, 3, "auto", False)}
    assert {e.buffer for e in g.edges} == {"y"}


def test_an_inout_that_covers_a_writer_replaces_it() -> None:
    g = graph(f"""
with pl.scope():
    y_1: pl.Tensor[[64, 64], pl.FP32] = self.k(x, y, {IN_OUT})
    y_2: pl.Tensor[[64, 64], pl.FP32] = self.k(x, y_1, {IN_INOUT})
    z: pl.Tensor[[64, 64], pl.FP32] = pl.create_tensor([64, 64], dtype=pl.FP32)
    z_1: pl.Tensor[[64, 64], pl.FP32] = self.k(y_2, z, {IN_OUT})
return y_2""")
    assert edges(g) == {(0, 1, "auto", False), (1, 2, "auto", False)}  # not 0 -> 2: task 1 replaced task 0


def test_a_task_id_carried_through_a_while_loop() -> None:
    g = graph(f"""
with pl.manual_scope():
    t0: pl.Scalar[pl.TASK_ID] = pl.system.task_invalid()
    m0: pl.Scalar[pl.INDEX] = 0
    for (m, prev) in pl.while_(init_values=(m0, t0)):
        pl.cond(m < n)
        y_1, t = pl.submit(self.k, x, y, deps=[prev], {IN_INOUT})
        m_1: pl.Scalar[pl.INDEX] = m + 1
        m_2, last = pl.yield_(m_1, t)
    y_2, _ = pl.submit(self.k, x, y, deps=[last], {IN_INOUT})
return y""")
    assert [(t.kernel, t.frame) for t in g.tasks] == [("k", 2), ("k", 1)]
    assert [(f.kind.value, f.label, f.trips) for f in g.frames[1:]] == [("manual", "manual scope", None),
                                                                       ("loop", "while m < n", None)]
    assert edges(g) == {(0, 0, "explicit", True), (0, 1, "explicit", False)}


def test_a_task_id_an_if_yields_names_the_task_of_either_branch() -> None:
    g = graph(f"""
with pl.manual_scope():
    if n > 0:
        y_1, a = pl.submit(self.k, x, y, {IN_OUT})
        t = pl.yield_(a)
    else:
        y_2, b = pl.submit(self.k, x, y, {IN_OUT})
        t = pl.yield_(b)
    y_3, _ = pl.submit(self.k, x, y, deps=[t], {IN_INOUT})
return y""")
    assert [f.label for f in g.frames[2:]] == ["if n > 0", "else (not n > 0)"]
    assert edges(g) == {(0, 2, "explicit", False), (1, 2, "explicit", False)}


def test_the_compilers_own_edges_are_derived() -> None:
    g = graph(f"""
with pl.scope():
    y_1, a = pl.submit(self.k, x, y, {IN_OUT})
    z: pl.Tensor[[64, 64], pl.FP32] = pl.create_tensor([64, 64], dtype=pl.FP32)
    z_1, b = pl.submit(self.k, x, z, attrs={{"arg_directions": [pl.adir.no_dep, pl.adir.output_existing],
                                             "compiler_manual_dep_edges": [a]}})
return y_1""")
    assert [(e.src, e.dst, e.kind) for e in g.edges] == [(0, 1, EdgeKind.DERIVED)]


def test_tasks_in_no_frame_fold_from_the_limit_on() -> None:
    g = graph(f"""
y_1: pl.Tensor[[64, 64], pl.FP32] = self.k(x, y, {IN_OUT})
y_2: pl.Tensor[[64, 64], pl.FP32] = self.k(x, y_1, {IN_INOUT})
y_3: pl.Tensor[[64, 64], pl.FP32] = self.k(x, y_2, {IN_INOUT})
return y_3""")
    assert fold(g, 3) is g
    folded = fold(g, 2)
    assert [(t.id, t.kernel, t.core, t.folded) for t in folded.tasks] == [
        (0, "k", "AIV", 0), (1, "the tasks after these: k", "folded", 2)]
    assert edges(folded) == {(0, 1, "auto", False)}  # 0 -> 1 leads into the box; 1 -> 2 is inside it
    assert folded.summary() == "2 task sites (folded from 3), 1 edge (1 auto)"


def test_a_carry_that_swaps_buffers_is_every_buffer_it_may_name() -> None:
    # trip 2's t is b: the reader of u (a on trip 2) waits for trip 1's writer of t (a)
    g = graph(f"""
with pl.scope():
    a: pl.Tensor[[64, 64], pl.FP32] = pl.create_tensor([64, 64], dtype=pl.FP32)
    b: pl.Tensor[[64, 64], pl.FP32] = pl.create_tensor([64, 64], dtype=pl.FP32)
    for i, (t, u) in pl.range(3, init_values=(a, b)):
        t_1: pl.Tensor[[64, 64], pl.FP32] = self.k(x, t, {IN_OUT})
        y_1: pl.Tensor[[64, 64], pl.FP32] = self.k(u, y, {IN_OUT})
        t_2, u_2 = pl.yield_(u, t_1)
return y""")
    assert edges(g) == {(0, 1, "auto", False)}
