"""The task graph of compiled programs, read back from the SVG: one box per task site with its kernel, core
type, block count and predicate; edges of each kind; scopes and loops as frames (docs/graph.md)."""

from __future__ import annotations

import pytest
from graph_pictures import drawn, read, requires_dot

import pypto.language as pl
from pypto.graph import build_task_graph
from pypto.ir.errors import PyptoError

pytestmark = requires_dot

PREDICATED = """
import pypto.language as pl

@pl.program
class SkipEmptyExperts:
    @pl.function(type=pl.FunctionType.InCore)
    def gate(self, counts: pl.Tensor[[1, 8], pl.INT32],
             rc: pl.Out[pl.Tensor[[1, 8], pl.INT32]]) -> pl.Tensor[[1, 8], pl.INT32]:
        t: pl.Tile[[1, 8], pl.INT32] = pl.load(counts, [0, 0], [1, 8])
        rc = pl.store(t, [0, 0], rc)
        return rc

    @pl.function(type=pl.FunctionType.InCore)
    def expert(self, x: pl.Tensor[[16, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t: pl.Tile[[16, 64], pl.FP32] = pl.load(x, [0, 0], [16, 64])
        out = pl.store(pl.mul(t, 2.0), [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 64], pl.FP32], counts: pl.Tensor[[1, 8], pl.INT32],
             out0: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
             out1: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        rc: pl.Tensor[[1, 8], pl.INT32] = pl.create_tensor([1, 8], dtype=pl.INT32)
        with pl.manual_scope():
            rc, g_tid = pl.submit(self.gate, counts, rc)
            out0, _ = pl.submit(self.expert, x, out0, deps=[g_tid], predicate=(rc[0, 0] > 0))
            out1, _ = pl.submit(self.expert, x, out1, deps=[g_tid], predicate=(0 < rc[0, 1]))
        return out1
"""

BRANCHES = """
import pypto.language as pl

@pl.program
class Branches:
    @pl.function(type=pl.FunctionType.InCore)
    def double(self, x: pl.Tensor[[16, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t: pl.Tile[[16, 64], pl.FP32] = pl.load(x, [0, 0], [16, 64])
        out = pl.store(pl.mul(t, 2.0), [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.InCore)
    def negate(self, x: pl.Tensor[[16, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t: pl.Tile[[16, 64], pl.FP32] = pl.load(x, [0, 0], [16, 64])
        out = pl.store(pl.neg(t), [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 64], pl.FP32], n: pl.Scalar[pl.INDEX],
             out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        tmp: pl.Tensor[[16, 64], pl.FP32] = pl.create_tensor([16, 64], dtype=pl.FP32)
        if n > 0:
            tmp = self.double(x, tmp)
        else:
            tmp = self.negate(x, tmp)
        out = self.double(tmp, out)
        return out
"""

WIDE = """
import pypto.language as pl

@pl.program
class Wide:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.FP32],
          out: pl.InOut[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t: pl.Tile[[16, 64], pl.FP32] = pl.load(x, [0, 0], [16, 64])
        out = pl.store(t, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 64], pl.FP32],
             out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        for i in pl.unroll(4):
            for j in pl.range(2):
                for b in pl.unroll(100):
                    out = self.k(x, out)
        return out
"""


def test_phase_fence_barriers_loops_and_the_manual_scope() -> None:
    picture = read(drawn("examples/deps_phase_fence.py"))
    assert picture.kernels() == [("phase fence barrier", "dummy"), ("kernel_stripe", "AIV"), ("finish", "AIV")]
    assert picture.tasks[0]["class"] == "task dummy barrier"
    assert picture.edge_set() == {
        ("kernel_stripe", "phase fence barrier", "fence", "true"),  # the previous phase's 4 branches
        ("phase fence barrier", "kernel_stripe", "fence", "false"),
        ("kernel_stripe", "finish", "explicit", "false"),  # the last phase's 4 branches
    }
    frames = {f["frame"]: f for f in picture.frames}
    assert [(f["kind"], f["label"], f["trips"]) for f in frames.values()] == [
        ("manual", "manual scope", ""),
        ("loop", "for phase in range(3)", "3"),
        ("loop", "parallel branch in range(4)", "4"),
    ]
    assert frames["2"]["text"] == "for phase in range(3) ×3" and frames["3"]["text"].endswith("×4")
    # the barrier sits in the phase loop, a stripe in the parallel loop inside it, finish in the scope
    assert [t["frame"] for t in picture.tasks] == ["2", "3", "1"]
    assert frames["3"]["parent"] == "2" and frames["2"]["parent"] == "1"


