"""InitMemRef, MemoryReuse and AllocateMemoryAddr on hand-written split_core programs: printed IR,
the planned sizes of issue 11, interpreter preservation with tiles at their addresses, errors."""

from __future__ import annotations

import random

import numpy as np
import pytest
from memory_programs import PROGRAMS, ROW_BLOCKS, TILE_ADD
from pass_helpers import before_after

from pypto import ir, passes
from pypto.analysis import walk
from pypto.backend import A2A3
from pypto.interp import run
from pypto.interp.memory import plan_extents
from pypto.interp.testing import assert_pass_preserves
from pypto.ir.structural import assert_structural_equal
from pypto.language.parser.text_parser import parse_program
from pypto.languages import memref, split_core
from pypto.passes import PassContext, PassError
from pypto.passes.init_memref import alloc_call
from pypto.transform.memref_util import Retype

VEC = ir.MemorySpace.Vec


def front(src: str) -> ir.Program:
    """The program after the front passes: it is in split_core as written."""
    return split_core.validate(passes.PassManager(passes.front_passes()).run(parse_program(src)))


def planning() -> list[passes.Pass]:
    return [passes.init_memref(), passes.memory_reuse(), passes.allocate_memory_addr()]


def planned(src: str) -> ir.Program:
    program = front(src)
    for p in planning():
        program = p(program)
    return program


def kernel(program: ir.Program) -> ir.Function:
    return next(f for f in program.functions.values() if f.func_type in (ir.FunctionType.AIV, ir.FunctionType.AIC))


@pytest.mark.parametrize("name", ["tile_add", "softmax", "accumulate", "carry_move", "branch_then", "matmul"])
@pytest.mark.parametrize("step", [0, 1, 2])
def test_snapshot(name: str, step: int, snapshot) -> None:
    program = front(PROGRAMS[name][0])
    for p in planning()[:step]:
        program = p(program)
    p = planning()[step]
    assert before_after(p.name, program, p(program)) == snapshot


@pytest.mark.parametrize(
    "name, extents",
    [
        # the result reuses an input's buffer
        ("tile_add", {VEC: 131072}),
        # one 64x128 FP32 block, the ops in place
        ("row_blocks", {VEC: 32768}),
        # x and the scratch tile (64x64), row_max/row_sum on one 64x1 vector
        ("softmax", {VEC: 33024}),
        ("accumulate", {VEC: 8192}),
        ("branch_then", {VEC: 16384}),
        # Acc rows padded to 16
        ("matmul", {ir.Mem.Mat: 1536, ir.Mem.Left: 512, ir.Mem.Right: 1024, ir.Mem.Acc: 1024}),
    ],
)
def test_planned_bytes(name: str, extents: dict) -> None:
    assert plan_extents(kernel(planned(PROGRAMS[name][0]))) == extents


def test_row_block_kernel_fits_below_64k() -> None:
    assert plan_extents(kernel(planned(ROW_BLOCKS)))[VEC] < 65536


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_planning_preserves_results_with_tiles_at_their_addresses(name: str) -> None:
    src, inputs = PROGRAMS[name]
    after = assert_pass_preserves(planning(), front(src), inputs)
    assert after in memref
    assert plan_extents(kernel(after)) is not None  # the interpreter ran the kernel in address mode


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_printed_plan_parses_back(name: str) -> None:
    program = planned(PROGRAMS[name][0])
    text = program.as_python()
    again = parse_program(text)
    assert_structural_equal(program, again)
    assert again.as_python() == text


def test_overlapping_offsets_give_a_wrong_result() -> None:
    """Hand-edit the plan so that tb lies on ta's bytes: the interpreter then adds tb to itself."""
    text = planned(TILE_ADD).as_python()
    good = "pl.MemRef(mem_vec_1, pl.const(65536, pl.INT64), 65536)"
    assert good in text
    bad = parse_program(text.replace(good, "pl.MemRef(mem_vec_1, pl.const(0, pl.INT64), 65536)"))
    a, b, out = PROGRAMS["tile_add"][1]
    np.testing.assert_allclose(run(parse_program(text), a, b, out.copy()).value, a + b, rtol=1e-6)
    np.testing.assert_allclose(run(bad, a, b, out.copy()).value, b + b, rtol=1e-6)
    with pytest.raises(AssertionError, match="changed return value 0: 16384 of 16384 elements differ"):
        assert_pass_preserves(lambda p: bad, front(TILE_ADD), PROGRAMS["tile_add"][1])


def test_carry_written_while_live_gets_a_move_into_the_carried_buffer() -> None:
    text = kernel(planned(PROGRAMS["carry_move"][0])).as_python()
    assert (
        "acc__ssa_v2__carry_v0: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_0, pl.const(0, pl.INT64), 4096), "
        "pl.Mem.Vec] = pl.tile.move(acc__ssa_v2, target_memory=pl.Mem.Vec)"
    ) in text


BIG = TILE_ADD.replace("128, 128", "256, 128")


def test_capacity_error_names_function_space_and_bytes() -> None:
    program = passes.memory_reuse()(passes.init_memref()(front(BIG)))
    with PassContext(platform=A2A3), pytest.raises(passes.CapacityError) as err:
        passes.allocate_memory_addr()(program)
    assert str(err.value).splitlines() == [
        "AllocateMemoryAddr: Function 'tile_add': Vec buffer usage (262144 bytes) exceeds platform "
        "limit (188416 bytes)",
        "   --> <string>:10:9",
        "   |",
        "10 |         ta: pl.Tile[[256, 128], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [256, 128])",
        "   |         " + "^" * 77,
        "   = hint: the Vec tiles of 'tile_add' that are live at the same time do not fit a2a3: use smaller tiles "
        "(process the data in more blocks)",
    ]
    assert isinstance(err.value, PassError)


