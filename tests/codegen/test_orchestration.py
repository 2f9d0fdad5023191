"""The PTO2 orchestration C++ and kernel_config.py generators (spec/codegen.md §2)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import pypto.language as pl
from pypto import ir
from pypto.backend import BackendType, platform_for
from pypto.codegen import coverage as cov
from pypto.codegen.errors import CodegenError
from pypto.codegen.kernel_config import generate_kernel_config
from pypto.codegen.orchestration import OrchestrationEmitter, generate_orchestration, kernel_ids
from pypto.codegen.target import ORCHESTRATION
from pypto.ir.errors import VerificationError
from pypto.ir.node import replace

sys.path.insert(0, str(Path(__file__).resolve().parent))
import orch_programs as programs  # noqa: E402

DATA = Path(__file__).resolve().parent.parent / "sim" / "data"
PROGRAMS = {
    "tile_add": programs.TileAdd,
    "row_blocks": programs.RowBlocks,
    "chain": programs.Chain,
    "features": programs.Features,
    "spec_example": programs.SpecExample,
}
IN, OUT_EX, INOUT = pl.adir.input, pl.adir.output_existing, pl.adir.inout


@pytest.mark.parametrize("name", PROGRAMS)
def test_orchestration(name: str, snapshot) -> None:
    files = generate_orchestration(PROGRAMS[name])
    assert list(files) == ["orchestration/main.cpp"]
    assert files["orchestration/main.cpp"] == snapshot


@pytest.mark.parametrize("name", PROGRAMS)
def test_kernel_config(name: str, snapshot) -> None:
    assert generate_kernel_config(PROGRAMS[name]) == snapshot


@pytest.mark.parametrize("name", ["tile_add", "row_blocks"])
def test_output_equals_the_hand_written_trees_that_run_on_the_simulator(name: str) -> None:
    program = PROGRAMS[name]
    assert generate_orchestration(program)["orchestration/main.cpp"] == (DATA / name / "orchestration" / "main.cpp").read_text()
    assert generate_kernel_config(program) == (DATA / name / "kernel_config.py").read_text()


def test_kernel_ids_follow_first_use() -> None:
    assert kernel_ids(programs.Features) == {"step": 0, "rows": 1}
    assert kernel_ids(programs.Chain) == {"add_kernel": 0, "scale_kernel": 1}


def test_a_program_without_orchestration_has_no_orchestration_file_and_no_kernel_config() -> None:
    kernels_only = ir.Program([f for f in programs.TileAdd.functions.values() if f.name != "main"], "K", ir.Span.unknown())
    assert generate_orchestration(kernels_only) == {}
    with pytest.raises(CodegenError, match="without an Orchestration function in kernel_config"):
        generate_kernel_config(kernels_only)


def test_unknown_runtime_is_rejected() -> None:
    with pytest.raises(CodegenError, match="no rule for runtime 'nope' in kernel_config"):
        generate_kernel_config(programs.TileAdd, runtime="nope")
    assert '"runtime": "host_build_graph"' in generate_kernel_config(programs.TileAdd, runtime="host_build_graph")


def test_the_input_must_be_in_the_runtime_dialect() -> None:
    main = programs.TileAdd.get_function("main")
    auto = replace(main, attrs={**main.attrs, "auto_scope": True})
    program = ir.Program([auto, programs.TileAdd.get_function("tile_add")], "TileAdd", ir.Span.unknown())
    with pytest.raises(VerificationError, match="not in dialect .runtime. .orchestration code generation."):
        generate_orchestration(program)


def _orch(body: str, params: str = "self, x: pl.Tensor[[64, 64], pl.FP32], y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]") -> ir.Program:
    src = (
        "import pypto.language as pl\n\n"
        "@pl.program\n"
        "class P:\n"
        "    @pl.function(type=pl.FunctionType.AIV)\n"
        "    def k(self, x: pl.Tensor[[64, 64], pl.FP32], y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:\n"
        "        return y\n\n"
        "    @pl.function(type=pl.FunctionType.Orchestration, auto_scope=False)\n"
        f"    def main({params}) -> pl.Tensor[[64, 64], pl.FP32]:\n"
        + "".join(f"        {line}\n" for line in body.strip("\n").splitlines())
    )
    return pl.parse_program(src)


def test_an_op_without_a_rule_names_the_op_and_the_target() -> None:
    program = _orch('with pl.scope():\n    t: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.assemble(x, x, [0, 0])\n'
                    '    y = self.k(t, y, attrs={"arg_directions": [pl.adir.input, pl.adir.output_existing]})\nreturn y')
    with pytest.raises(CodegenError, match=r"^no rule for tensor.assemble in orchestration") as err:
        generate_orchestration(program)
    assert err.value.span.is_valid()


def test_a_keyword_the_spelling_cannot_print_is_no_rule() -> None:
    program = _orch('with pl.scope():\n    t: pl.Tensor[[64, 64], pl.FP32] = pl.create_tensor([64, 64], dtype=pl.FP32, layout=pl.DN)\n'
                    '    y = self.k(t, y, attrs={"arg_directions": [pl.adir.input, pl.adir.output_existing]})\nreturn y')
    with pytest.raises(CodegenError, match="no rule for tensor.create with layout in orchestration"):
        generate_orchestration(program)


_X3 = "self, x: pl.Tensor[[4, 64, 64], pl.FP32], y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]"
_CALL_K = '    y = self.k(t, y, attrs={"arg_directions": [pl.adir.input, pl.adir.output_existing]})\nreturn y'


def test_a_lower_rank_window_is_a_view_reshaped_to_its_kept_axes() -> None:
    program = _orch("with pl.scope():\n    t = pl.slice(x, [64, 64], [2, 0, 0])\n" + _CALL_K, _X3)
    lines = [line.strip() for line in generate_orchestration(program)["orchestration/main.cpp"].splitlines()]
    start = lines.index("uint32_t t_offsets[3] = {2, 0, 0};")
    assert lines[start:start + 5] == [
        "uint32_t t_offsets[3] = {2, 0, 0};",
        "uint32_t t_shapes[3] = {1, 64, 64};",
        "ChipTensor t_window = ext_x.view(t_shapes, t_offsets);",
        "uint32_t t_kept[2] = {64, 64};",
        "ChipTensor t = t_window.reshape(t_kept, 2);",
    ]


def test_dropping_axes_of_a_window_that_is_not_whole_rows_has_no_rule() -> None:
    wide = _X3.replace("64, 64]", "64, 128]", 1)
    program = _orch("with pl.scope():\n    t = pl.slice(x, [64, 64], [2, 0, 64])\n" + _CALL_K, wide)
    with pytest.raises(CodegenError, match="no rule for tensor.slice dropping axes of a window that is not a block of "
                       "whole rows in orchestration") as err:
        generate_orchestration(program)
    assert err.value.hint == "pass the full-rank window to the kernel and slice it there, or take whole trailing axes"


def test_a_manual_dep_tensor_is_created_with_creator_only_tracking() -> None:
    program = _orch('with pl.scope():\n    t: pl.Tensor[[64, 64], pl.FP32] = pl.create_tensor([64, 64], dtype=pl.FP32, manual_dep=True)\n'
                    '    y = self.k(t, y, attrs={"arg_directions": [pl.adir.input, pl.adir.output_existing]})\nreturn y')
    text = generate_orchestration(program)["orchestration/main.cpp"]
    assert "        TensorCreateInfo t_ci(t_ci_shapes, 2, DataType::FLOAT32, true);\n" in text


def test_an_init_value_of_a_half_precision_tensor_has_no_rule() -> None:
    program = _orch('with pl.scope():\n    t: pl.Tensor[[64, 64], pl.FP16] = pl.create_tensor([64, 64], dtype=pl.FP16, init_value=1.0)\n'
                    '    y = self.k(x, y, attrs={"arg_directions": [pl.adir.input, pl.adir.output_existing]})\nreturn y')
    with pytest.raises(CodegenError, match="no rule for an initial value 1.0 of a FP16 tensor"):
        generate_orchestration(program)


def test_a_trivial_carry_must_yield_its_buffer() -> None:
    program = _orch(
        'with pl.scope():\n'
        '    for i, (acc,) in pl.range(2, init_values=(x,), attrs={"iter_arg_rebind_0": False}):\n'
        '        with pl.scope():\n'
        '            y = self.k(acc, y, attrs={"arg_directions": [pl.adir.input, pl.adir.inout]})\n'
        '        r = pl.yield_(y)\n'
        'return y')
    with pytest.raises(CodegenError, match="trivial loop carry 'ext_x' that yields 'ext_y'"):
        generate_orchestration(program)


def test_a_rebind_carry_is_declared_before_the_loop_and_assigned_at_its_end() -> None:
    program = _orch(
        'with pl.scope():\n'
        '    for i, (acc,) in pl.range(2, init_values=(x,), attrs={"iter_arg_rebind_0": True}):\n'
        '        with pl.scope():\n'
        '            y = self.k(acc, y, attrs={"arg_directions": [pl.adir.input, pl.adir.inout]})\n'
        '        r = pl.yield_(y)\n'
        'return y')
    text = generate_orchestration(program)["orchestration/main.cpp"]
    assert "        ChipTensor acc = ext_x;\n        for (int64_t i = 0; i < 2; i += 1) {\n" in text
    assert "                rt_submit_aiv_task(0, params_t0);\n                acc = ext_y;\n            }\n" in text


def test_a_descending_loop_compares_with_greater_than() -> None:
    program = _orch(
        'with pl.scope():\n'
        '    for i in pl.range(6, 0, -2):\n'
        '        with pl.scope():\n'
        '            y = self.k(x, y, attrs={"arg_directions": [pl.adir.input, pl.adir.inout]})\n'
        'return y')
    assert "for (int64_t i = 6; i > 0; i += -2) {" in generate_orchestration(program)["orchestration/main.cpp"]


def test_launch_spec_spelling_follows_the_platform() -> None:
    program = _orch('with pl.scope():\n    y, t = pl.spmd_submit(self.k, x, y, core_num=4, allow_early_resolve=True, '
                    'attrs={"arg_directions": [pl.adir.input, pl.adir.output_existing]})\nreturn y')
    a2a3 = generate_orchestration(program, platform_for(BackendType.Ascend910B))["orchestration/main.cpp"]
    a5 = generate_orchestration(program, platform_for(BackendType.Ascend950))["orchestration/main.cpp"]
    assert ("        params_t0.launch_spec.set_block_num(4);\n        params_t0.set_allow_early_resolve(true);\n"
            "        TaskOutputTensors task_0_outs = rt_submit_aiv_task(0, params_t0);\n") in a2a3
    assert "params_t0.launch_spec.set_core_num(4);" in a5 and "set_block_num" not in a5


def test_a_carried_task_id_dependency_is_guarded() -> None:
    program = _orch(
        'with pl.manual_scope():\n'
        '    t0: pl.Scalar[pl.TASK_ID] = pl.system.task_invalid()\n'
        '    for i, (prev,) in pl.range(2, init_values=(t0,), attrs={"iter_arg_rebind_0": True}):\n'
        '        y, t = pl.submit(self.k, x, y, deps=[prev], attrs={"arg_directions": [pl.adir.input, pl.adir.inout]})\n'
        '        last = pl.yield_(t)\n'
        'return y')
    text = generate_orchestration(program)["orchestration/main.cpp"]
    assert "PTO2TaskId t0 = PTO2TaskId::invalid();\n" in text
    assert "PTO2TaskId prev = t0;\n" in text
    assert "if (prev.is_valid()) params_t0_deps[params_t0_deps_count++] = prev;\n" in text
    assert "PTO2TaskId t = task_0_outs.task_id();\n" in text and "prev = t;\n" in text


def test_the_emitter_reports_its_coverage() -> None:
    found = cov.coverage(ORCHESTRATION, cov.load_emitter(ORCHESTRATION))
    assert found.emitter == "OrchestrationEmitter"
    assert cov.load_emitter(ORCHESTRATION) is OrchestrationEmitter
    assert {"ForStmt", "IfStmt", "RuntimeScopeStmt", "Submit", "Call"}.isdisjoint(found.missing_nodes)
    assert {"tensor.create", "tensor.slice", "tensor.read", "tensor.dim"}.isdisjoint(found.missing_ops)


def test_a_while_loop_declares_its_carries() -> None:
    program = _orch(
        'with pl.scope():\n'
        '    n: pl.Scalar[pl.INDEX] = 0\n'
        '    for (m,) in pl.while_(init_values=(n,)):\n'
        '        pl.cond(m < 3)\n'
        '        with pl.scope():\n'
        '            y = self.k(x, y, attrs={"arg_directions": [pl.adir.input, pl.adir.inout]})\n'
        '        m_1: pl.Scalar[pl.INDEX] = m + 1\n'
        '        r = pl.yield_(m_1)\n'
        'return y')
    text = generate_orchestration(program)["orchestration/main.cpp"]
    assert "        int64_t m = n;\n        while (m < 3) {\n            PTO2_SCOPE() {\n" in text
    assert "            int64_t m_1 = m + 1;\n            m = m_1;\n        }\n" in text


def _scalar_task(arg: str, param: str = "int") -> ir.Program:
    src = (
        "import pypto.language as pl\n\n"
        "@pl.program\n"
        "class P:\n"
        "    @pl.function(type=pl.FunctionType.AIV)\n"
        "    def k(self, y: pl.Out[pl.Tensor[[64, 64], pl.FP32]], s: pl.Scalar[pl.INDEX]) -> pl.Tensor[[64, 64], pl.FP32]:\n"
        "        return y\n\n"
        "    @pl.function(type=pl.FunctionType.Orchestration, auto_scope=False)\n"
        f"    def main(self, y: pl.Out[pl.Tensor[[64, 64], pl.FP32]], {param}: pl.Scalar[pl.INDEX]) -> pl.Tensor[[64, 64], pl.FP32]:\n"
        "        with pl.scope():\n"
        f"            y = self.k(y, {arg}, attrs={{\"arg_directions\": [pl.adir.output_existing, pl.adir.scalar]}})\n"
        "        return y\n"
    )
    return pl.parse_program(src)


def test_floor_division_and_modulo_floor_negative_operands() -> None:
    div = generate_orchestration(_scalar_task("int // 3"))["orchestration/main.cpp"]
    assert "params_t0.add_scalar((int_ / 3 - (((int_ % 3) != 0) && ((int_ < 0) != (3 < 0)))));" in div
    mod = generate_orchestration(_scalar_task("int % 3"))["orchestration/main.cpp"]
    assert "params_t0.add_scalar((((int_ % 3) + 3) % 3));" in mod


def test_names_that_are_cpp_keywords_are_suffixed() -> None:
    text = generate_orchestration(_scalar_task("int"))["orchestration/main.cpp"]
    assert "params_t0.add_scalar(int_);" in text
    assert " int = " not in text


@pytest.mark.parametrize("name", ["size_t", "ChipTensor", "stdin"])
def test_names_the_target_headers_declare_are_suffixed(name: str) -> None:
    # A <stddef.h> typedef, a type of simpler's tensor.h and a <stdio.h> macro do not build as names.
    text = generate_orchestration(_scalar_task(name, param=name))["orchestration/main.cpp"]
    assert f"params_t0.add_scalar({name}_);" in text


def _sliced_task(parent: str, window: str) -> ir.Program:
    return _orch(
        f"with pl.scope():\n    v = pl.slice(x, {window})\n"
        '    y = self.k(v, y, attrs={"arg_directions": [pl.adir.input, pl.adir.output_existing]})\nreturn y',
        params=f"self, x: pl.Tensor[{parent}, pl.FP32], y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]")


def test_a_block_of_whole_rows_is_passed_to_a_kernel_as_a_view() -> None:
    text = generate_orchestration(_sliced_task("[128, 64]", "[64, 64], [64, 0]"))["orchestration/main.cpp"]
    assert "ChipTensor v = ext_x.view(v_shapes, v_offsets);" in text
    assert "params_t0.add_input(v);" in text


def test_a_view_narrower_than_its_parent_rows_is_not_passed_to_a_kernel() -> None:
    # The kernel reads its tensor packed from the view's start: a column window would read the wrong elements.
    with pytest.raises(CodegenError, match="^no rule for passing the strided view 'v' to kernel 'k' "
                                           "in orchestration") as err:
        generate_orchestration(_sliced_task("[64, 128]", "[64, 64], [0, 64]"))
    assert err.value.span.begin_line == 13  # the call
    assert "the whole tensor and the window's offsets as scalars" in str(err.value)
