"""SplitVectorKernel: an unsplit vector kernel launched on both AIV lanes works on lane 0 while lane 1
replays its pipe traffic, and the program runs as before on the interpreter."""

from __future__ import annotations

import pytest
from mixed_programs import NAMES, before_pass
from pass_helpers import before_after
from shared_programs import cube_to_vector
from tile_programs import inputs

import pypto.language as pl
from pypto import ir, passes
from pypto.analysis import op_name, walk
from pypto.interp.testing import assert_pass_preserves
from pypto.ir.expr import Call
from pypto.ir.stmt import IfStmt
from pypto.languages.invariants import VectorKernelSplit
from pypto.passes import PassError


@pytest.mark.parametrize("name", NAMES)
def test_lane_one_replays_the_pipe_traffic(name: str, snapshot) -> None:
    before = before_pass(name, "SplitVectorKernel")
    after = assert_pass_preserves(passes.split_vector_kernel(), before, inputs(before), entry="main")
    assert VectorKernelSplit.check(after) == []
    assert before_after("SplitVectorKernel", before, after) == snapshot


def _ops(func: ir.Function) -> list[str]:
    return [op_name(n) for n in walk(func.body) if isinstance(n, Call)]


def test_lane_one_pops_and_frees_but_neither_computes_nor_stores() -> None:
    before = before_pass("mm_bias_relu", "SplitVectorKernel")
    assert [v.code for v in VectorKernelSplit.check(before)] == ["NO_LANE_REPLAY"]
    aiv = passes.split_vector_kernel()(before).get_function("k_aiv")
    branch = next(n for n in walk(aiv.body) if isinstance(n, IfStmt))
    lane1 = [op_name(n) for n in walk(branch.else_body) if isinstance(n, Call)]
    assert lane1 == ["tile.tpop_from_aic", "system.tfree_to_aic"]
    assert "tile.store" in [op_name(n) for n in walk(branch.then_body) if isinstance(n, Call)]


def test_lane_one_pushes_an_empty_stand_in() -> None:
    before = before_pass("vec_to_cube", "SplitVectorKernel")
    aiv = passes.split_vector_kernel()(before).get_function("k_aiv")
    branch = next(n for n in walk(aiv.body) if isinstance(n, IfStmt))
    lane1 = [n for n in walk(branch.else_body) if isinstance(n, Call)]
    assert [op_name(c) for c in lane1] == ["tile.create", "tile.tpush_to_aic"]
    pushed = lane1[1].args[0].type
    assert [d.value for d in pushed.get_effective_tile_view().valid_shape] == [0, 0]


def _hand_written(body: str, split: int = 0) -> ir.Program:
    """``cube_to_vector``'s program with ``body`` on both vector lanes, before SplitVectorKernel."""
    text = cube_to_vector(body, split=split, dual=True)
    chain = passes.PassManager.get_strategy(plugins=False).passes
    upto = [p.name for p in chain].index("SplitVectorKernel")
    return passes.PassManager(chain[:upto]).run(pl.parse(text))


def test_a_hand_written_two_lane_kernel_gets_the_replay_too() -> None:
    before = _hand_written("""
e = pl.exp(c)
pl.tfree_to_aic(c)
out = pl.store(e, [0, 0], out)
""")
    after = assert_pass_preserves(passes.split_vector_kernel(), before, inputs(before), entry="main")
    assert "tile.get_subblock_idx" in _ops(after.get_function("mm_aiv"))


def test_a_kernel_reading_its_lane_is_left_as_written() -> None:
    before = _hand_written("""
e = pl.exp(c)
pl.tfree_to_aic(c)
if pl.tile.get_subblock_idx() == 0:
    out = pl.store(e, [0, 0], out)
else:
    out = pl.store(c, [0, 0], out)
""")
    assert VectorKernelSplit.check(before) == []
    assert passes.split_vector_kernel()(before) is before