def test_capacity_error_holds_the_layout_it_tried() -> None:
    program = passes.memory_reuse()(passes.init_memref()(front(BIG)))
    with PassContext(platform=A2A3), pytest.raises(passes.CapacityError) as err:
        passes.allocate_memory_addr()(program)
    attempt = err.value.attempt
    assert attempt.name == "tile_add" and plan_extents(attempt) == {VEC: 262144}
    text = attempt.as_python()
    assert "pl.MemRef(mem_vec_0, pl.const(0, pl.INT64), 131072)" in text
    assert "pl.MemRef(mem_vec_1, pl.const(131072, pl.INT64), 131072)" in text


def test_passes_chain_from_split_core_to_memref_in_a_pass_manager() -> None:
    pm = passes.PassManager(planning(), start=split_core)
    assert pm.final_dialect is memref
    program = pm.run(front(TILE_ADD))
    assert plan_extents(kernel(program)) == {VEC: 131072}


def test_orchestration_functions_are_left_alone() -> None:
    before = front(TILE_ADD)
    after = passes.init_memref()(before)
    main = [f for f in before.functions.values() if f.name == "main"]
    assert [f for f in after.functions.values() if f.name == "main"][0] is main[0]


def test_reuse_keeps_guarded_inputs_apart() -> None:
    """row_max may not write over its input nor its scratch tile, row_expand_sub not over the vector."""
    k = kernel(planned(PROGRAMS["softmax"][0]))
    tiles = [s.var for s in k.body.stmts if isinstance(s, ir.AssignStmt) and isinstance(s.var.type, ir.TileType)]
    types = {v.name_hint: v.type.memref for v in tiles}
    assert types["mx"].base_ is not types["tx"].base_ and types["mx"].base_ is not types["tmp"].base_
    assert types["sub"].base_ is types["tx"].base_ and types["s"].base_ is types["mx"].base_


def test_reuse_deletes_every_allocation_no_tile_keeps() -> None:
    """MemoryReuse drops the allocations it frees, and ones no tile ever used, at the top of a kernel and
    inside a loop body alike: the output is the plan of the kernel without the unused ones."""
    text = passes.init_memref()(front(PROGRAMS["accumulate"][0])).as_python()

    def unused_before(text: str, start: str, name: str) -> str:
        line = next(line for line in text.splitlines() if line.lstrip().startswith(start))
        indent = line[: len(line) - len(line.lstrip())]
        return text.replace(line, f"{indent}{name}: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 64)\n{line}", 1)

    unused = unused_before(unused_before(text, "mem_vec_0: pl.Ptr", "mem_unused_0"), "t: pl.Tile", "mem_unused_1")
    assert unused.count("mem_unused_") == 2
    reused = passes.memory_reuse()(parse_program(text)).as_python()
    assert passes.memory_reuse()(parse_program(unused)).as_python() == reused
    assert reused.count("pl.tile.alloc(") == 2 < text.count("pl.tile.alloc(")


# Reviewer repros: a buffer taken over while its old value is still read used to miscompile silently.
KERNEL_FRAME = """
import pypto.language as pl
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[64, 64], pl.FP32], n: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
%s
        out = pl.store(r, [0, 0], out)
        return out
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64, 64], pl.FP32], n: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        out = self.k(x, n, out)
        return out
"""
REFUSED = {
    "init_read_after_loop": (
        """
        init: pl.Tile[[16, 64], pl.FP32] = pl.load(x, [0, 0], [16, 64])
        for i, (acc,) in pl.range(4, init_values=(init,)):
            block: pl.Tile[[16, 64], pl.FP32] = pl.load(x, [i * 16, 0], [16, 64])
            total = pl.yield_(pl.add(acc, block))
        r: pl.Tile[[16, 64], pl.FP32] = pl.sub(total, init)
""",
        "InitMemRef: function 'k': tile 'init' is the init of loop carry 'acc', which takes over its buffer, "
        "but 'init' is still read afterwards",
    ),
    "init_read_in_body": (
        """
        a: pl.Tile[[16, 64], pl.FP32] = pl.load(x, [0, 0], [16, 64])
        for i, (acc,) in pl.range(3, init_values=(a,)):
            total = pl.yield_(pl.add(acc, a))
        r: pl.Tile[[16, 64], pl.FP32] = pl.add(total, total)
""",
        "InitMemRef: function 'k': tile 'a' is the init of loop carry 'acc', which takes over its buffer, "
        "but 'a' is still read afterwards",
    ),
    "one_init_two_carries": (
        """
        a: pl.Tile[[16, 64], pl.FP32] = pl.load(x, [0, 0], [16, 64])
        for i, (p, q) in pl.range(3, init_values=(a, a)):
            p2 = pl.add(p, p)
            q2 = pl.mul(q, 0.5)
            s, t = pl.yield_(p2, q2)
        r: pl.Tile[[16, 64], pl.FP32] = pl.sub(s, t)
""",
        "InitMemRef: function 'k': tile 'a' is the init of two loop carries ('p' and 'q'), which would share one buffer",
    ),
    "then_yield_read_after_if": (
        """
        a: pl.Tile[[16, 64], pl.FP32] = pl.load(x, [0, 0], [16, 64])
        if n == 0:
            y = pl.yield_(a)
        else:
            y = pl.yield_(pl.add(a, a))
        r: pl.Tile[[16, 64], pl.FP32] = pl.sub(y, a)
""",
        "InitMemRef: function 'k': tile 'a' is yielded by the then-branch for 'y', which takes over its buffer, "
        "but 'a' is still read afterwards",
    ),
    "swapped_carries": (
        """
        a: pl.Tile[[16, 64], pl.FP32] = pl.load(x, [0, 0], [16, 64])
        b: pl.Tile[[16, 64], pl.FP32] = pl.load(x, [16, 0], [16, 64])
        for i, (p, q) in pl.range(3, init_values=(a, b)):
            s, t = pl.yield_(q, p)
        r: pl.Tile[[16, 64], pl.FP32] = pl.sub(s, t)
""",
        "MemoryReuse: the yield moves 'q', 'p' into each other's carried buffers (a cycle, e.g. swapped carries)",
    ),
    "copy_init_read_in_body": (
        """
        a: pl.Tile[[16, 64], pl.FP32] = pl.load(x, [0, 0], [16, 64])
        acc = a
        for i in pl.range(3):
            acc = pl.add(acc, a)
        r: pl.Tile[[16, 64], pl.FP32] = pl.add(acc, acc)
""",
        "InitMemRef: function 'k': tile 'a' is the init of loop carry 'acc__iter_v1', which takes over its buffer, "
        "but 'a' is still read afterwards",
    ),
    "viewed_tile_updated_in_place": (
        """
        a: pl.Tile[[16, 64], pl.FP32] = pl.load(x, [0, 0], [16, 64])
        b: pl.Tile[[8, 64], pl.FP32] = pl.load(x, [16, 0], [8, 64])
        top = a[0:8, :]
        c = pl.tile.assemble(a, b, [8, 0])
        r: pl.Tile[[16, 64], pl.FP32] = pl.add(c, c)
        out = pl.store(top, [0, 0], out)
""",
        "InitMemRef: function 'k': tile 'top' is updated in place by tile.assemble (result 'c'), which takes over "
        "its buffer, but 'top' is still read afterwards",
    ),
    "assemble_target_read_later": (
        """
        a: pl.Tile[[16, 64], pl.FP32] = pl.load(x, [0, 0], [16, 64])
        b: pl.Tile[[16, 64], pl.FP32] = pl.load(x, [16, 0], [16, 64])
        c = pl.tile.assemble(a, b, [0, 0])
        r: pl.Tile[[16, 64], pl.FP32] = pl.sub(c, a)
""",
        "InitMemRef: function 'k': tile 'a' is updated in place by tile.assemble (result 'c'), which takes over "
        "its buffer, but 'a' is still read afterwards",
    ),
    "updated_in_one_branch_read_after_the_if": (
        """
        a: pl.Tile[[16, 64], pl.FP32] = pl.load(x, [0, 0], [16, 64])
        b: pl.Tile[[16, 64], pl.FP32] = pl.load(x, [16, 0], [16, 64])
        if n == 0:
            y = pl.yield_(pl.tile.assemble(a, b, [0, 0]))
        else:
            y = pl.yield_(pl.add(a, b))
        r: pl.Tile[[16, 64], pl.FP32] = pl.sub(y, a)
""",
        "InitMemRef: function 'k': tile 'a' is updated in place by tile.assemble",
    ),
}

