"""ConvertToSSA: versions, phis, loop carries, promotion and its errors."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest
from front_programs import CONVERT_TO_SSA, parse
from pass_helpers import before_after, check_preserves, upto
from pypto.analysis import function_index
from pypto.languages import ssa
from pypto.languages.invariants import SSAForm
from pypto.passes import PassError

import pypto.language as pl

from pypto import ir, passes

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
# The pass module (``pypto.passes.convert_to_ssa`` is the factory function of the pass).
SSA_MODULE = importlib.import_module("pypto.passes.convert_to_ssa")


@pytest.mark.parametrize("name", sorted(CONVERT_TO_SSA))
def test_snapshot(name: str, snapshot) -> None:
    before = upto("ConvertToSSA", parse(CONVERT_TO_SSA[name]))
    after = check_preserves(passes.convert_to_ssa(), before)
    assert SSAForm.check(after) == []
    ssa.validate(after)
    assert before_after("ConvertToSSA", before, after) == snapshot


def test_spec_example_structure() -> None:
    after = passes.convert_to_ssa()(parse(CONVERT_TO_SSA["accumulate"]))
    expected = parse(
        """
        @pl.program
        class Acc:
            @pl.function
            def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
                acc__ssa_v0: pl.Scalar[pl.INDEX] = 0
                for i, (acc__iter_v1,) in pl.range(n, init_values=(acc__ssa_v0,)):
                    acc__ssa_v2: pl.Scalar[pl.INDEX] = acc__iter_v1 + i
                    acc__rv_v3 = pl.yield_(acc__ssa_v2)
                return acc__rv_v3
        """
    )
    ir.assert_structural_equal(after, expected)
    loop = after.get_function("main").body.stmts[1]
    assert [v.name_hint for v in loop.iter_args + loop.return_vars] == ["acc__iter_v1", "acc__rv_v3"]


def test_if_without_else_gets_one() -> None:
    program = parse(
        """
        @pl.program
        class P:
            @pl.function
            def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
                x: pl.Scalar[pl.INDEX] = 1
                if n > 3:
                    x = n
                return x
        """
    )
    expected = parse(
        """
        @pl.program
        class P:
            @pl.function
            def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
                x0: pl.Scalar[pl.INDEX] = 1
                if n > 3:
                    x1: pl.Scalar[pl.INDEX] = n
                    x2 = pl.yield_(x1)
                else:
                    x2 = pl.yield_(x0)
                return x2
        """
    )
    ir.assert_structural_equal(passes.convert_to_ssa()(program), expected)


def test_single_definitions_are_kept() -> None:
    program = parse(
        """
        @pl.program
        class P:
            @pl.function
            def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
                a = n + 1
                b = a * 2
                return b
        """
    )
    assert passes.convert_to_ssa()(program) is program


def test_program_already_in_ssa_is_returned_unchanged() -> None:
    once = passes.convert_to_ssa()(parse(CONVERT_TO_SSA["nested_ifs"]))
    assert passes.convert_to_ssa()(once) is once


def test_one_branch_definition_read_after_is_an_error() -> None:
    program = parse(
        """
        @pl.program
        class P:
            @pl.function
            def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
                if n > 3:
                    y = n + 1
                return y
        """
    )
    with pytest.raises(PassError) as err:
        passes.convert_to_ssa()(program)
    assert str(err.value).splitlines() == [
        "ConvertToSSA: 'y' is assigned in only one branch of this if and read after it; "
        "assign it before the if or in both branches",
        "  --> <string>:8:9",
        "  |",
        "8 |         if n > 3:",
        "  |         ^^^^^^^^^",
    ]
    assert err.value.span.begin_line == 8


def test_value_first_defined_in_loop_without_out_param_is_an_error() -> None:
    program = parse(
        """
        @pl.program
        class P:
            @pl.function
            def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
                for i in pl.range(n):
                    last = i * 2
                return last
        """
    )
    with pytest.raises(PassError, match="'last' is first assigned inside this loop and read after it"):
        passes.convert_to_ssa()(program)


def test_promotion_uses_the_out_parameter_as_init() -> None:
    after = passes.convert_to_ssa()(parse(CONVERT_TO_SSA["value_first_defined_in_loop"]))
    main = after.get_function("main")
    loop = main.body.stmts[0]
    assert loop.iter_args[0].initValue is main.params[1]
    assert main.body.stmts[1].value[0] is loop.return_vars[0]


def test_task_id_of_a_scope_carried_across_loop_trips() -> None:
    """``prev = tid`` of a ``pl.at ... as tid`` read by the next trip's ``deps=[prev]``: the scope's
    deps are a use (prev is carried) and its TaskId a definition."""
    program = parse(
        """
        @pl.program
        class P:
            @pl.function(type=pl.FunctionType.Orchestration)
            def main(self, x: pl.Tensor[[64, 64], pl.FP32],
                     out: pl.InOut[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
                with pl.manual_scope():
                    prev = None
                    for i in pl.range(4):
                        with pl.at(level=pl.Level.CORE_GROUP, deps=[prev]) as tid:
                            t = pl.load(x, [i * 16, 0], [16, 64])
                            pl.store(t, [i * 16, 0], out)
                        prev = tid
                return out
        """
    )
    expected = parse(
        """
        @pl.program
        class P:
            @pl.function(type=pl.FunctionType.Orchestration)
            def main(self, x: pl.Tensor[[64, 64], pl.FP32],
                     out: pl.InOut[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
                with pl.manual_scope():
                    prev0: pl.Scalar[pl.TASK_ID] = pl.system.task_invalid()
                    for i, (prev1,) in pl.range(4, init_values=(prev0,)):
                        with pl.at(level=pl.Level.CORE_GROUP, deps=[prev1]) as tid:
                            t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.load(x, [i * 16, 0], [16, 64])
                            pl.store(t, [i * 16, 0], out)
                        prev2: pl.Scalar[pl.TASK_ID] = tid
                        prev3 = pl.yield_(prev2)
                return out
        """
    )
    ir.assert_structural_equal(passes.convert_to_ssa()(program), expected)


def test_scopes_binding_one_task_id_name_get_versions() -> None:
    program = parse(
        """
        @pl.program
        class P:
            @pl.function(type=pl.FunctionType.Orchestration)
            def main(self, x: pl.Tensor[[64, 64], pl.FP32],
                     out: pl.InOut[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
                with pl.manual_scope():
                    with pl.at(level=pl.Level.CORE_GROUP) as tid:
                        pl.store(pl.load(x, [0, 0], [16, 64]), [0, 0], out)
                    with pl.at(level=pl.Level.CORE_GROUP, deps=[tid]) as tid:
                        pl.store(pl.load(out, [0, 0], [16, 64]), [16, 0], out)
                return out
        """
    )
    main = passes.convert_to_ssa()(program).get_function("main")
    first, second = main.body.stmts[0].body.stmts
    names = [first.attrs["task_id_var"].name_hint, second.attrs["task_id_var"].name_hint]
    assert names == ["tid__ssa_v0", "tid__ssa_v1"]
    assert second.attrs["manual_dep_edges"][0] is first.attrs["task_id_var"]


def test_functions_without_branches_or_loops_skip_liveness_with_the_same_result(monkeypatch) -> None:
    """A function without an if or a loop skips the liveness walk (``_flowless``): every example and
    front-pass program converts to the same text and variables as with the general path, and the
    programs with an if or a loop still take the general path."""
    programs = [upto("ConvertToSSA", pl.loads_program(str(p))) for p in sorted(EXAMPLES.glob("*.py"))]
    programs += [upto("ConvertToSSA", parse(src)) for _, src in sorted(CONVERT_TO_SSA.items())]
    taken = {SSA_MODULE._flowless(function_index(f)) for p in programs for f in p.functions.values()}
    assert taken == {True, False}
    fast = [passes.convert_to_ssa()(p) for p in programs]
    monkeypatch.setattr(SSA_MODULE, "_flowless", lambda index: False)
    general = [passes.convert_to_ssa()(p) for p in programs]
    for a, b in zip(fast, general):
        assert a.as_python() == b.as_python()
        ir.assert_structural_equal(a, b)


def test_a_function_with_a_loop_takes_the_liveness_path() -> None:
    program = parse(CONVERT_TO_SSA["accumulate"])
    assert not SSA_MODULE._flowless(function_index(program.get_function("main")))
