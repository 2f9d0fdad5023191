"""OutlineClusterScopes (spec/passes.md §4.10): Group and Spmd functions, the launch spec on the
dispatch, snapshots and interpreter preservation."""

from __future__ import annotations

import pytest
from outline_programs import CLUSTER, SCALARS, front, inputs, ssa_program
from pass_helpers import before_after

from pypto import ir, passes
from pypto.analysis import walk
from pypto.interp.testing import assert_pass_preserves
from pypto.languages.outlined import outlined


def cluster_input(name: str) -> ir.Program:
    """The program as OutlineClusterScopes receives it: InCore scopes already outlined."""
    return passes.outline_incore_scopes()(ssa_program("cluster", name))


def after(name: str) -> ir.Program:
    return passes.outline_cluster_scopes()(cluster_input(name))


def main_stmts(program: ir.Program) -> list[ir.Stmt]:
    return ir.flatten_to_stmts(program["main"].body)


@pytest.mark.parametrize("name", sorted(CLUSTER))
def test_snapshot(name: str, snapshot) -> None:
    before = cluster_input(name)
    assert before_after("OutlineClusterScopes", before, passes.outline_cluster_scopes()(before)) == snapshot


@pytest.mark.parametrize("name", sorted(CLUSTER))
def test_preserves_what_the_program_computes(name: str) -> None:
    program = cluster_input(name)
    for scalar in SCALARS.get(name, (1, 3)):
        result = assert_pass_preserves(passes.outline_cluster_scopes(), program, inputs(program, scalar))
    outlined.validate(result)


def test_an_spmd_scope_becomes_a_spmd_function_launched_with_core_num() -> None:
    program = after("spmd_inline_kernel")
    wrapper = program["main_incore_0_spmd"]  # named after the kernel it dispatches
    assert wrapper.func_type is ir.FunctionType.Spmd and "core_num" not in wrapper.attrs
    (dispatch, _) = main_stmts(program)
    assert dispatch.value.op.name == "main_incore_0_spmd"
    assert dict(dispatch.value.attrs) == {"core_num": 4}
    assert program["main"].func_type is ir.FunctionType.Orchestration
    assert wrapper.param_directions == [ir.ParamDirection.In, ir.ParamDirection.Out]


def test_an_spmd_task_becomes_a_submit_with_the_launch_fields() -> None:
    program = after("spmd_dispatch_with_task")
    packed, out, tid, _ = main_stmts(program)
    submit = packed.value
    assert isinstance(submit, ir.Submit) and submit.op.name == "scale_spmd"
    assert (submit.core_num.value, submit.sync_start) == (4, True)
    # The predicate keeps its element read: the scheduler evaluates it, orchestration never does.
    assert submit.predicate.as_python() == "pl.cast(pl.tensor.read(gate, [0]), pl.INDEX) > 0"
    assert (out.var.name_hint, tid.var.name_hint, tid.value.index) == ("out__ssa_v0", "tid", 1)
    # The Spmd wrapper returns its Out param, so a false predicate leaves the output as it was.
    wrapper = program["scale_spmd"]
    assert ir.flatten_to_stmts(wrapper.body)[-1].value == [wrapper.params[1]]


def test_a_cluster_becomes_a_group() -> None:
    program = after("cluster_of_two_kernels")
    group = program["main_cluster_0"]
    assert group.func_type is ir.FunctionType.Group and dict(group.attrs) == {}
    assert [s.value.op.name for s in ir.flatten_to_stmts(group.body)[:2]] == ["main_incore_0", "main_incore_1"]


def test_a_cluster_of_one_spmd_moves_the_launch_spec_to_its_call() -> None:
    program = after("cluster_of_one_spmd")
    group = program["main_cluster_0"]
    assert dict(group.attrs) == {"spmd_unwrapped": True}
    assert [s.value.op.name for s in ir.flatten_to_stmts(group.body)[:1]] == ["scale"]
    call = main_stmts(program)[0].value
    n = program["main"].params[2]
    assert ir.structural_equal(call.attrs["core_num"], n + 1) and call.attrs["core_num"].left is n


def test_a_cluster_keeps_an_spmd_scope_among_other_statements() -> None:
    text = '''
import pypto.language as pl

@pl.program
class Mixed:
    @pl.function
    def main(self, x: pl.Tensor[[64, 64], pl.FP32],
             out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        with pl.cluster():
            with pl.at(level=pl.Level.CORE_GROUP):
                y = pl.add(x, x)
            for i in pl.spmd(2, sync_start=True):
                z = pl.mul(y, 2.0)
                out[:] = z
        return out
'''
    program = passes.outline_incore_scopes()(front(text))
    result = passes.outline_cluster_scopes()(program)
    group = result["main_cluster_0"]
    inner = ir.flatten_to_stmts(group.body)
    assert isinstance(inner[1], ir.SpmdScopeStmt) and inner[1].sync_start
    assert "spmd_unwrapped" not in group.attrs
    assert [f.name for f in result.functions.values() if f.func_type is ir.FunctionType.Spmd] == []
    outlined.validate(result)


SPMD_NAMES = '''
import pypto.language as pl

@pl.program
class SpmdNames:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        t: pl.Tile[[64, 64], pl.FP32] = pl.load(x, [0, 0], [64, 64])
        out = pl.store(t, [0, 0], out)
        return out

    @pl.function
    def main(self, x: pl.Tensor[[64, 64], pl.FP32], a: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
             b: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        with pl.spmd(2):
            a = self.k(x, a)
        with pl.spmd(2):
            b = self.k(x, b)
        with pl.spmd(2):
            i = pl.tile.get_block_idx()
        return b
'''


def test_synthesized_spmd_names_end_in_spmd_and_are_unique() -> None:
    # Named after the one kernel dispatched (<kernel>_<n>_spmd when taken), else after the parent
    # (an inline body given to the pass before OutlineIncoreScopes outlined it).
    result = passes.outline_cluster_scopes()(front(SPMD_NAMES))
    spmd = [f.name for f in result.functions.values() if f.func_type is ir.FunctionType.Spmd]
    assert sorted(spmd) == ["k_0_spmd", "k_spmd", "main_spmd"]
    dispatched = [n.op.name for n in walk(result["main"]) if isinstance(n, ir.Call) and isinstance(n.op, ir.GlobalVar)]
    assert dispatched == ["k_spmd", "k_0_spmd", "main_spmd"]


def test_programs_without_scopes_come_back_unchanged() -> None:
    program = front(open("examples/tile_add.py").read())
    assert passes.outline_cluster_scopes()(program) is program