MATMUL_ACC_INPUT_READ_LATER = """
import pypto.language as pl
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16], c: pl.Out[pl.Tensor[[64, 64], pl.FP32]], d: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> tuple[pl.Tensor[[64, 64], pl.FP32], pl.Tensor[[64, 64], pl.FP32]]:
        a_mat: pl.Tile[[64, 64], pl.FP16, pl.Mem.Mat] = pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
        b_mat: pl.Tile[[64, 64], pl.FP16, pl.Mem.Mat] = pl.load(b, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
        a_left: pl.Tile[[64, 64], pl.FP16, pl.Mem.Left] = pl.move(a_mat, target_memory=pl.Mem.Left)
        b_right: pl.Tile[[64, 64], pl.FP16, pl.Mem.Right] = pl.move(b_mat, target_memory=pl.Mem.Right)
        acc0: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = pl.matmul(a_left, b_right)
        acc1: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = pl.matmul_acc(acc0, a_left, b_right)
        d = pl.store(acc0, [0, 0], d)
        c = pl.store(acc1, [0, 0], c)
        return c, d
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16], c: pl.Out[pl.Tensor[[64, 64], pl.FP32]], d: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> tuple[pl.Tensor[[64, 64], pl.FP32], pl.Tensor[[64, 64], pl.FP32]]:
        c, d = self.k(a, b, c, d)
        return c, d
"""


def whole_pipeline(src: str) -> ir.Program:
    return passes.PassManager.get_strategy(plugins=False).run(parse_program(src))


@pytest.mark.parametrize("name", list(REFUSED))
def test_buffer_taken_over_while_still_read_is_refused(name: str) -> None:
    body, message = REFUSED[name]
    with pytest.raises(PassError) as err:
        whole_pipeline(KERNEL_FRAME % body)
    assert str(err.value).startswith(f"{message}")
    assert str(err.value).splitlines()[1].lstrip().startswith("--> <string>:")
    assert "hint" not in err.value.message  # what to write instead is the error's hint
    assert err.value.hint.startswith(("copy it first", "give one carry its own copy", "yield copies made in the loop"))


def test_in_place_update_of_a_tile_read_later_is_refused() -> None:
    with pytest.raises(PassError) as err:
        whole_pipeline(MATMUL_ACC_INPUT_READ_LATER)
    assert str(err.value).startswith(
        "InitMemRef: function 'k': tile 'acc0' is updated in place by tile.matmul_acc (result 'acc1'), which takes "
        "over its buffer, but 'acc0' is still read afterwards"
    )
    assert err.value.hint.startswith("Acc -> Acc copies do not exist")
    assert err.value.span.begin_line == 12


PRODUCT_YIELDED_INTO_AN_ACC_CARRY = """
import pypto.language as pl
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(
        self, a: pl.Tensor[[64, 256], pl.FP16], b: pl.Tensor[[256, 32], pl.FP16],
        c: pl.Out[pl.Tensor[[64, 32], pl.FP32]],
    ) -> pl.Tensor[[64, 32], pl.FP32]:
        acc = pl.tile.create([64, 32], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        for i in pl.range(4):
            x = pl.load(a, [0, i * 64], [64, 64], target_memory=pl.Mem.Mat)
            y = pl.load(b, [i * 64, 0], [64, 32], target_memory=pl.Mem.Mat)
            if i == 0:
                acc = pl.matmul(x, y)
            else:
                acc = pl.matmul_acc(acc, x, y)
        c = pl.store(acc, [0, 0], c)
        return c
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self, a: pl.Tensor[[64, 256], pl.FP16], b: pl.Tensor[[256, 32], pl.FP16],
        c: pl.Out[pl.Tensor[[64, 32], pl.FP32]],
    ) -> pl.Tensor[[64, 32], pl.FP32]:
        c = self.k(a, b, c)
        return c
"""