def test_lane_one_reads_nothing_from_its_tiles() -> None:
    """Scalars read from tiles (popped ones too: pto-isa's CPU TPOP gives lane 1 zeros) are lane 0's."""
    before = _hand_written("""
e = pl.exp(c)
s = pl.tile.read(c, [0, 0])
t = pl.tile.read(e, [0, 0])
pl.tfree_to_aic(c)
if s > t:
    out = pl.store(e, [0, 0], out)
else:
    out = pl.store(c, [0, 0], out)
""")
    after = assert_pass_preserves(passes.split_vector_kernel(), before, inputs(before), entry="main")
    branch = next(n for n in walk(after.get_function("mm_aiv").body) if isinstance(n, IfStmt))
    lane1 = [op_name(n) for n in walk(branch.else_body) if isinstance(n, Call)]
    assert lane1 == ["tile.tpop_from_aic", "system.tfree_to_aic"]


def test_a_kernel_whose_pipe_ops_split_is_left_as_written() -> None:
    before = _hand_written("pl.tfree_to_aic(c)\nout = pl.store(c, [0, 0], out)", split=1)
    assert VectorKernelSplit.check(before) == []
    assert passes.split_vector_kernel()(before) is before


def test_a_branch_on_tile_data_cannot_be_replayed() -> None:
    body = """
e = pl.exp(c)
s = pl.tile.read(e, [0, 0])
if s > 0.0:
    pl.tfree_to_aic(c)
    out = pl.store(e, [0, 0], out)
else:
    pl.tfree_to_aic(c)
    out = pl.store(e, [0, 0], out)
"""
    before = _hand_written(body)
    with pytest.raises(PassError) as err:
        passes.split_vector_kernel()(before)
    line = next(k for k, text in enumerate(cube_to_vector(body).splitlines(), start=1) if "if s > 0.0" in text)
    assert str(err.value).splitlines() == [
        "SplitVectorKernel: the second vector lane replays this kernel's pipe traffic without its tile "
        "work, but this statement needs 's', which comes from that work",
        f"   --> <string>:{line}:9",
        "   |",
        f"{line} |         if s > 0.0:",
        "   |         ^^^^^^^^^^^",
        "   = hint: compute the loop bounds and branch conditions of a kernel with pipes from scalars, or split the "
        "vector work with pl.split so that both lanes compute",
    ]


def test_a_branch_on_popped_data_cannot_be_replayed() -> None:
    before = _hand_written("""
s = pl.tile.read(c, [0, 0])
if s > 0.0:
    pl.tfree_to_aic(c)
    out = pl.store(c, [0, 0], out)
else:
    pl.tfree_to_aic(c)
    out = pl.store(c, [0, 0], out)
""")
    with pytest.raises(PassError, match="this statement needs 's', which comes from that work"):
        passes.split_vector_kernel()(before)


def test_lane_one_does_not_read_back_what_lane_zero_stores() -> None:
    before = _hand_written("""
pl.tfree_to_aic(c)
out = pl.store(c, [0, 0], out)
v = pl.tensor.read(out, [0, 0])
pl.tensor.write(out, [0, 0], v + 1.0)
""")
    after = assert_pass_preserves(passes.split_vector_kernel(), before, inputs(before), entry="main")
    branch = next(n for n in walk(after.get_function("mm_aiv").body) if isinstance(n, IfStmt))
    lane1 = [op_name(n) for n in walk(branch.else_body) if isinstance(n, Call)]
    assert lane1 == ["tile.tpop_from_aic", "system.tfree_to_aic"]


def test_a_branch_on_stored_data_cannot_be_replayed() -> None:
    before = _hand_written("""
out = pl.store(c, [0, 0], out)
v = pl.tensor.read(out, [0, 0])
if v > 0.0:
    pl.tfree_to_aic(c)
else:
    pl.tfree_to_aic(c)
""")
    with pytest.raises(PassError, match="this statement needs 'v', which comes from that work"):
        passes.split_vector_kernel()(before)
