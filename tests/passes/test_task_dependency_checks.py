"""Dependencies the PTO2 runtime would drop without a word are compile errors (docs/tasks.md#dependency-checks,
issue 31 item 5): a dependency on a task not submitted before (which is also what a cycle of explicit
edges would need), a TaskId defined on one path only, a TaskId array slot no task id is written to
before, tasks on the two sides of a manual scope's edge that touch one tensor with no edge, element
accesses after a manual-scope task, and a dispatch predicate whose gate's writer nothing orders it after."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

import pypto.language as pl
from pypto import ir, passes
from pypto.analysis.task_deps import nothing_to_drop
from pypto.language.parser.diagnostics.exceptions import UndefinedVariableError
from pypto.transform.errors import PassError

KERNEL = """
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.FP32],
          out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t: pl.Tile[[16, 64], pl.FP32] = pl.load(x, [0, 0], [16, 64])
        out = pl.store(pl.add(t, 1.0), [0, 0], out)
        return out
"""


def source(body: str) -> str:
    """The kernel ``k`` and an orchestration ``main(x, n, out)`` running ``body`` (from line 17)."""
    return f"""
import pypto.language as pl


@pl.program
class P:{KERNEL}
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 64], pl.FP32], n: pl.Scalar[pl.INDEX],
             out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
{textwrap.indent(textwrap.dedent(body).strip(), " " * 8)}
        return out