def test_a_product_yielded_into_an_acc_carry_is_refused_with_the_init_cond_form() -> None:
    with pytest.raises(PassError) as err:
        whole_pipeline(PRODUCT_YIELDED_INTO_AN_ACC_CARRY)
    assert str(err.value).startswith(
        "MemoryReuse: function 'k': the Acc value yielded for 'acc__iter_v1' is not in the carried buffer and "
        "Acc -> Acc moves do not exist"
    )
    assert err.value.hint == (
        "accumulate into the iter_arg (pl.matmul_acc(acc__iter_v1, ...)) instead, the first product too: "
        "pl.matmul_acc(acc__iter_v1, a, b, init_cond=k == 0) ignores the old value when k == 0")
    assert err.value.span.is_valid()


ACCEPTED = {
    # The hints' rewrites: copies keep the old values apart, and the results match.
    "init_copied": """
        init: pl.Tile[[16, 64], pl.FP32] = pl.load(x, [0, 0], [16, 64])
        init_copy: pl.Tile[[16, 64], pl.FP32] = pl.move(init, target_memory=pl.Mem.Vec)
        for i, (acc,) in pl.range(4, init_values=(init_copy,)):
            block: pl.Tile[[16, 64], pl.FP32] = pl.load(x, [i * 16, 0], [16, 64])
            total = pl.yield_(pl.add(acc, block))
        r: pl.Tile[[16, 64], pl.FP32] = pl.sub(total, init)
""",
    "swap_through_copies": """
        a: pl.Tile[[16, 64], pl.FP32] = pl.load(x, [0, 0], [16, 64])
        b: pl.Tile[[16, 64], pl.FP32] = pl.load(x, [16, 0], [16, 64])
        for i, (p, q) in pl.range(3, init_values=(a, b)):
            q2: pl.Tile[[16, 64], pl.FP32] = pl.move(q, target_memory=pl.Mem.Vec)
            p2: pl.Tile[[16, 64], pl.FP32] = pl.move(p, target_memory=pl.Mem.Vec)
            s, t = pl.yield_(q2, p2)
        r: pl.Tile[[16, 64], pl.FP32] = pl.sub(s, t)
""",
    # The other branch's read never runs after the in-place update.
    "updated_in_one_branch_read_in_the_other": """
        a: pl.Tile[[16, 64], pl.FP32] = pl.load(x, [0, 0], [16, 64])
        b: pl.Tile[[16, 64], pl.FP32] = pl.load(x, [16, 0], [16, 64])
        if n == 0:
            y = pl.yield_(pl.tile.assemble(a, b, [0, 0]))
        else:
            y = pl.yield_(pl.add(a, b))
        r: pl.Tile[[16, 64], pl.FP32] = pl.add(y, b)
""",
    "init_dead_after_loop_start": """
        a: pl.Tile[[16, 64], pl.FP32] = pl.load(x, [0, 0], [16, 64])
        for i, (acc,) in pl.range(3, init_values=(a,)):
            total = pl.yield_(pl.add(acc, acc))
        r: pl.Tile[[16, 64], pl.FP32] = pl.add(total, total)
""",
}


@pytest.mark.parametrize("name", list(ACCEPTED))
def test_whole_pipeline_keeps_results_when_old_values_are_dead(name: str) -> None:
    program = parse_program(KERNEL_FRAME % ACCEPTED[name])
    after = passes.PassManager.get_strategy(plugins=False).run(program)
    x = np.random.default_rng(0).random((64, 64), dtype=np.float32)
    expected = run(program, x, 1, np.zeros((16, 64), np.float32)).value
    got = run(after, x, 1, np.zeros((16, 64), np.float32)).value
    np.testing.assert_allclose(got, expected, rtol=1e-6)
    assert not np.array_equal(expected, np.zeros((16, 64), np.float32))


@pytest.mark.parametrize("space", list(ir.MemorySpace))
def test_init_memref_builds_the_alloc_call_of_the_op_builder(space: ir.MemorySpace) -> None:
    span = ir.Span("k.py", 3, 4)
    built, expected = alloc_call(space, 16384, span), ir.op.tile.alloc(space, 16384, span=span)
    assert_structural_equal(built, expected)
    assert (built.as_python(), built.span, built.kwargs, built.attrs) == (
        expected.as_python(), expected.span, expected.kwargs, expected.attrs)



def test_every_allocation_of_a_kernel_is_what_the_op_builder_makes() -> None:
    # Each allocation is a copy of a template built once per process, with other parts (pypto.ir.parts):
    # each must still be the builder's call, with its own variable and MemRef.
    stmts = [s for s in walk(kernel(passes.init_memref()(front(PROGRAMS["matmul"][0]))).body)
             if isinstance(s, ir.AssignStmt)]
    allocs = [s for s in stmts if isinstance(s.value, ir.Call) and s.value.op.name == "tile.alloc"]
    refs = {s.var.type.memref.base_: s.var.type.memref for s in stmts
            if isinstance(s.var.type, ir.TileType) and s.var.type.memref is not None}
    assert len(allocs) >= 3 and len({a.var.unique_id for a in allocs}) == len(allocs)
    for n, a in enumerate(allocs):
        space, size = (arg.value for arg in a.value.args)
        expected = ir.op.tile.alloc(ir.MemorySpace(space), size, span=a.span)
        assert_structural_equal(a.value, expected)
        assert (a.value.kwargs, a.value.attrs) == (expected.kwargs, expected.attrs)
        assert a.var.name_hint == f"mem_{ir.MemorySpace(space).name.lower()}_{n}"
        ref = refs[a.var]
        assert (ref.name_hint, ref.size, ref.byte_offset.value, ref.span) == (a.var.name_hint, size, -1, a.span)
        assert ref.unique_id not in {b.var.unique_id for b in allocs}


