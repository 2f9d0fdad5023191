"""Orchestration C++ for Spmd launches (spec/codegen.md §2.3): a call of a Spmd wrapper is one task
of the kernel the wrapper calls, with the dispatch's arguments and the launch spec."""

from __future__ import annotations

import pytest

import pypto.language as pl
from pypto.codegen.errors import CodegenError
from pypto.codegen.kernel_config import generate_kernel_config
from pypto.codegen.orchestration import generate_orchestration, kernel_ids

_T = "pl.Tensor[[128, 64], pl.FP32]"
_DIRS = '{"arg_directions": [pl.adir.input, pl.adir.output_existing]}'


def _program(wrapper: str, main: str) -> pl.Program:
    src = f"""
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIV)
    def other(self, x: {_T}, y: pl.Out[{_T}]) -> {_T}:
        return y

    @pl.function(type=pl.FunctionType.AIV)
    def rows(self, x: {_T}, n: pl.Scalar[pl.INDEX], y: pl.Out[{_T}]) -> {_T}:
        return y

    @pl.function(type=pl.FunctionType.Spmd)
{wrapper}

    @pl.function(type=pl.FunctionType.Orchestration, auto_scope=False)
    def main(self, x: {_T}, out: pl.Out[{_T}]) -> {_T}:
{main}
"""
    return pl.parse_program(src)


# The wrapper takes (out, x) and calls rows(x, 7, out): the kernel's argument order wins.
_SWAPPED = f"""    def launch(self, out: pl.Out[{_T}], x: {_T}) -> {_T}:
        r: {_T} = self.rows(x, 7, out, attrs={{"arg_directions": [pl.adir.input, pl.adir.scalar, pl.adir.output_existing]}})
        return r"""


def test_a_spmd_launch_submits_the_wrapped_kernel_with_the_dispatch_arguments() -> None:
    program = _program(_SWAPPED, f"""        with pl.scope():
            out = self.launch(out, x, attrs={{"arg_directions": [pl.adir.output_existing, pl.adir.input], "core_num": 4}})
            out = self.other(out, out, attrs={{"arg_directions": [pl.adir.input, pl.adir.output_existing]}})
        return out""")
    text = generate_orchestration(program)["orchestration/main.cpp"]
    assert (
        "        // Spmd launch: rows\n"
        "        CoreTaskArgs params_t0;\n"
        "        params_t0.add_input(ext_x);\n"
        "        params_t0.add_output(ext_out);\n"
        "        params_t0.add_scalar((uint64_t)7);\n"
        "        params_t0.launch_spec.set_block_num(4);\n"
        "        rt_submit_aiv_task(0, params_t0);\n"
    ) in text
    # The launch's result is the dispatch's `out`: the next task reads ext_out.
    assert "        // Task 1: other\n        CoreTaskArgs params_t1;\n        params_t1.add_input(ext_out);\n" in text
    assert kernel_ids(program) == {"rows": 0, "other": 1}
    config = generate_kernel_config(program)
    assert '{"func_id": 0, "name": "rows", ' in config and '{"func_id": 1, "name": "other", ' in config
    assert '"name": "launch"' not in config


def test_the_launch_spec_falls_back_to_the_wrapper_attrs() -> None:
    program = _program(f"""    def launch(self, x: {_T}, out: pl.Out[{_T}]) -> {_T}:
        pl.func_attr({{"core_num": 8, "sync_start": True}})
        r: {_T} = self.other(x, out, attrs={_DIRS})
        return out""", f"""        with pl.scope():
            out = self.launch(x, out, attrs={_DIRS})
        return out""")
    text = generate_orchestration(program)["orchestration/main.cpp"]
    assert (
        "        // Spmd launch: other\n"
        "        CoreTaskArgs params_t0;\n"
        "        params_t0.add_input(ext_x);\n"
        "        params_t0.add_output(ext_out);\n"
        "        params_t0.launch_spec.set_block_num(8);\n"
        "        params_t0.launch_spec.set_require_sync_start(true);\n"
        "        rt_submit_aiv_task(0, params_t0);\n"
    ) in text


def test_a_spmd_wrapper_of_two_kernel_calls_has_no_rule() -> None:
    program = _program(f"""    def launch(self, x: {_T}, out: pl.Out[{_T}]) -> {_T}:
        r: {_T} = self.other(x, out, attrs={_DIRS})
        s: {_T} = self.other(x, r, attrs={_DIRS})
        return s""", f"""        with pl.scope():
            out = self.launch(x, out, attrs={{"arg_directions": [pl.adir.input, pl.adir.output_existing], "core_num": 2}})
        return out""")
    with pytest.raises(CodegenError, match="no rule for a Spmd function 'launch' whose body is not one kernel call") as err:
        generate_orchestration(program)
    assert err.value.span.is_valid()
    assert "launches one AIV, AIC or Group kernel" in str(err.value)


def test_a_spmd_wrapper_passing_a_computed_value_has_no_rule() -> None:
    program = _program(f"""    def launch(self, x: {_T}, out: pl.Out[{_T}], n: pl.Scalar[pl.INDEX]) -> {_T}:
        r: {_T} = self.rows(x, n + 1, out, attrs={{"arg_directions": [pl.adir.input, pl.adir.scalar, pl.adir.output_existing]}})
        return r""", f"""        with pl.scope():
            out = self.launch(x, out, 3, attrs={{"arg_directions": [pl.adir.input, pl.adir.output_existing, pl.adir.scalar], "core_num": 2}})
        return out""")
    with pytest.raises(CodegenError, match="no rule for a Spmd function 'launch' passing the computed value") as err:
        generate_orchestration(program)
    assert "passes its own parameters" in str(err.value)
