"""MaterializeValidShapeSymbols: a symbol read only by a called function's parameter valid shapes becomes a
leading Scalar[INDEX] parameter, passed the argument's valid extent at each call."""

from __future__ import annotations

import pytest
import valid_shape_programs as vsp
from pass_helpers import before_after
from programs import out, rand

import pypto.language as pl
from pypto import ir, passes
from pypto.analysis import function_index
from pypto.interp import run

PROGRAMS = {"valid_rows": vsp.ValidRowsKernel, "valid_cols": vsp.ValidColsKernel,
            "two_inputs": vsp.ValidRowsTwoInputs}


def before(name: str) -> ir.Program:
    return passes.PassManager(passes.front_passes()).run(PROGRAMS[name])


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_snapshot(name: str, snapshot) -> None:
    program = before(name)
    assert before_after("MaterializeValidShapeSymbols", program,
                        passes.materialize_valid_shape_symbols()(program)) == snapshot


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_the_output_prints_and_parses_back(name: str) -> None:
    after = passes.materialize_valid_shape_symbols()(before(name))
    ir.assert_structural_equal(pl.parse(after.as_python()), after)


def test_the_symbol_is_the_kernel_parameter_its_types_read() -> None:
    after = passes.materialize_valid_shape_symbols()(before("two_inputs"))
    k = after.get_function("k")
    m, x, y = k.params[:3]
    assert (m.name_hint, str(m.type)) == ("M", "pl.Scalar[pl.INDEX]")
    assert x.type.tensor_view.valid_shape[0] is m and y.type.tensor_view.valid_shape[0] is m
    assert k.param_directions[0] is ir.ParamDirection.In


def test_the_caller_passes_its_slice_extent_computed_once_before_the_call() -> None:
    text = passes.materialize_valid_shape_symbols()(before("two_inputs")).as_python()
    assert ("            M__valid_v0: pl.Scalar[pl.INDEX] = pl.min(32, N - i)\n"
            "            out__ssa_v1: pl.Tensor[[N, 64], pl.FP32] = "
            "self.k(M__valid_v0, xs, ys, i, out__iter_v0)\n") in text


def test_a_program_without_such_symbols_is_returned_as_it_is() -> None:
    program = passes.PassManager(passes.front_passes()).run(vsp.ValidRowsKernel)
    once = passes.materialize_valid_shape_symbols()(program)
    assert passes.materialize_valid_shape_symbols()(once) is once


def test_the_interpreter_runs_the_output_as_the_input() -> None:
    x = rand(80, 64)
    want = run(vsp.ValidRowsKernel, x, out(80, 64)).outputs["out"]
    got = run(passes.materialize_valid_shape_symbols()(before("valid_rows")), x, out(80, 64)).outputs["out"]
    assert (got == want).all()


def test_argument_indices_in_the_call_attrs_follow_the_arguments() -> None:
    """``pl.no_dep(xs)`` names argument 0; with the extent in front, it is argument 1."""
    source = vsp.ValidRowsKernel.as_python().replace("self.k(xs, i, out)", "self.k(pl.no_dep(xs), i, out)")
    assert "pl.no_dep(xs)" in source
    program = passes.PassManager(passes.front_passes()).run(pl.parse(source))
    call = next(c for c in function_index(program.get_function("main")).of(ir.Call) if c.op.name == "k")
    assert call.attrs["arg_direction_overrides"] == [0]
    after = passes.materialize_valid_shape_symbols()(program)
    call = next(c for c in function_index(after.get_function("main")).of(ir.Call) if c.op.name == "k")
    assert call.attrs["arg_direction_overrides"] == [1]


def test_given_argument_directions_gain_the_extent_as_a_scalar() -> None:
    given = 'attrs={"arg_directions": [pl.adir.input, pl.adir.scalar, pl.adir.inout]}'
    source = vsp.ValidRowsKernel.as_python().replace("self.k(xs, i, out)", f"self.k(xs, i, out, {given})")
    after = passes.materialize_valid_shape_symbols()(passes.PassManager(passes.front_passes()).run(pl.parse(source)))
    call = next(c for c in function_index(after.get_function("main")).of(ir.Call) if c.op.name == "k")
    assert [ir.ArgDirection(d) for d in call.attrs["arg_directions"]] == [
        ir.ArgDirection.Scalar, ir.ArgDirection.Input, ir.ArgDirection.Scalar, ir.ArgDirection.InOut]