# Issue 26: an op may write its result over an operand only where it computes that operand in place.
OPERAND_FRAME = """
import pypto.language as pl
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.%(x)s],
          out: pl.Out[pl.Tensor[%(shape)s, pl.%(o)s]]) -> pl.Tensor[%(shape)s, pl.%(o)s]:
        t: pl.Tile[[16, 64], pl.%(x)s] = pl.load(x, [0, 0], [16, 64])
        %(body)s
        out = pl.store(r, [0, 0], out)
        return out
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 64], pl.%(x)s],
             out: pl.Out[pl.Tensor[%(shape)s, pl.%(o)s]]) -> pl.Tensor[%(shape)s, pl.%(o)s]:
        out = self.k(x, out)
        return out
"""
SCRATCH = "s: pl.Tile[[16, 64], pl.%s] = pl.create_tile([16, 64], dtype=pl.%s, target_memory=pl.Mem.Vec)\n        "
# name -> (x dtype, out shape, out dtype, the statements defining r from t)
NOT_IN_PLACE = {
    "col_argmax_fp16": ("FP16", "[1, 64]", "INT32", SCRATCH % ("FP16", "FP16") + "r = pl.tile.col_argmax(t, s)"),
    "col_argmin_fp16": ("FP16", "[1, 64]", "INT32", SCRATCH % ("FP16", "FP16") + "r = pl.tile.col_argmin(t, s)"),
    "row_argmax_fp16": ("FP16", "[16, 1]", "INT32", SCRATCH % ("FP16", "FP16") + "r = pl.tile.row_argmax(t, s)"),
    "col_sum": ("FP32", "[1, 64]", "FP32", "r = pl.tile.col_sum(t)"),
    "row_sum": ("FP32", "[16, 1]", "FP32", SCRATCH % ("FP32", "FP32") + "r = pl.tile.row_sum(t, s)"),
    "widening_cast": ("FP16", "[16, 64]", "FP32", "r = pl.tile.cast(t, target_type=pl.FP32, mode=1)"),
    "narrowing_cast": ("FP32", "[16, 64]", "FP16", "r = pl.tile.cast(t, target_type=pl.FP16, mode=1)"),
    "recip": ("FP32", "[16, 64]", "FP32", "r = pl.tile.recip(t)"),
    "ands": ("INT32", "[16, 64]", "INT32", "r = pl.tile.ands(t, 3)"),
    "row_expand_vector": ("FP32", "[16, 64]", "FP32",
                          "v: pl.Tile[[16, 1], pl.FP32] = pl.load(x, [0, 0], [16, 1])\n"
                          "        r = pl.tile.row_expand_mul(t, v)"),
}
# The operands that must stay apart, where not all of them (the row itself is computed in place).
APART = {"row_expand_vector": ("v",)}


def _operand_frame(case: tuple[str, str, str, str]) -> str:
    x, shape, o, body = case
    return OPERAND_FRAME % {"x": x, "shape": shape, "o": o, "body": body}


def _byte_range(v: ir.Var) -> tuple[int, int]:
    ref = v.type.memref
    return ref.byte_offset_.value, ref.byte_offset_.value + ref.size_


def _result_and_operands(name: str) -> tuple[ir.Var, list[ir.Var]]:
    """The result ``r`` of the planned kernel and its tile operands."""
    k = kernel(whole_pipeline(_operand_frame(NOT_IN_PLACE.get(name) or IN_PLACE_CASES[name])))
    stmt = next(s for s in walk(k.body) if isinstance(s, ir.AssignStmt) and s.var.name_hint == "r")
    return stmt.var, [a for a in stmt.value.args if isinstance(a, ir.Var) and isinstance(a.type, ir.TileType)]


@pytest.mark.parametrize("name", sorted(NOT_IN_PLACE))
def test_result_never_shares_a_buffer_with_an_operand_it_does_not_compute_in_place(name: str) -> None:
    r, operands = _result_and_operands(name)
    r0, r1 = _byte_range(r)
    apart = [v for v in operands if v.name_hint in APART.get(name, (v.name_hint,))]
    assert apart
    for v in apart:
        v0, v1 = _byte_range(v)
        assert r1 <= v0 or v1 <= r0, f"{name}: result {r0}..{r1} overlaps operand '{v.name_hint}' {v0}..{v1}"


IN_PLACE_CASES = {
    "add": ("FP32", "[16, 64]", "FP32", "r = pl.add(t, t)"),
    "exp": ("FP32", "[16, 64]", "FP32", "r = pl.exp(t)"),
    "muls": ("FP32", "[16, 64]", "FP32", "r = pl.tile.muls(t, 2.0)"),
    "row_expand_tile": ("FP32", "[16, 64]", "FP32",
                        "v: pl.Tile[[16, 1], pl.FP32] = pl.load(x, [0, 0], [16, 1])\n"
                        "        r = pl.tile.row_expand_mul(t, v)"),
}


@pytest.mark.parametrize("name", sorted(IN_PLACE_CASES))
def test_position_wise_ops_keep_writing_in_place(name: str) -> None:
    r, operands = _result_and_operands(name)
    assert _byte_range(r) == _byte_range(operands[0])


WINDOWS = KERNEL_FRAME % """
        t: pl.Tile[[16, 128], pl.FP32] = pl.load(x, [0, 0], [16, 128])
        v: pl.Tile[[1, 64], pl.FP32] = pl.load(x, [32, 0], [1, 64])
        lo = t[:, 0:64]
        hi = t[:, 64:128]
        a = pl.col_expand_mul(lo, v)
        b = pl.col_expand_mul(hi, v)
        r: pl.Tile[[16, 64], pl.FP32] = pl.add(a, b)
"""


