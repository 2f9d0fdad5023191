"""OutlineIncoreScopes (spec/passes.md §4.9): printed snapshots, interpreter preservation,
parameter directions, dispatch attributes, names and errors."""

from __future__ import annotations

import pytest
from outline_programs import DYNAMIC, INCORE, SCALARS, front, inputs, ssa_program
from pass_helpers import before_after

import pypto.language as pl
from pypto import ir, passes
from pypto.interp.testing import assert_pass_preserves
from pypto.languages.ssa import ssa
from pypto.passes import PassError

ParamDirection = ir.ParamDirection


def outlined(name: str) -> ir.Program:
    return passes.outline_incore_scopes()(ssa_program("incore", name))


@pytest.mark.parametrize("name", sorted(INCORE))
def test_snapshot(name: str, snapshot) -> None:
    before = ssa_program("incore", name)
    after = passes.outline_incore_scopes()(before)
    assert before_after("OutlineIncoreScopes", before, after) == snapshot


@pytest.mark.parametrize("name", sorted(INCORE))
def test_preserves_what_the_program_computes(name: str) -> None:
    program = ssa_program("incore", name)
    for scalar in SCALARS.get(name, (1, 3)):
        assert_pass_preserves(passes.outline_incore_scopes(), program, inputs(program, scalar))


@pytest.mark.parametrize("name", sorted(INCORE))
def test_output_stays_in_ssa_and_prints_back(name: str) -> None:
    after = outlined(name)
    ssa.validate(after)
    assert ir.structural_equal(pl.parse(after.as_python()), after, enable_auto_mapping=True)


def test_directions_follow_the_writes_inside() -> None:
    assert outlined("writes_captured_tensor")["main_incore_0"].param_directions == [
        ParamDirection.In, ParamDirection.Out
    ]
    assert outlined("reads_and_writes_captured_tensor")["main_incore_0"].param_directions == [
        ParamDirection.InOut, ParamDirection.In
    ]
    loop = outlined("row_blocks_in_a_loop")["main_incore_0"]
    assert [p.name_hint for p in loop.params] == ["x", "i", "out__iter_v0"]
    assert loop.param_directions == [ParamDirection.In, ParamDirection.In, ParamDirection.Out]


def test_returns_are_the_written_parameters() -> None:
    kernel = outlined("row_blocks_in_a_loop")["main_incore_0"]
    ret = ir.flatten_to_stmts(kernel.body)[-1]
    assert isinstance(ret, ir.ReturnStmt) and ret.value == [kernel.params[2]]
    # A value computed inside and read after the scope is returned as itself.
    ops = outlined("tensor_ops")["main_incore_0"]
    assert [v.name_hint for v in ir.flatten_to_stmts(ops.body)[-1].value] == ["d", "e"]


def test_a_loop_result_of_another_buffer_is_returned_as_itself() -> None:
    # The loop starts from the captured tensor but yields new ones: its result is not that buffer
    # (the buffer roots follow a loop result to its init only when the loop yields the init's buffer).
    program = front('''
import pypto.language as pl

@pl.program
class LoopOfNewTensors:
    @pl.function
    def main(self, x: pl.Tensor[[64, 64], pl.FP32],
             out: pl.InOut[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            acc = out
            for i in pl.range(4):
                acc = pl.add(acc, x)
        y: pl.Tensor[[64, 64], pl.FP32] = pl.add(acc, x)
        return y
''')
    kernel = passes.outline_incore_scopes()(program)["main_incore_0"]
    assert [v.name_hint for v in ir.flatten_to_stmts(kernel.body)[-1].value] == ["acc__rv_v3"]
    assert kernel.param_directions == [ParamDirection.In, ParamDirection.In]
    assert_pass_preserves(passes.outline_incore_scopes(), program, inputs(program, 1))


def test_a_bare_store_target_is_an_output_with_a_new_version() -> None:
    after = outlined("bare_store_in_two_scopes")
    first, second = after["main_incore_0"], after["main_incore_1"]
    assert first.param_directions == [ParamDirection.In, ParamDirection.Out]
    assert second.param_directions == [ParamDirection.In, ParamDirection.Out]
    text = after.as_python()
    assert "tmp__store: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(" in text
    assert "        return tmp\n" in text and "        return y\n" in text
    assert "tmp_1: pl.Tensor[[64, 64], pl.FP32] = self.main_incore_0(x, tmp)" in text
    assert "y_1: pl.Tensor[[64, 64], pl.FP32] = self.main_incore_1(tmp_1, y)" in text
    assert text.rstrip().endswith("return y_1")


def test_stores_of_a_read_tensor_make_it_inout_and_one_output() -> None:
    kernel = outlined("bare_store_read_back")["main_incore_0"]
    assert kernel.param_directions == [ParamDirection.InOut, ParamDirection.In]
    stmts = ir.flatten_to_stmts(kernel.body)
    assert [s.var.name_hint for s in stmts if isinstance(s, ir.AssignStmt) and s.value.op.name == "tile.store"] == [
        "acc__store", "s"
    ]
    assert stmts[-1].value == [kernel.params[0]]


def test_an_opaque_parent_becomes_orchestration() -> None:
    after = outlined("tensor_ops")
    assert after["main"].func_type is ir.FunctionType.Orchestration
    assert after["main_incore_0"].func_type is ir.FunctionType.InCore