"""


def compile_body(body: str, tmp_path: Path) -> None:
    ir.compile(pl.parse(source(body), filename="deps.py"), output_dir=tmp_path / "out", skip_ptoas=True)


@pytest.mark.parametrize("body", [
    """
    with pl.manual_scope():
        out, t1 = pl.submit(self.k, x, out, deps=[t2])
        out, t2 = pl.submit(self.k, x, out, deps=[t1])
    """,
    """
    with pl.manual_scope():
        out, t2 = pl.submit(self.k, x, out, deps=[t2])
    """,
    """
    with pl.manual_scope():
        for i in pl.range(4):
            out, t2 = pl.submit(self.k, x, out, deps=[t2])
    """,
], ids=["two-task-cycle", "self-edge", "loop-without-seed"])
def test_a_dependency_on_a_later_task_is_refused_so_explicit_edges_form_no_cycle(body: str) -> None:
    with pytest.raises(UndefinedVariableError) as info:
        pl.parse(source(body), filename="deps.py")
    assert "deps= names 't2', which nothing before this task defines" in str(info.value)
    assert info.value.hint == "a task waits only for tasks submitted before it: submit the producer first"


def test_a_task_id_defined_on_one_path_only_is_refused(tmp_path: Path) -> None:
    with pytest.raises(PassError) as info:
        compile_body("""
        with pl.manual_scope():
            if n > 2:
                out, t1 = pl.submit(self.k, x, out)
            out, _ = pl.submit(self.k, x, out, deps=[t1])
        """, tmp_path)
    assert str(info.value).splitlines()[:2] == [
        "ConvertToSSA: 't1' is assigned in only one branch of this if and read after it; assign it before "
        "the if or in both branches", "   --> deps.py:18:13"]


UNWRITTEN = "to which no task id is written before this task: it holds only invalid ids, which the runtime skips, " \
            "so nothing orders this task"


@pytest.mark.parametrize(("body", "what", "line"), [
    ("""
    with pl.manual_scope():
        tids = pl.array.create(4, pl.TASK_ID)
        out, t1 = pl.submit(self.k, x, out)
        tids[0] = t1
        out, _ = pl.submit(self.k, x, out, deps=[tids[2]])
    """, "slot 2 of the TaskId array 'tids'", 21),
    ("""
    tids = pl.array.create(4, pl.TASK_ID)
    out, _ = pl.submit(self.k, x, out, deps=[tids])
    out, t1 = pl.submit(self.k, x, out)
    tids[0] = t1
    """, "the TaskId array 'tids'", 18),
    ("""
    with pl.manual_scope():
        tids = pl.array.create(4, pl.TASK_ID)
        prev = tids[n]
        out, _ = pl.submit(self.k, x, out, deps=[prev])
    """, "any slot of the TaskId array 'tids'", 20),
], ids=["constant-slot", "whole-array-written-after", "computed-slot"])
def test_a_dependency_on_an_unwritten_array_slot_is_refused(body: str, what: str, line: int, tmp_path: Path) -> None:
    with pytest.raises(PassError) as info:
        compile_body(body, tmp_path)
    column = 13 if "manual_scope" in body else 9
    text = str(info.value).splitlines()
    assert text[:2] == [f"ExpandManualPhaseFence: a dependency on {what}, {UNWRITTEN}",
                        f"   --> deps.py:{line}:{column}"]
    assert text[-1] == "   = hint: write the producer's TaskId into it first (tids[k] = tid), or drop the dependency"


@pytest.mark.parametrize("body", [
    # written in a while loop at a computed slot, read after it
    """
    with pl.manual_scope():
        tids = pl.array.create(4, pl.TASK_ID)
        i: pl.Scalar[pl.INDEX] = 0
        while i < n:
            out, t = pl.submit(self.k, x, out)
            tids[i] = t
            i = i + 1
        out, _ = pl.submit(self.k, x, out, deps=[tids[3]])
    """,
    # read before the write in a loop body: an earlier trip wrote it
    """
    with pl.manual_scope():
        tids = pl.array.create(4, pl.TASK_ID)
        for i in pl.range(1, 4):
            out, t = pl.submit(self.k, x, out, deps=[tids[0]])
            tids[0] = t
    """,
    # written in one branch of an if only: a path writes it
    """
    with pl.manual_scope():
        tids = pl.array.create(4, pl.TASK_ID)
        if n > 2:
            out, t = pl.submit(self.k, x, out)
            tids[1] = t
        out, _ = pl.submit(self.k, x, out, deps=[tids])
    """,
], ids=["while-computed-slot", "earlier-trip", "one-branch"])
def test_a_slot_some_path_writes_first_is_a_dependency(body: str, tmp_path: Path) -> None:
    compile_body(body, tmp_path)


SCOPED = """
tmp: pl.Tensor[[16, 64], pl.FP32] = pl.create_tensor([16, 64], dtype=pl.FP32{manual_dep})
{body}
"""


@pytest.mark.parametrize(("body", "message", "hint"), [
    ("""
    with pl.manual_scope():
        tmp, t1 = pl.submit(self.k, x, tmp)
    out = self.k(tmp, out)
    """, ("this task touches 'tmp', which the task 'k' (deps.py:19) in a manual scope writes: a task in a manual "
         "scope registers no tensor, so nothing orders this one after it at deps.py:20:9"),
     "make this call a pl.submit(...) with deps=[...]: add the TaskId of 'k' (deps.py:19) to this task's deps=[...]"),
    ("""
    with pl.manual_scope():
        tmp = self.k(x, tmp)
    out, _ = pl.submit(self.k, tmp, out)
    """, ("this task touches 'tmp', which the task 'k' (deps.py:19) in a manual scope writes: a task in a manual "
         "scope registers no tensor, so nothing orders this one after it at deps.py:20:9"),
     "submit 'k' with pl.submit(...) and add its TaskId to this task's deps=[...]"),
    ("""
    tmp = self.k(x, tmp)
    with pl.manual_scope():
        out, t1 = pl.submit(self.k, tmp, out)
    """, ("this task in a manual scope touches 'tmp', which the task 'k' (deps.py:18) outside the scope writes: a "
         "task in a manual scope looks up no tensor, so nothing orders it after that task at deps.py:20:13"),
     "submit 'k' with pl.submit(...) and add its TaskId to this task's deps=[...]"),
    ("""
    with pl.manual_scope():
        tmp, t1 = pl.submit(self.k, x, tmp)
    with pl.manual_scope():
        out, t2 = pl.submit(self.k, tmp, out)
    """, ("this task in a manual scope touches 'tmp', which the task 'k' (deps.py:19) outside the scope writes: a "
         "task in a manual scope looks up no tensor, so nothing orders it after that task at deps.py:21:13"),
     "add the TaskId of 'k' (deps.py:19) to this task's deps=[...]"),
    # a view of the written tensor is that tensor's buffer
    ("""
    with pl.manual_scope():
        tmp, t1 = pl.submit(self.k, x, tmp)
    v: pl.Tensor[[16, 64], pl.FP32] = pl.tensor.reshape(tmp, [16, 64])
    out = self.k(v, out)
    """, ("this task touches 'tmp', which the task 'k' (deps.py:19) in a manual scope writes: a task in a manual "
         "scope registers no tensor, so nothing orders this one after it at deps.py:21:9"),
     "make this call a pl.submit(...) with deps=[...]: add the TaskId of 'k' (deps.py:19) to this task's deps=[...]"),
    # pl.at blocks: named by their line (their kernel's name is the compiler's), deps=[...] on the 'with' line
    ("""
    with pl.manual_scope():
        with pl.at(level=pl.Level.CORE_GROUP):
            tmp = pl.assemble(tmp, pl.add(x, 1.0), [0, 0])
    with pl.at(level=pl.Level.CORE_GROUP):
        out = pl.assemble(out, pl.add(tmp, 1.0), [0, 0])
    """, ("this task touches 'tmp', which the block at deps.py:19 in a manual scope writes: a task in a manual "
         "scope registers no tensor, so nothing orders this one after it at deps.py:21:9"),
     ("name the TaskId of the block at deps.py:19 ('as tid' on its 'with' line) and add it to the deps=[...] of "
      "this block's 'with' line")),
    ("""
    with pl.manual_scope():
        with pl.at(level=pl.Level.CORE_GROUP) as t1:
            tmp = pl.assemble(tmp, pl.add(x, 1.0), [0, 0])
    out = self.k(tmp, out)
    """, ("this task touches 'tmp', which the block at deps.py:19 in a manual scope writes: a task in a manual "
         "scope registers no tensor, so nothing orders this one after it at deps.py:21:9"),
     ("make this call a pl.submit(...) with deps=[...]: add the TaskId of the block at deps.py:19 to this "
      "task's deps=[...]")),
], ids=["auto-reader-after", "plain-writer-inside", "manual-reader-inside", "two-manual-scopes", "reader-of-a-view",
        "blocks", "block-writer-inside"])
def test_tasks_across_a_manual_scope_edge_without_an_edge_are_refused(body: str, message: str, hint: str,
                                                                     tmp_path: Path) -> None:
    with pytest.raises(PassError) as info:
        compile_body(SCOPED.format(manual_dep="", body=textwrap.dedent(body).strip()), tmp_path)
    text, _, where = message.rpartition(" at ")
    assert str(info.value).splitlines()[:2] == [f"ExpandManualPhaseFence: {text}", f"   --> {where}"]
    assert str(info.value).splitlines()[-1] == f"   = hint: {hint}"


@pytest.mark.parametrize("body", [
    """
    with pl.manual_scope():
        tmp, t1 = pl.submit(self.k, x, tmp)
    out, _ = pl.submit(self.k, tmp, out, deps=[t1])
    """,
    """
    tmp, t0 = pl.submit(self.k, x, tmp)
    with pl.manual_scope():
        out, _ = pl.submit(self.k, tmp, out, deps=[t0])
    """,
    """
    with pl.manual_scope():
        tmp, t1 = pl.submit(self.k, x, tmp)
    with pl.manual_scope():
        out, _ = pl.submit(self.k, tmp, out, deps=[t1])
    """,
    # inside one manual scope the ordering is the user's
    """
    with pl.manual_scope():
        tmp, t1 = pl.submit(self.k, x, tmp)
        out, _ = pl.submit(self.k, tmp, out)
    """,
    # every writer's TaskId reaches the reader through an array written in a loop
    """
    tids = pl.array.create(4, pl.TASK_ID)
    with pl.manual_scope():
        for i in pl.range(4):
            tmp, t = pl.submit(self.k, x, tmp)
            tids[i] = t
    out, _ = pl.submit(self.k, tmp, out, deps=[tids])
    """,
    # through a dependency-only task
    """
    with pl.manual_scope():
        tmp, t1 = pl.submit(self.k, x, tmp)
        bar = pl.system.task_dummy(deps=[t1])
    out, _ = pl.submit(self.k, tmp, out, deps=[bar])
    """,
    # through a TaskId carried by a loop
    """
    with pl.manual_scope():
        prev = None
        for i in pl.range(3):
            tmp, prev = pl.submit(self.k, x, tmp, deps=[prev])
    out, _ = pl.submit(self.k, tmp, out, deps=[prev])
    """,
    # a pl.no_dep argument is the user's promise
    """
    with pl.manual_scope():
        tmp, t1 = pl.submit(self.k, x, tmp)
    out = self.k(pl.no_dep(tmp), out)
    """,
], ids=["edge-out", "edge-in", "edge-between-manual-scopes", "inside-one-manual-scope", "array", "task-dummy",
        "loop-carry", "no-dep"])
def test_an_edge_across_a_manual_scope_orders_the_tasks(body: str, tmp_path: Path) -> None:
    compile_body(SCOPED.format(manual_dep="", body=textwrap.dedent(body).strip()), tmp_path)


HOST_READ = ("this tensor.read reads 'tmp', which the task 'k' (deps.py:19) in a manual scope writes: the "
             "orchestration waits only for writers the runtime tracks, and a task in a manual scope registers no "
             "tensor, so the element may be accessed before that task has finished")
HOST_HINT = ("write the tensor outside the manual scope (an automatically tracked task), or pass it to a kernel "
             "submitted with deps=[...] on the writer's TaskId and read the element there")


@pytest.mark.parametrize(("body", "where"), [
    ("""
    with pl.manual_scope():
        tmp, t1 = pl.submit(self.k, x, tmp)
    v = pl.tensor.read(tmp, [0, 0])
    out = self.k(x, out)
    """, "20:9"),
    # in the writer's own scope too: the element access looks up the runtime's tracking, which has no writer
    ("""
    with pl.manual_scope():
        tmp, t1 = pl.submit(self.k, x, tmp)
        v = pl.tensor.read(tmp, [0, 0])
    out = self.k(x, out)
    """, "20:13"),
], ids=["after-the-scope", "inside-the-scope"])
def test_an_element_read_after_a_manual_scope_writer_is_refused(body: str, where: str, tmp_path: Path) -> None:
    with pytest.raises(PassError) as info:
        compile_body(SCOPED.format(manual_dep="", body=textwrap.dedent(body).strip()), tmp_path)
    lines = str(info.value).splitlines()
    assert lines[:2] == [f"ExpandManualPhaseFence: {HOST_READ}", f"   --> deps.py:{where}"]
    assert lines[-1] == f"   = hint: {HOST_HINT}"


def test_an_element_write_after_a_manual_scope_reader_is_refused(tmp_path: Path) -> None:
    body = """
    tmp, t0 = pl.submit(self.k, x, tmp)
    with pl.manual_scope():
        out, t1 = pl.submit(self.k, tmp, out, deps=[t0])
    tmp = pl.tensor.write(tmp, [0, 0], 1.0)
    """
    with pytest.raises(PassError) as info:
        compile_body(SCOPED.format(manual_dep="", body=textwrap.dedent(body).strip()), tmp_path)
    lines = str(info.value).splitlines()
    assert lines[:2] == [
        "ExpandManualPhaseFence: this tensor.write writes 'tmp', which the task 'k' (deps.py:20) in a manual scope "
        "touches: the orchestration waits only for tasks the runtime tracks, and a task in a manual scope registers "
        "no tensor, so the element may be accessed before that task has finished",
        "   --> deps.py:21:9"]
    assert lines[-1] == f"   = hint: {HOST_HINT}"


def test_an_element_read_waits_for_a_tracked_writer_ordered_after_the_scope(tmp_path: Path) -> None:
    body = """
    with pl.manual_scope():
        tmp, t1 = pl.submit(self.k, x, tmp)
    out, _ = pl.submit(self.k, tmp, out, deps=[t1])
    v = pl.tensor.read(out, [0, 0])
    """
    compile_body(SCOPED.format(manual_dep="", body=textwrap.dedent(body).strip()), tmp_path)


def test_a_manual_dep_tensor_is_left_to_the_user(tmp_path: Path) -> None:
    body = """
    with pl.manual_scope():
        tmp, t1 = pl.submit(self.k, x, tmp)
    out = self.k(tmp, out)
    """
    compile_body(SCOPED.format(manual_dep=", manual_dep=True", body=textwrap.dedent(body).strip()), tmp_path)


def test_a_carry_that_swaps_buffers_touches_every_buffer_it_may_name(tmp_path: Path) -> None:
    # t is a on the first trip and b on the second: the scope writes both
    body = """
    a: pl.Tensor[[16, 64], pl.FP32] = pl.create_tensor([16, 64], dtype=pl.FP32)
    b: pl.Tensor[[16, 64], pl.FP32] = pl.create_tensor([16, 64], dtype=pl.FP32)
    with pl.manual_scope():
        for i, (t, u) in pl.range(2, init_values=(a, b)):
            t_1, t1 = pl.submit(self.k, x, t)
            t_2, u_2 = pl.yield_(u, t_1)
    out = self.k(b, out)
    """
    with pytest.raises(PassError) as info:
        compile_body(textwrap.dedent(body).strip(), tmp_path)
    assert str(info.value).splitlines()[:2] == [
        "ExpandManualPhaseFence: this task touches 'b', which the task 'k' (deps.py:21) in a manual scope "
        "writes: a task in a manual scope registers no tensor, so nothing orders this one after it",
        "   --> deps.py:23:9"]


def test_a_task_a_pass_built_without_a_span_is_reported_at_the_nearest_statement_with_one() -> None:
    program = pl.parse(source("""
    with pl.manual_scope():
        out, t1 = pl.submit(self.k, x, out)
    for i in pl.range(2):
        out, t2 = pl.submit(self.k, x, out)
    """), filename="deps.py")
    lowering = passes.default_passes()
    for p in lowering[:[q.name for q in lowering].index("ExpandManualPhaseFence")]:
        program = p(program)
    main = program.get_function("main")
    scope, loop, ret = main.body.stmts
    bare = ir.SeqStmts([ir.replace(s, span=ir.Span.unknown()) for s in loop.body.stmts], ir.Span.unknown())
    body = ir.SeqStmts([scope, ir.replace(loop, body=bare), ret], main.body.span)
    program = ir.Program([ir.replace(main, body=body), program.get_function("k")], program.name, program.span)
    with pytest.raises(PassError) as info:
        passes.expand_manual_phase_fence()(program)
    assert str(info.value).splitlines() == [
        "ExpandManualPhaseFence: this task touches 'out', which the task 'k' (deps.py:18) in a manual "
        "scope writes: a task in a manual scope registers no tensor, so nothing orders this one after it",
        "   --> deps.py:19:9",
        "   |",
        "19 |         for i in pl.range(2):",
        "   |         ^^^^^^^^^^^^^^^^^^^^^",
        "   = hint: add the TaskId of 'k' (deps.py:18) to this task's deps=[...]"]


GATED = """
import pypto.language as pl