def test_a_slice_is_a_view_of_its_source_buffer_and_no_result_lands_on_a_window_it_reads() -> None:
    program = whole_pipeline(WINDOWS.replace("[[64, 64]", "[[64, 128]"))
    types = {s.var.name_hint: s.var.type.memref for s in ir.flatten_to_stmts(kernel(program).body)
             if isinstance(s, ir.AssignStmt) and isinstance(s.var.type, ir.TileType)}
    assert types["lo"] is types["t"] and types["hi"] is types["t"]
    assert types["a"].base_ is not types["t"].base_ and types["b"].base_ is not types["t"].base_


def test_set_validshape_is_a_view_of_its_source_buffer() -> None:
    """It had a buffer of its own that nothing writes (issue 28): the emitters read the source's."""
    body = """
        t: pl.Tile[[16, 64], pl.FP32] = pl.load(x, [0, 0], [16, 64])
        v: pl.Tile[[16, 64], pl.FP32] = pl.tile.set_validshape(t, 8, 64)
        r: pl.Tile[[16, 64], pl.FP32] = pl.exp(v)
    """
    program = whole_pipeline(KERNEL_FRAME % body)
    refs = {s.var.name_hint: s.var.type.memref for s in walk(kernel(program).body)
            if isinstance(s, ir.AssignStmt) and isinstance(s.var.type, ir.TileType)}
    assert refs["v"] == refs["t"]


def test_retype_refuses_an_assignment_handler() -> None:
    """The planning rewrites send assignments straight to ``Retype.assign``: a handler that would
    match one (it would never be asked) is refused when the class is made."""
    from pypto.transform.memref_util import Retype
    from pypto.transform.rewrite import on

    with pytest.raises(TypeError, match="^Late: a Retype special-cases assignments by overriding assign, not with @on$"):

        class Late(Retype):
            @on(ir.AssignStmt)
            def _assign(self, node: ir.AssignStmt) -> ir.AssignStmt:
                return node



def _retyped_row_blocks(names: set[str]) -> tuple[list[ir.AssignStmt], dict[str, ir.Var], list[ir.AssignStmt]]:
    """The kernel of ROW_BLOCKS before and after a Retype giving the variables ``names`` new (equal)
    types: its assignments before, the new variables by name, its assignments after."""
    from pypto.transform.memref_util import Retype

    program = parse_program(ROW_BLOCKS)
    func = program.get_function("block_scale")
    before = [s for s in func.body.stmts if isinstance(s, ir.AssignStmt)]
    run = Retype({v: v.type.model_copy() for v in [*func.params, *(s.var for s in before)] if v.name_hint in names})
    run.start(func, program)
    out = run.function(func)
    after = [s for s in out.body.stmts if isinstance(s, ir.AssignStmt)]
    return before, {v.name_hint: v for v in [*out.params, *(s.var for s in after)]}, after


def test_retype_renames_the_variables_of_calls_with_computed_arguments() -> None:
    """``pl.store(tc, [row, 0], out)``: a renamed tile argument is replaced in place and the offsets
    tuple is kept as it is; when the offsets hold a renamed variable they are rebuilt around the new one."""
    before, news, after = _retyped_row_blocks({"tc"})
    store = after[-1].value
    assert store.args[0] is news["tc"] and news["tc"] is not before[-2].var
    assert store.args[1] is before[-1].value.args[1]  # no renamed variable in it: the same tuple
    before, news, after = _retyped_row_blocks({"row", "tc"})
    load, store = after[0].value, after[-1].value
    assert load.args[1].elements[0] is news["row"] and store.args[1].elements[0] is news["row"]
    assert news["row"] is not before[0].value.args[1].elements[0]
    assert store.args[0] is news["tc"]


def test_lifetimes_are_kept_per_function_object() -> None:
    """InitMemRef and MemoryReuse read the lifetimes of the same kernel object once; a rebuilt kernel
    (each planning pass's output) gets its own."""
    from pypto.passes.memory_lifetimes import lifetimes

    program = passes.init_memref()(front(TILE_ADD))
    func = kernel(program)
    assert lifetimes(func) is lifetimes(func)
    reused = kernel(passes.memory_reuse()(program))
    assert reused is not func and lifetimes(reused) is not lifetimes(func)
    assert sorted(v.name_hint for v in lifetimes(reused).defs) == ["ta", "tb", "tc"]


@pytest.mark.parametrize("name", ["accumulate", "carry_move", "branch_then"])
def test_lifetime_intervals_are_each_tiles_interval(name: str) -> None:
    """``Lifetimes.intervals()`` (MemoryReuse's packing reads them all at once) holds ``interval(v)``
    of every tile, on kernels whose tiles live to the end of a loop or are never read."""
    from pypto.passes.memory_lifetimes import Lifetimes, lifetimes

    life = lifetimes(kernel(passes.init_memref()(front(PROGRAMS[name][0]))))
    assert life.defs and life.intervals() == {v: life.interval(v) for v in life.defs}
    # The edges of interval's max: a tile never read, and one whose last number is below its definition,
    # end at the definition.
    a, b, c = (ir.Var(n, ir.PtrType.get(), ir.Span.unknown()) for n in "abc")
    made = Lifetimes(defs={a: 3, b: 5, c: 7}, last={a: 6, b: 2})
    assert made.intervals() == {v: made.interval(v) for v in made.defs} == {a: (3, 6), b: (5, 5), c: (7, 7)}


# ---- the straight-line lifetimes loop against the statement walk ---------------------------------