def test_an_explicit_edge_on_top_of_the_automatic_one() -> None:
    picture = read(drawn("examples/deps_explicit_edge.py"))
    assert picture.kernels() == [("preprocess", "AIV"), ("consume", "AIV")]
    assert picture.edge_set() == {("preprocess", "consume", "explicit", "false"),
                                  ("preprocess", "consume", "auto", "false")}
    assert {e["kind"]: e["buffer"] for e in picture.edges} == {"explicit": "", "auto": "tmp"}
    assert [f["kind"] for f in picture.frames] == ["scope"]


def test_a_user_task_dummy_fans_in_without_automatic_edges_in_a_manual_scope() -> None:
    picture = read(drawn("examples/deps_fan_in.py"))
    assert picture.kernels() == [("half", "AIV"), ("half", "AIV"), ("task_dummy", "dummy"), ("consume", "AIV")]
    assert picture.tasks[2]["class"] == "task dummy"  # the user's own, not a phase-fence barrier
    assert {(e["src"], e["dst"], e["kind"]) for e in picture.edges} == {
        ("0", "2", "explicit"), ("1", "2", "explicit"), ("2", "3", "explicit")}
    assert [t["depth"] for t in picture.tasks] == ["0", "0", "1", "2"]


@pytest.mark.parametrize(("example", "edges"), [
    # scratch is manual_dep=True: the runtime tracks it for no task, so only the deps= edge orders them
    ("examples/deps_manual_tensor.py", {("fill", "consume", "explicit", "false")}),
    # the first shift reads x as no_dep; the second reads what the first wrote
    ("examples/deps_no_dep_dump.py", {("shift", "shift", "auto", "false")}),
    ("examples/deps_at_blocks.py", {("main_incore_0", "main_incore_1", "explicit", "false")}),
    ("examples/manual_deps.py", {("stage1", "stage2", "explicit", "false")}),
    ("examples/deps_task_array.py", {("produce", "phase fence barrier", "fence", "false"),
                                     ("phase fence barrier", "consume", "fence", "false"),
                                     ("produce", "last", "explicit", "false")}),
    ("examples/chained.py", {("twice", "half_plus_one", "auto", "false")}),
    ("examples/tile_add.py", set()),
])
def test_the_edges_of_each_dependency_form(example: str, edges: set[tuple[str, str, str, str]]) -> None:
    assert read(drawn(example)).edge_set() == edges


def test_a_single_kernel() -> None:
    picture = read(drawn("examples/tile_add.py"))
    assert [(t["kernel"], t["core"], t["blocks"], t["line"]) for t in picture.tasks] == [("tile_add", "AIV", "", "27")]
    assert picture.tasks[0]["text"] == "tile_add | AIV"


@pytest.mark.parametrize(("example", "task"), [
    ("examples/mixed_linear_relu.py", ("main_incore_0", "mixed", "", "main_incore_0 | mixed")),
    ("examples/tensor_spmd.py", ("main_incore_0", "AIV", "4", "main_incore_0 | AIV × 4 blocks")),
    ("examples/cross_core_spmd.py", ("mm", "mixed", "2", "mm | mixed × 2 blocks")),
    ("examples/matmul.py", ("matmul", "AIC", "", "matmul | AIC")),
])
def test_core_types_and_block_counts(example: str, task: tuple[str, str, str, str]) -> None:
    (found,) = read(drawn(example)).tasks
    assert (found["kernel"], found["core"], found["blocks"], found["text"]) == task