@pl.program
class P:{kernel}
    @pl.function(type=pl.FunctionType.InCore)
    def gate(self, counts: pl.Tensor[[1, 8], pl.INT32],
             rc: pl.Out[pl.Tensor[[1, 8], pl.INT32]]) -> pl.Tensor[[1, 8], pl.INT32]:
        t: pl.Tile[[1, 8], pl.INT32] = pl.load(counts, [0, 0], [1, 8])
        rc = pl.store(t, [0, 0], rc)
        return rc

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 64], pl.FP32], counts: pl.Tensor[[1, 8], pl.INT32],
             out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        rc: pl.Tensor[[1, 8], pl.INT32] = pl.create_tensor([1, 8], dtype=pl.INT32)
{body}
        return out
"""


def gated(body: str) -> str:
    """The kernels ``k`` and ``gate`` and an orchestration ``main(x, counts, out)`` with a gate tensor
    ``rc`` (line 24) running ``body`` (from line 25)."""
    return GATED.format(kernel=KERNEL, body=textwrap.indent(textwrap.dedent(body).strip(), " " * 8))


GATE_READ = ("this task's predicate reads 'rc', which {writer} writes: the scheduler reads the gate element once "
             "the task's own dependencies are done, and nothing orders this task after that writer, so the "
             "predicate may read the element before it is written")


@pytest.mark.parametrize(("body", "writer", "where", "hint"), [
    # a2a3sim: the expert ran on the previous run's gate (8 of 8 runs differed from the interpreter)
    ("""
    rc = self.gate(counts, rc)
    out, _ = pl.submit(self.k, x, out, predicate=(rc[0, 0] > 0))
    """, "the task 'gate' (deps.py:25)", "26:9", "submit 'gate' with pl.submit(...) and add its TaskId to this "
     "task's deps=[...]"),
    ("""
    with pl.manual_scope():
        rc = self.gate(counts, rc)
    out, _ = pl.submit(self.k, x, out, predicate=(rc[0, 0] > 0))
    """, "the task 'gate' (deps.py:26) in a manual scope", "27:9",
     "submit 'gate' with pl.submit(...) and add its TaskId to this task's deps=[...]"),
    ("""
    with pl.at(level=pl.Level.CORE_GROUP):
        rc = pl.assemble(rc, pl.add(counts, 1), [0, 0])
    with pl.spmd(1, predicate=(rc[0, 0] > 0)):
        b = pl.tile.get_block_idx()
        out = pl.assemble(out, pl.add(x, 1.0), [b * 16, 0])
    """, "the block at deps.py:25", "27:9",
     "name the TaskId of the block at deps.py:25 ('as tid' on its 'with' line) and add it to the deps=[...] of "
     "this block's 'with' line"),
], ids=["tracked-writer", "manual-scope-writer", "blocks"])
def test_a_predicate_whose_gate_writer_is_not_a_dependency_is_refused(
    body: str, writer: str, where: str, hint: str, tmp_path: Path
) -> None:
    with pytest.raises(PassError) as info:
        ir.compile(pl.parse(gated(body), filename="deps.py"), output_dir=tmp_path / "out", skip_ptoas=True)
    lines = str(info.value).splitlines()
    assert lines[:2] == [f"ExpandManualPhaseFence: {GATE_READ.format(writer=writer)}", f"   --> deps.py:{where}"]
    assert lines[-1] == f"   = hint: {hint}"


def test_a_predicate_whose_gate_a_later_task_of_its_loop_writes_is_refused(tmp_path: Path) -> None:
    # on the second trip the gate's last writer is the task after it in the body, which deps=[g] misses
    body = """
    rc, g = pl.submit(self.gate, counts, rc)
    for i in pl.range(2):
        out, _ = pl.submit(self.k, x, out, deps=[g], predicate=(rc[0, 0] > 0))
        rc = self.gate(counts, rc)
    """
    with pytest.raises(PassError) as info:
        ir.compile(pl.parse(gated(body), filename="deps.py"), output_dir=tmp_path / "out", skip_ptoas=True)
    lines = str(info.value).splitlines()
    message = GATE_READ.format(writer="the task 'gate' (deps.py:28)").replace(
        " writes:", " writes on the loop's previous trip:")
    assert lines[:2] == [f"ExpandManualPhaseFence: {message}", "   --> deps.py:27:13"]
    assert lines[-1] == "   = hint: submit 'gate' with pl.submit(...) and add its TaskId to this task's deps=[...]"


@pytest.mark.parametrize("body", [
    """
    rc, g = pl.submit(self.gate, counts, rc)
    out, _ = pl.submit(self.k, x, out, deps=[g], predicate=(rc[0, 0] > 0))
    """,
    # a tracked task reading the gate tensor waits for its tracked writer (a2a3sim: equal to the interpreter)
    """
    rc = self.gate(counts, rc)
    rc, _ = pl.submit(self.gate, rc, rc, predicate=(rc[0, 0] > 0))
    out = self.k(x, out)
    """,
    # an Out of a predicated task is passed inout (a skipped task leaves it as it was): looked up as well
    """
    rc = self.gate(counts, rc)
    rc, _ = pl.submit(self.gate, counts, rc, predicate=(rc[0, 0] > 0))
    out = self.k(x, out)
    """,
    """
    with pl.manual_scope():
        rc, g = pl.submit(self.gate, counts, rc)
        out, _ = pl.submit(self.k, x, out, deps=[g], predicate=(rc[0, 0] > 0))
    """,
    # the gate is a parameter no task writes
    """
    out, _ = pl.submit(self.k, x, out, predicate=(counts[0, 0] > 0))
    """,
    # in a loop, the TaskId of the gate's writer carried to the next trip
    """
    rc, g = pl.submit(self.gate, counts, rc)
    for i in pl.range(2):
        out, _ = pl.submit(self.k, x, out, deps=[g], predicate=(rc[0, 0] > 0))
        rc, g = pl.submit(self.gate, counts, rc)
    """,
], ids=["dependency", "tracked-reader", "tracked-out", "in-the-writer-scope", "parameter", "loop-carried-dependency"])
def test_a_predicate_ordered_after_its_gate_writer_is_accepted(body: str, tmp_path: Path) -> None:
    ir.compile(pl.parse(gated(body), filename="deps.py"), output_dir=tmp_path / "out", skip_ptoas=True)


@pytest.mark.parametrize(("body", "plain"), [
    ("out = self.k(x, out)\nout, t = pl.submit(self.k, x, out)", True),
    ("out, t = pl.submit(self.k, x, out)\nout, u = pl.submit(self.k, x, out, deps=[t])", False),
    ("with pl.manual_scope():\n    out = self.k(x, out)", False),
    ("out, t = pl.submit(self.k, x, out, predicate=(counts[0, 0] > 0))", False),
], ids=["tracked-only", "dependency", "manual-scope", "predicate"])
def test_only_an_orchestration_without_deps_manual_scopes_or_predicates_skips_the_dependency_walk(
        body: str, plain: bool) -> None:
    # The shortcut of dependency_problems: every problem the tests above refuse needs one of the three.
    main = pl.parse(gated(body), filename="deps.py").get_function("main")
    assert nothing_to_drop(main) is plain