def _random_straight_body(seed: int) -> str:
    """A kernel body of one block over [16, 64] tiles: loads, element-wise ops on two tiles or a tile
    and a scalar, column broadcasts, and windows (slices) of wide loads, which the no-alias guards treat
    apart; ``r`` is defined last."""
    rng = random.Random(seed)
    tile = "pl.Tile[[16, 64], pl.FP32]"
    lines = [f"t0: {tile} = pl.load(x, [0, 0], [16, 64])"]
    tiles = ["t0"]
    for i in range(1, rng.randint(4, 24)):
        pick, x, y = rng.random(), rng.choice(tiles), rng.choice(tiles)
        if pick < 0.2:
            lines.append(f"t{i}: {tile} = pl.load(x, [{rng.choice([0, 16, 48])}, 0], [16, 64])")
        elif pick < 0.3:
            lines += [f"w{i}: pl.Tile[[16, 128], pl.FP32] = pl.load(x, [0, 0], [16, 128])",
                      f"t{i} = w{i}[:, {rng.choice(['0:64', '64:128'])}]"]
        elif pick < 0.4:
            lines += [f"v{i}: pl.Tile[[1, 64], pl.FP32] = pl.load(x, [32, 0], [1, 64])",
                      f"t{i} = pl.col_expand_mul({x}, v{i})"]
        elif pick < 0.8:
            lines.append(f"t{i}: {tile} = {rng.choice(['pl.add', 'pl.mul', 'pl.sub'])}({x}, {y})")
        elif pick < 0.9:
            lines.append(f"t{i}: {tile} = pl.exp({x})")
        else:
            lines.append(f"t{i}: {tile} = pl.mul({x}, 2.0)")
        tiles.append(f"t{i}")
    lines.append(f"r: {tile} = pl.add({tiles[-1]}, {rng.choice(tiles)})")
    return "\n".join(f"        {line}" for line in lines)


def _lifetimes_summary(life) -> tuple:
    """Every field of ``life``, variables and loops by identity (and order)."""
    def loops(around: tuple) -> tuple:
        return tuple(map(id, around))

    return (
        [(id(v), n) for v, n in life.defs.items()], [(id(v), n) for v, n in life.last.items()],
        [(id(a), id(b)) for a, b in life.guards], list(map(id, life.controls)),
        [(id(v), [(n, loops(around)) for n, around in reads]) for v, reads in life.uses.items()],
        [(id(v), loops(around)) for v, around in life.home.items()], life.branches, life.statements,
        [(id(lp.stmt), lp.start, lp.end) for lp in life.loops],
    )


@pytest.mark.parametrize("seed", range(12))
def test_straight_line_lifetimes_are_those_of_the_statement_walk(seed: int) -> None:
    """A kernel of one block takes the one-loop lifetimes, which find exactly what the walk finds (the
    same numbers, reads, guards and sharing decisions) on the inputs of MemoryReuse and
    AllocateMemoryAddr and on the lowered kernel."""
    from pypto.passes import memory_lifetimes
    from pypto.transform.util import straight_line

    planned_kernels: list[ir.Function] = []

    class Grab(passes.PassInstrument):
        name = "GrabPlanned"

        def before_pass(self, p: passes.Pass, program: ir.Program) -> None:
            if p.name in ("MemoryReuse", "AllocateMemoryAddr"):
                planned_kernels.append(kernel(program))

    with PassContext([Grab()]):
        final = whole_pipeline((KERNEL_FRAME % _random_straight_body(seed)).replace("[[64, 64]", "[[64, 128]"))
    assert len(planned_kernels) == 2
    for func in [*planned_kernels, kernel(final)]:
        stmts = straight_line(func)
        assert stmts is not None
        fast, walked = memory_lifetimes._straight(stmts), memory_lifetimes._walked(func)
        assert walked.defs and _lifetimes_summary(fast) == _lifetimes_summary(walked)


@pytest.mark.parametrize("name", ["accumulate", "carry_move", "branch_then"])
def test_kernels_with_loops_or_branches_take_the_statement_walk(name: str, monkeypatch) -> None:
    from pypto.passes import memory_lifetimes

    def refuse(stmts: list) -> None:
        raise AssertionError("a kernel with a loop or an if took the straight-line lifetimes")

    monkeypatch.setattr(memory_lifetimes, "_straight", refuse)
    func = kernel(passes.init_memref()(front(PROGRAMS[name][0])))
    assert memory_lifetimes._lifetimes(func).controls


def test_plain_values_learns_classes_but_still_refuses_nodes() -> None:
    """The keyword check of the planning passes remembers plain classes by exact class: an IR node or
    a list among the values is refused after enums and numbers were seen."""
    from pypto.transform.memref_util import plain_values

    assert plain_values([VEC, 3, 1.5, "s", None, True])
    assert plain_values([VEC, 3])
    node = ir.ConstInt(1, ir.DataType.INT64, ir.Span.unknown())
    assert not plain_values([VEC, node]) and not plain_values([[VEC]]) and not plain_values([3, (1,)])


def test_lifetimes_read_the_variables_of_offset_tuples_as_expr_vars_does() -> None:
    """The lifetimes read a call whose arguments are variables, constants and tuples of them (a load's
    offsets ``[row, 0]``) without the summary walk: the same variables in the same order as
    ``expr_vars``; a computed operand, or a tuple holding one (``[row * 2, row]``), goes to ``expr_vars``."""
    from pypto.analysis import expr_vars
    from pypto.passes.memory_lifetimes import _leaf_call_vars, _tuple_vars

    calls = [n for n in walk(kernel(passes.init_memref()(front(ROW_BLOCKS))).body) if isinstance(n, ir.Call)]
    tuples = [n for c in calls for n in c.args if isinstance(n, ir.MakeTuple)]
    assert tuples[0].elements[0].name_hint == "row"
    for c in calls:
        assert tuple(_leaf_call_vars(c)) == expr_vars(c)
    assert all(tuple(_tuple_vars(t)) == expr_vars(t) for t in tuples)
    row, span = tuples[0].elements[0], ir.Span.unknown()
    computed = ir.MakeTuple([ir.Mul(row, ir.ConstInt(2, ir.DataType.INDEX, span), ir.DataType.INDEX, span), row], span)
    assert _tuple_vars(computed) == expr_vars(computed) == (row, row)
    store = calls[-1]
    tc, out = store.args[0], store.args[2]
    for args, read in (([tc, computed, out], (tc, row, row, out)), ([tc, computed.elements[0], row], (tc, row, row))):
        call = ir.parts.replace_parts(store, args=args)
        assert tuple(_leaf_call_vars(call)) == expr_vars(call) == read


