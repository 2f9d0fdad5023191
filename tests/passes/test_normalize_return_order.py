"""NormalizeReturnOrder: kernels return the parameters they write, in parameter order; callers'
tuple items follow the new order."""

from __future__ import annotations

import pytest
from pass_helpers import before_after
from tile_programs import PROGRAMS, RETURNS, front, inputs

from pypto import ir, passes
from pypto.interp.testing import assert_pass_preserves
from pypto.languages.invariants import ReturnParamsExplicit
from pypto.passes import PassError


def split(name: str) -> ir.Program:
    return passes.expand_mixed_kernel()(passes.infer_tile_memory_space()(front(name)))


def normalize(program: ir.Program) -> ir.Program:
    return assert_pass_preserves(passes.normalize_return_order(), program, inputs(program), entry="main")


@pytest.mark.parametrize("name", sorted({**PROGRAMS, **RETURNS}))
def test_snapshot(name: str, snapshot) -> None:
    before = split(name)
    after = normalize(before)
    assert ReturnParamsExplicit.check(after) == []
    assert before_after("NormalizeReturnOrder", before, after) == snapshot


def test_a_store_result_is_returned_as_its_parameter() -> None:
    after = normalize(split("tile_add"))
    assert after.get_function("tile_add").body.stmts[-1].as_python() == "return c"
    # An InCore kernel breaks the rule before the pass and keeps it after.
    incore = passes.infer_tile_memory_space()(front("tile_add"))
    assert [v.code for v in ReturnParamsExplicit.check(incore)] == ["IMPLICIT_PARAM_RETURN"]
    assert ReturnParamsExplicit.check(passes.normalize_return_order()(incore)) == []


def test_returns_follow_parameter_order_and_callers_follow_them() -> None:
    after = normalize(split("two_outputs"))
    assert after.get_function("k").body.stmts[-1].as_python() == "return p, q"
    main = after.get_function("main").body.stmts
    assert [s.as_python() for s in main[1:3]] == [
        "a: pl.Tensor[[64, 64], pl.FP32] = _tuple_tmp[1]",
        "b: pl.Tensor[[64, 64], pl.FP32] = _tuple_tmp[0]",
    ]


def test_a_loop_carried_write_back_is_its_parameter() -> None:
    after = normalize(split("loop_carry"))
    assert after.get_function("scale_loop").body.stmts[-1].as_python() == "return y"


def test_a_normalized_program_is_unchanged() -> None:
    once = passes.normalize_return_order()(split("two_outputs"))
    assert passes.normalize_return_order()(once) is once


def test_a_whole_tuple_use_of_reordered_results_is_an_error() -> None:
    program = split("two_outputs")
    main = program.get_function("main")
    call = main.body.stmts[0]
    ret = ir.ReturnStmt([call.var])
    whole = ir.replace(main, body=ir.SeqStmts([call, ret]), return_types=[call.var.type])
    program = ir.Program([program.get_function("k"), whole], program.name)
    with pytest.raises(PassError, match="the results of 'k' are used as a whole tuple"):
        passes.normalize_return_order()(program)