def test_predicated_tasks_are_marked_with_the_comparison_the_scheduler_makes() -> None:
    picture = read(drawn(pl.parse(PREDICATED)))
    assert [(t["kernel"], t["class"], t["predicate"]) for t in picture.tasks] == [
        ("gate", "task", ""),
        ("expert", "task predicated", "rc[0, 0] > 0"),
        ("expert", "task predicated", "rc[0, 1] > 0"),  # written mirrored: 0 < rc[0, 1]
    ]
    assert picture.tasks[1]["text"] == "expert | AIV | only if rc[0, 0] > 0"
    # the manual scope inside the automatic one is drawn solid, not with its parent's dashes
    groups = {g.get("data-kind"): g for g in picture.root.iter("{http://www.w3.org/2000/svg}g")
              if "frame" in (g.get("class") or "").split()}
    dashes = {kind: [p.get("stroke-dasharray") for p in g if p.tag.endswith("polygon")] for kind, g in groups.items()}
    assert dashes == {"scope": ["5,2"], "manual": [None]}


def test_a_loop_is_drawn_once_and_its_trips_chain_through_a_carried_edge() -> None:
    # Each trip passes the whole of out as inout: the runtime orders every trip after the one before.
    picture = read(drawn("examples/tensor_row_loop.py"))
    assert picture.kernels() == [("main_incore_0", "AIV")]
    assert [(e["src"], e["dst"], e["kind"], e["carried"], e["buffer"]) for e in picture.edges] == [
        ("0", "0", "auto", "true", "out")]
    assert picture.edges[0]["class"] == "edge auto carried" and picture.edges[0]["text"] == "↻ out"
    assert [(f["kind"], f["trips"]) for f in picture.frames] == [("scope", ""), ("loop", "4"), ("scope", "")]


def test_a_loop_of_a_dynamic_trip_count() -> None:
    loop = next(f for f in read(drawn("examples/tensor_dyn_rows.py")).frames if f["kind"] == "loop")
    assert (loop["label"], loop["trips"]) == ("for i in range(0, N, 32)", "")
    assert loop["text"] == "for i in range(0, N, 32) × dynamic"


def test_the_branches_of_an_if_are_frames_and_both_feed_the_reader() -> None:
    picture = read(drawn(pl.parse(BRANCHES)))
    assert picture.kernels() == [("double", "AIV"), ("negate", "AIV"), ("double", "AIV")]
    assert [(f["kind"], f["label"]) for f in picture.frames if f["kind"] == "branch"] == [
        ("branch", "if n > 0"), ("branch", "else (not n > 0)")]
    assert {(e["src"], e["dst"], e["kind"], e["buffer"]) for e in picture.edges} == {
        ("0", "2", "auto", "tmp"), ("1", "2", "auto", "tmp")}


def test_a_large_graph_is_folded_innermost_frames_first() -> None:
    program = pl.parse(WIDE)
    picture = read(drawn(program))
    assert [(t["core"], t["folded"], t["kernel"]) for t in picture.tasks] == [("folded", "100", "in PTO2 scope: k")] * 4
    assert all(t["class"] == "task folded" for t in picture.tasks)
    title = " ".join(t.text or "" for t in picture.root.iter("{http://www.w3.org/2000/svg}text"))
    assert "main: 4 task sites (folded from 400), 7 edges (7 auto)" in title
    # each box chains to the next, and within a box the runtime chains every trip of the loop
    assert sorted((e["src"], e["dst"], e["carried"]) for e in picture.edges) == [
        ("0", "0", "true"), ("0", "100", "false"), ("100", "100", "true"), ("100", "200", "false"),
        ("200", "200", "true"), ("200", "300", "false"), ("300", "300", "true")]
    assert len(read(drawn(program, limit=400)).tasks) == 400


def test_a_program_without_orchestration_has_no_graph() -> None:
    from pypto import ir

    compiled = ir.compile(pl.loads_program("examples/loop_sum.py"), dump_passes=False)
    with pytest.raises(PyptoError, match="has no Orchestration function: it submits no tasks"):
        build_task_graph(compiled.final_program)