def _fields(node: object) -> tuple:
    """Every field of ``node`` (a variable's id left out: each copy draws a new one) and which were given."""
    return ({k: v for k, v in node.__dict__.items() if k != "unique_id"}, node.__pydantic_fields_set__)


def test_prototype_copies_are_what_the_constructors_make() -> None:
    """The planning passes build a template of each node they make many of (a MemRef, an address, an
    allocation's variable, call and statement) once per process and copy it afterwards: each copy holds
    the fields (and the given-fields set) the constructor gives those parts, with a new variable id; a
    block rebuilt as a copy of the old one is what block_of makes."""
    from pypto.passes.allocate_memory_addr import _OFFSET
    from pypto.passes.init_memref import _UNASSIGNED, allocation, unassigned
    from pypto.transform.memref_util import block_like, new_memref
    from pypto.transform.util import block_of

    made = []
    for n, (space, size) in enumerate([(VEC, 4096), (ir.MemorySpace.Mat, 512), (ir.MemorySpace.Acc, 65536)]):
        span = ir.Span("k.py", n + 1, 1)
        name = f"mem_{space.name.lower()}_{n}"
        alloc = allocation(name, space, size, span)
        base = ir.Var(name, ir.PtrType.get(), span)
        assert _fields(alloc.var) == _fields(base) and alloc.var.unique_id != base.unique_id
        assert _fields(alloc.value) == _fields(alloc_call(space, size, span))
        assert _fields(alloc) == _fields(ir.AssignStmt(alloc.var, alloc.value, span))
        offset = ir.ConstInt(32 * n, ir.DataType.INT64, span)
        assert _fields(_OFFSET.make({"value": 32 * n, "span": span})) == _fields(offset)
        assert _fields(_UNASSIGNED.make({"span": span})) == _fields(unassigned(span))
        ref, expected = new_memref(base, offset, size, span), ir.MemRef(base, offset, size, span)
        assert _fields(ref) == _fields(expected) and ref.unique_id != expected.unique_id
        made += [ref, alloc.var]
    assert len({r.unique_id for r in made}) == 6
    body = kernel(front(TILE_ADD)).body
    stmts = list(reversed(body.stmts))
    assert_structural_equal(block_like(body, stmts), block_of(stmts, body.span))
    assert _fields(block_like(body, stmts)) == _fields(block_of(stmts, body.span))
    assert block_like(body, stmts[:1]) is stmts[0]


SHARED_BASE = """
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIV)
    def k(self, a: pl.Tensor[[ROWS, 64], pl.FP32], out: pl.Out[pl.Tensor[[ROWS, 64], pl.FP32]]) -> pl.Tensor[[ROWS, 64], pl.FP32]:
        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)
        mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, BYTES)
        s: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_0, pl.const(-1, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec)
        t: pl.Tile[[ROWS, 64], pl.FP32, pl.MemRef(mem_vec_1, pl.const(-1, pl.INT64), BYTES), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [ROWS, 64], [ROWS, 64], target_memory=pl.Mem.Vec)
        u: pl.Tile[[ROWS, 64], pl.FP32, pl.MemRef(mem_vec_0, pl.const(-1, pl.INT64), BYTES), pl.Mem.Vec] = pl.tile.exp(t)
        out = pl.tile.store(u, [0, 0], out)
        return out
"""


def _shared_base(rows: int) -> ir.Program:
    return parse_program(SHARED_BASE.replace("BYTES", str(rows * 64 * 4)).replace("ROWS", str(rows)))


def test_an_allocation_is_as_large_as_its_largest_tile_and_an_overflow_names_its_first_tile() -> None:
    """The tiles of one buffer with different types: the later, larger one sizes the buffer (the next
    one is placed above it), and a capacity error points at the buffer's first tile."""
    placed = kernel(passes.allocate_memory_addr()(_shared_base(64)))
    offsets = {s.var.name_hint: s.var.type.memref.byte_offset.value for s in placed.body.stmts
               if isinstance(s, ir.AssignStmt) and isinstance(s.var.type, ir.TileType)}
    assert offsets == {"s": 0, "t": 16384, "u": 0}
    with PassContext(platform=A2A3), pytest.raises(passes.CapacityError) as err:
        passes.allocate_memory_addr()(_shared_base(512))
    assert err.value.message == (
        "AllocateMemoryAddr: Function 'k': Vec buffer usage (262144 bytes) exceeds platform limit (188416 bytes)")
    assert err.value.span.begin_line == 10  # s



ONE_BUFFER = """
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIV)
    def k(self, a: pl.Tensor[[1024, 64], pl.FP32], out: pl.Out[pl.Tensor[[1024, 64], pl.FP32]]) -> pl.Tensor[[1024, 64], pl.FP32]:
        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 262144)
        t: pl.Tile[[1024, 64], pl.FP32, pl.MemRef(mem_vec_0, pl.const(-1, pl.INT64), 262144), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [1024, 64], [1024, 64], target_memory=pl.Mem.Vec)
        u: pl.Tile[[1024, 64], pl.FP32, pl.MemRef(mem_vec_0, pl.const(-1, pl.INT64), 262144), pl.Mem.Vec] = pl.tile.exp(t)
        out = pl.tile.store(u, [0, 0], out)
        return out
"""


def test_an_overflow_of_tiles_sharing_one_type_names_the_first_of_them() -> None:
    """After MemoryReuse the tiles of a buffer mostly share one type object: a capacity error points at
    the first variable of that type, not a later one."""
    k = kernel(parse_program(ONE_BUFFER))
    t, u = (s.var for s in ir.flatten_to_stmts(k.body)[1:3])
    retype = Retype({u: t.type})  # u takes t's type object, as MemoryReuse gives a buffer's tiles
    retype.start(k, ir.Program([k], "P", k.span))
    shared = retype.function(k)
    assert ir.flatten_to_stmts(shared.body)[2].var.type is t.type
    with PassContext(platform=A2A3), pytest.raises(passes.CapacityError) as err:
        passes.allocate_memory_addr()(ir.Program([shared], "P", k.span))
    assert err.value.span.begin_line == 9  # t
