"""CtrlFlowTransform: continue, break and early returns removed from kernels, orchestration untouched."""

from __future__ import annotations

import numpy as np
import pytest
from front_programs import CTRL_FLOW_TRANSFORM, parse
from pass_helpers import SCALAR_INPUTS, before_after, check_preserves
from pypto.languages.invariants import StructuredCtrlFlow
from pypto.languages.invariants.walk import function_index
from pypto.passes import PassError

from pypto import ir, passes
from pypto.interp import run
from pypto.interp.testing import assert_pass_preserves


@pytest.mark.parametrize("name", sorted(CTRL_FLOW_TRANSFORM))
def test_snapshot(name: str, snapshot) -> None:
    before = parse(CTRL_FLOW_TRANSFORM[name])
    after = check_preserves(passes.ctrl_flow_transform(), before)
    assert StructuredCtrlFlow.check(after) == []
    assert before_after("CtrlFlowTransform", before, after) == snapshot


def test_orchestration_function_is_untouched() -> None:
    program = parse(CTRL_FLOW_TRANSFORM["orchestration_keeps_jumps"])
    assert passes.ctrl_flow_transform()(program) is program


def test_continue_moves_the_rest_into_else() -> None:
    after = passes.ctrl_flow_transform()(parse(CTRL_FLOW_TRANSFORM["continue_in_kernel"]))
    loop = after.get_function("main").body.stmts[1]
    branch = loop.body
    assert isinstance(branch, ir.IfStmt)
    assert isinstance(branch.then_body, ir.SeqStmts) and branch.then_body.stmts == []
    assert isinstance(branch.else_body, ir.AssignStmt)


def test_break_becomes_a_flagged_while() -> None:
    after = passes.ctrl_flow_transform()(parse(CTRL_FLOW_TRANSFORM["break_in_for"]))
    stmts = after.get_function("main").body.stmts
    flag, stop, counter, loop = stmts[1:5]
    assert flag.var.name_hint == "__break_0" and flag.value.value is False
    assert stop.as_python() == "__stop_0: pl.Scalar[pl.INDEX] = n"
    assert isinstance(loop, ir.WhileStmt)
    assert loop.condition.as_python() == "i < __stop_0 and not __break_0"
    assert counter.var.name_hint == "i"
    assert not function_index(after.get_function("main")).has(ir.BreakStmt, ir.ContinueStmt)


def test_negative_step_counts_down() -> None:
    after = passes.ctrl_flow_transform()(parse(CTRL_FLOW_TRANSFORM["negative_step_nested_break"]))
    loop = after.get_function("main").body.stmts[3]
    assert loop.condition.as_python() == "i > 0 and not __break_0"


def test_jumps_in_loops_with_explicit_yields_carry_the_values_so_far() -> None:
    """``continue`` keeps the carried values (the yield is skipped), ``break`` leaves with them; several
    yielded values go through temporaries, so a swap stays a swap."""
    program = parse(CTRL_FLOW_TRANSFORM["jumps_in_loops_with_explicit_yields"])
    after = passes.ctrl_flow_transform()(program)
    text = after.get_function("main").as_python(concise=True)
    assert "a2 = a0\n    b2 = b0\n" in text
    assert "__carry_0_0 = b2 + i\n" in text and "a2 = __carry_0_0\n" in text and "b2 = __carry_0_1\n" in text
    assert "while k2 < 40 and not __break_1:" in text
    assert [run(after, n).value for n in range(5)] == [318, 20, 26, 26, 283]
    front = [passes.inline_functions(), passes.unroll_loops(), passes.ctrl_flow_transform(), passes.convert_to_ssa()]
    for n in SCALAR_INPUTS:
        assert_pass_preserves(passes.PassManager(front), program, (n,))


def test_an_early_return_becomes_a_flag_and_the_kernel_one_exit() -> None:
    after = passes.ctrl_flow_transform()(parse(CTRL_FLOW_TRANSFORM["early_returns_in_loops"]))
    main = after.get_function("main")
    assert len(list(function_index(main).of(ir.ReturnStmt))) == 1
    assert isinstance(main.body.stmts[-1], ir.ReturnStmt)
    text = main.as_python(concise=True)
    assert "__return_0 = False" in text and "while k < n and not __return_0:" in text
    loop = main.body.stmts[2]
    assert isinstance(loop, ir.ForStmt) and loop.body.condition.as_python() == "not __return_0"


def test_an_early_return_of_another_variable_is_rejected() -> None:
    program = parse(
        """
        @pl.program
        class P:
            @pl.function(type=pl.FunctionType.InCore)
            def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
                a: pl.Scalar[pl.INDEX] = 0
                b: pl.Scalar[pl.INDEX] = 1
                for i in pl.range(n):
                    if i == 2:
                        return a
                return b
        """
    )
    with pytest.raises(PassError, match="an early return of a kernel must return the variables its last return does"):
        passes.ctrl_flow_transform()(program)


def test_returns_ending_both_branches_of_a_final_if_become_one_return() -> None:
    program = parse(
        """
        @pl.program
        class P:
            @pl.function(type=pl.FunctionType.InCore)
            def main(self, x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
                     flag: pl.Scalar[pl.INDEX]) -> pl.Tensor[[16, 64], pl.FP32]:
                t: pl.Tile[[16, 64], pl.FP32] = pl.load(x, [0, 0], [16, 64])
                if flag > 0:
                    out = pl.store(pl.exp(t), [0, 0], out)
                    return out
                else:
                    out = pl.store(t, [0, 0], out)
                    return out
        """
    )
    x = np.arange(16 * 64, dtype=np.float32).reshape(16, 64) / 512
    for flag in (0, 1):
        after = assert_pass_preserves(passes.ctrl_flow_transform(), program, [x, np.zeros_like(x), flag], entry="main")
    main = after.get_function("main")
    assert len(list(function_index(main).of(ir.ReturnStmt))) == 1
    assert isinstance(main.body.stmts[-1], ir.ReturnStmt) and "__return" not in main.as_python()