def test_task_scopes_become_submits() -> None:
    main = outlined("tasks_and_no_dep")["main"]
    first, _, tid, second, _ = ir.flatten_to_stmts(main.body)[:5]
    assert isinstance(first.value, ir.Submit) and first.value.deps == []
    assert tid.var.name_hint == "t0" and tid.value.index == 1
    submit = second.value
    assert isinstance(submit, ir.Submit)
    assert submit.deps == [tid.var] and submit.allow_early_resolve
    assert [a.name_hint for a in submit.args] == ["y", "x", "side", "out"]
    assert submit.attrs["arg_direction_overrides"] == [2]  # no_dep_args=[side]


def test_scope_options_become_function_attrs() -> None:
    kernel = outlined("split_and_slot_num")["main_incore_0"]
    assert dict(kernel.attrs) == {"split": ir.SplitMode.UP_DOWN, "slot_num": 4}


def test_split_aiv_regions_and_dynamic_dims() -> None:
    after = passes.outline_incore_scopes()(front(DYNAMIC))
    kernel, main = after["main_incore_0"], after["main"]
    assert dict(kernel.attrs) == {"split_aiv": True}
    assert kernel.return_types == []
    # tensor.dim of the dynamic axis folds onto the symbol once main is an Orchestration function.
    n = ir.flatten_to_stmts(main.body)[0]
    assert n.value is main.params[0].type.shape[0]
    assert isinstance(ir.flatten_to_stmts(main.body)[1], ir.EvalStmt)


def test_name_hints_are_deduplicated() -> None:
    after = outlined("scopes_under_if_and_name_hints")
    assert sorted(f.name for f in after.functions.values()) == ["main", "main_incore_0", "scale", "scale_0"]
    # A hint another function already took gets the parent's name in front.
    text = '''
import pypto.language as pl

@pl.program
class Two:
    @pl.function
    def main(self, x: pl.Tensor[[8], pl.FP32]) -> pl.Tensor[[8], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="work"):
            y = pl.add(x, x)
        z = self.other(y)
        return z

    @pl.function
    def other(self, x: pl.Tensor[[8], pl.FP32]) -> pl.Tensor[[8], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="work"):
            y = pl.mul(x, x)
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="main"):
            z = pl.exp(y)
        return z
'''
    names = sorted(f.name for f in passes.outline_incore_scopes()(front(text)).functions.values())
    assert names == ["main", "other", "other_main", "other_work", "work"]


def test_programs_without_scopes_come_back_unchanged() -> None:
    program = front(open("examples/tile_add.py").read())
    assert passes.outline_incore_scopes()(program) is program


def _ssa(body: str, kind: str = "") -> ir.Program:
    return front(f'''
import pypto.language as pl

@pl.program
class Bad:
    @pl.function{kind}
    def main(self, x: pl.Tensor[[64, 64], pl.FP32],
             out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
{body}
        return out
''')


def test_split_together_with_split_aiv_is_an_error() -> None:
    program = _ssa('''        with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.split(pl.SplitMode.UP_DOWN)]):
            for lane in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                y = pl.exp(x)
                out[:] = y''')
    with pytest.raises(PassError, match=r"pl.split\(UP_DOWN\) on a pl.at scope that also holds pl.split_aiv") as err:
        passes.outline_incore_scopes()(program)
    assert err.value.span.begin_line == 10
    assert err.value.hint == "split the vector work either automatically (pl.split) or by hand (pl.split_aiv), not both"


def test_no_dep_args_must_name_a_captured_tensor() -> None:
    program = _ssa('''        with pl.at(level=pl.Level.CORE_GROUP, no_dep_args=[x]):
            y = pl.exp(out)
            out[:] = y''')
    with pytest.raises(PassError, match="no_dep_args names 'x', which this scope does not take from outside") as err:
        passes.outline_incore_scopes()(program)
    assert err.value.span.begin_line == 9


def test_dumped_tensors_the_dispatch_sees_go_on_the_call() -> None:
    program = _ssa('''        with pl.at(level=pl.Level.CORE_GROUP, dumps=[x]):
            t = pl.exp(x)
            pl.dump_tag(t)
            y = pl.add(t, x)
            out[:] = y''', "(type=pl.FunctionType.Orchestration)")
    main = passes.outline_incore_scopes()(program)["main"]
    scope_dumps = [v.name_hint for v in ir.flatten_to_stmts(program["main"].body)[0].attrs["dump_vars"]]
    call = ir.flatten_to_stmts(main.body)[0].value
    assert (scope_dumps, [v.name_hint for v in call.attrs["dump_vars"]]) == (["x", "t"], ["x"])


def test_parent_without_tensor_dim_keeps_its_body_as_the_fold_would() -> None:
    # The fold of dims is skipped for a parent that called no tensor.dim: the shortcut gives what the
    # fold gives, and a parent with one (test_split_aiv_regions_and_dynamic_dims) still goes through it.
    from pypto.passes.outlining import _FoldDims

    compared = 0
    for name in sorted(INCORE):
        program = ssa_program("incore", name)
        after = passes.outline_incore_scopes()(program)
        for parent in program.functions.values():
            new = after[parent.name]
            if new.func_type is not ir.FunctionType.Orchestration or parent.func_type is ir.FunctionType.Orchestration:
                continue
            assert "tensor.dim" not in ir.python_print(parent)
            folded = _FoldDims().fold(ir.Function(new.name, list(zip(new.params, new.param_directions)),
                                                  new.return_types, new.body, new.span, ir.FunctionType.Opaque,
                                                  attrs=new.attrs))
            assert ir.python_print(folded) == ir.python_print(new)
            compared += 1
    assert compared > 5
