"""The seed's dependency forms in orchestration C++ (spec/codegen.md §2.7): explicit edges, manual
scopes, manual_dep tensors, task_dummy fan-ins, TaskId arrays and the pl.parallel phase fence.

The examples/deps_*.py programs (run on a2a3sim by tests/sim/test_examples.py) are snapshotted whole;
the tests here check the lines that carry each dependency."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

import pypto.language as pl
from pypto import ir

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
DEPS_EXAMPLES = ["manual_deps", "deps_explicit_edge", "deps_at_blocks", "deps_manual_tensor", "deps_fan_in",
                 "deps_task_array", "deps_phase_fence", "deps_no_dep_dump", "deps_while_if"]

KERNEL = """
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.FP32],
          out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t: pl.Tile[[16, 64], pl.FP32] = pl.load(x, [0, 0], [16, 64])
        d: pl.Tile[[16, 64], pl.FP32] = pl.add(t, 1.0)
        out = pl.store(d, [0, 0], out)
        return out
"""


def orchestration(program: ir.Program, tmp_path: Path) -> str:
    ir.compile(program, output_dir=tmp_path / "out", skip_ptoas=True)
    return (tmp_path / "out" / "orchestration" / "main.cpp").read_text()


def example(name: str, tmp_path: Path) -> str:
    return orchestration(pl.loads_program(str(EXAMPLES / f"{name}.py")), tmp_path)


def program(body: str) -> ir.Program:
    """The kernel ``k`` and an orchestration ``main(x, out)`` running ``body``."""
    source = f"""
import pypto.language as pl


@pl.program
class P:{KERNEL}
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 64], pl.FP32],
             out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
{textwrap.indent(textwrap.dedent(body).strip(), " " * 8)}
        return out
"""
    return pl.parse(source)


def lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines()]


@pytest.mark.parametrize("name", DEPS_EXAMPLES)
def test_example_orchestration(name: str, tmp_path: Path, snapshot) -> None:
    assert example(name, tmp_path) == snapshot


SCOPES = {
    "manual_deps": "PTO2_SCOPE(PTO2ScopeMode::MANUAL) {",
    "deps_explicit_edge": "PTO2_SCOPE() {",
    "deps_at_blocks": "PTO2_SCOPE(PTO2ScopeMode::MANUAL) {",
    "deps_manual_tensor": "PTO2_SCOPE() {",
    "deps_fan_in": "PTO2_SCOPE(PTO2ScopeMode::MANUAL) {",
}


@pytest.mark.parametrize("name", sorted(SCOPES))
def test_the_consumer_waits_on_its_producer_in_the_scope_mode_the_seed_says(name: str, tmp_path: Path) -> None:
    text = lines(example(name, tmp_path))
    assert [line for line in text if line.startswith("PTO2_SCOPE")] == [SCOPES[name]]
    [edge] = [line for line in text if line.startswith("params_t") and "_deps[params_t" in line]
    producer = {"manual_deps": "stage1_tid", "deps_explicit_edge": "prep_tid", "deps_at_blocks": "tid_a",
                "deps_manual_tensor": "prod_tid", "deps_fan_in": "barrier"}[name]
    assert edge.endswith(f"_deps_count++] = {producer};")  # a fresh TaskId: no is_valid() guard


def test_manual_dep_tensor_is_created_with_creator_only_tracking(tmp_path: Path) -> None:
    text = lines(example("deps_manual_tensor", tmp_path))
    assert "TensorCreateInfo scratch__ssa_v0_ci(scratch__ssa_v0_ci_shapes, 2, DataType::FLOAT32, true);" in text


def test_fan_in_joins_both_producers_in_one_dummy_task(tmp_path: Path) -> None:
    text = example("deps_fan_in", tmp_path)
    assert textwrap.dedent("""\
        // Dummy task 0: dependency-only fan-in
        CoreTaskArgs params_dummy_0;
        PTO2TaskId params_dummy_0_deps[2];
        uint32_t params_dummy_0_deps_count = 0;
        params_dummy_0_deps[params_dummy_0_deps_count++] = top;
        params_dummy_0_deps[params_dummy_0_deps_count++] = bottom;
        params_dummy_0.set_dependencies(params_dummy_0_deps, params_dummy_0_deps_count);
        TaskOutputTensors dummy_0_outs = rt_submit_dummy_task(params_dummy_0);
        PTO2TaskId barrier = dummy_0_outs.task_id();
    """) in textwrap.dedent("\n".join(line[8:] for line in text.splitlines())) + "\n"
    assert "params_t2.set_allow_early_resolve(true);" in lines(text)


def test_task_id_array_slots_and_a_whole_array_dep(tmp_path: Path) -> None:
    text = lines(example("deps_task_array", tmp_path))
    t = "tids__ssa_v0"
    assert f"PTO2TaskId {t}[4];" in text
    assert f"for (uint32_t {t}_k = 0; {t}_k < 4; ++{t}_k) {t}[{t}_k] = PTO2TaskId::invalid();" in text
    assert f"{t}[i] = t;" in text
    # the 4 consumers wait on one barrier over the 4 slots (4 + 4 edges, not 16)
    assert ("for (uint32_t params_phase_fence_barrier_0_deps_k = 0; params_phase_fence_barrier_0_deps_k < 4; "
            f"++params_phase_fence_barrier_0_deps_k) if ({t}[params_phase_fence_barrier_0_deps_k].is_valid()) "
            "params_phase_fence_barrier_0_deps[params_phase_fence_barrier_0_deps_count++] = "
            f"{t}[params_phase_fence_barrier_0_deps_k];") in text
    assert ("if (phase_fence_barrier_0.is_valid()) "
            "params_t1_deps[params_t1_deps_count++] = phase_fence_barrier_0;") in text
    # a single slot read
    assert f"if ({t}[3].is_valid()) params_t2_deps[params_t2_deps_count++] = {t}[3];" in text


def test_phase_fence_branches_read_the_previous_phase_and_write_their_own_slot(tmp_path: Path) -> None:
    text = lines(example("deps_phase_fence", tmp_path))
    prev, phase = "prev_tid__rv_v5", "prev_tid__rv_v4"  # the carry across phases, this phase's slots
    assert f"PTO2TaskId {prev}[4];" in text
    assert f"PTO2TaskId {phase}[4];" in text
    # the barrier waits on the 4 tasks of the previous phase; each branch waits on the barrier
    assert (f"for (uint32_t params_phase_fence_barrier_0_deps_k = 0; params_phase_fence_barrier_0_deps_k < 4; "
            f"++params_phase_fence_barrier_0_deps_k) if ({prev}[params_phase_fence_barrier_0_deps_k].is_valid()) "
            f"params_phase_fence_barrier_0_deps[params_phase_fence_barrier_0_deps_count++] = "
            f"{prev}[params_phase_fence_barrier_0_deps_k];") in text
    assert "if (params_phase_fence_barrier_0_deps_count > 0) {" in text  # none in the first phase
    assert ("if (phase_fence_barrier_0.is_valid()) "
            "params_t0_deps[params_t0_deps_count++] = phase_fence_barrier_0;") in text
    assert f"{phase}[branch] = prev_tid__ssa_v3;" in text
    assert f"for (uint32_t {prev}_k = 0; {prev}_k < 4; ++{prev}_k) {prev}[{prev}_k] = {phase}[{prev}_k];" in text
    # the last task waits for all 4 tasks of the last phase
    assert (f"for (uint32_t params_t1_deps_k = 0; params_t1_deps_k < 4; ++params_t1_deps_k) if "
            f"({prev}[params_t1_deps_k].is_valid()) params_t1_deps[params_t1_deps_count++] = "
            f"{prev}[params_t1_deps_k];") in text


def test_task_ids_through_a_while_loop_and_out_of_an_if(tmp_path: Path) -> None:
    text = lines(example("deps_while_if", tmp_path))
    # the while carries the last TaskId (a rebind) and updates the array in place, bounds-checked
    assert "PTO2TaskId prev = PTO2TaskId::invalid();" in text
    assert "if (prev.is_valid()) params_t0_deps[params_t0_deps_count++] = prev;" in text
    assert "PTO2TaskId prev_next = t;" in text
    assert "if ((int64_t)(i) < 0 || (int64_t)(i) >= 4) {" in text
    assert "tids0[i] = t;" in text
    # the if yields one of two TaskIds, and writes the array in its branch only
    assert text[text.index("PTO2TaskId fill;"):][:2] == ["PTO2TaskId fill;", "if (i < 4) {"]
    assert "tids0[3] = t3;" in text
    assert text[text.index("fill = t3;"):][:4] == ["fill = t3;", "} else {", "fill = prev;", "}"]
    assert "if (fill.is_valid()) params_t3_deps[params_t3_deps_count++] = fill;" in text
    # the consumers wait on the whole array after both
    assert ("for (uint32_t params_phase_fence_barrier_0_deps_k = 0; params_phase_fence_barrier_0_deps_k < 4; "
            "++params_phase_fence_barrier_0_deps_k) if (tids0[params_phase_fence_barrier_0_deps_k].is_valid()) "
            "params_phase_fence_barrier_0_deps[params_phase_fence_barrier_0_deps_count++] = "
            "tids0[params_phase_fence_barrier_0_deps_k];") in text


CONSTRUCTS = {
    "no_dep": ("out = self.k(pl.no_dep(x), out)", ["params_t0.add_no_dep(ext_x);"]),
    "dump_tag": ("pl.dump_tag(x)\nout = self.k(x, out)", ["params_t0.add_input(ext_x);", "params_t0.dump(ext_x);"]),
    "dumps": ("out, _ = pl.submit(self.k, x, out, dumps=[out])", ["params_t0.dump(ext_out);"]),
    "none_dep": ("out, _ = pl.submit(self.k, x, out, deps=[None])", ["TaskOutputTensors task_0_outs = "
                                                                     "rt_submit_aiv_task(0, params_t0);"]),
    "early_resolve": ("out, _ = pl.submit(self.k, x, out, allow_early_resolve=True)",
                      ["params_t0.set_allow_early_resolve(true);"]),
    "spmd_submit": ("n: pl.Scalar[pl.INDEX] = pl.tensor.dim(x, 0) // 8\n"
                    "out, _ = pl.spmd_submit(self.k, x, out, core_num=n, sync_start=True)",
                    ["params_t0.launch_spec.set_block_num(n);", "params_t0.launch_spec.set_require_sync_start(true);"]),
    "integer_array": ("rows = pl.array.create(2, pl.INT32)\nfor i in pl.range(2):\n    rows[i] = i * 3\n"
                      "r: pl.Scalar[pl.INT32] = rows[1]\nif r > 2:\n    out = self.k(x, out)\nelse:\n"
                      "    out = self.k(out, out)",
                      ["int32_t rows__ssa_v0[2] = {0};", "rows__ssa_v0[i] = i * 3;", "int32_t r = rows__ssa_v0[1];"]),
    "fan_in_of_a_parallel_carry": ("with pl.manual_scope():\n    prev = None\n    for b in pl.parallel(4):\n"
                                   "        out, prev = pl.submit(self.k, x, out, deps=[prev])\n"
                                   "    bar = pl.system.task_dummy(deps=[prev])\n"
                                   "    out, _ = pl.submit(self.k, out, out, deps=[bar])",
                                   ["PTO2TaskId prev__rv_v3[4];", "prev__rv_v3[b] = prev__ssa_v2;",
                                    "PTO2TaskId params_dummy_0_deps[4];", "PTO2TaskId bar = PTO2TaskId::invalid();",
                                    "if (params_dummy_0_deps_count > 0) {"]),
    "dep_free_dummy": ("with pl.manual_scope():\n    bar = pl.system.task_dummy(deps=[None])\n"
                          "    out, _ = pl.submit(self.k, x, out, deps=[bar])",
                          ["TaskOutputTensors dummy_0_outs = rt_submit_dummy_task(params_dummy_0);",
                           "PTO2TaskId bar = dummy_0_outs.task_id();"]),
}


@pytest.mark.parametrize("name", sorted(CONSTRUCTS))
def test_each_submit_flag_reaches_its_runtime_call(name: str, tmp_path: Path) -> None:
    body, expected = CONSTRUCTS[name]
    text = lines(orchestration(program(body), tmp_path))
    for line in expected:
        assert line in text
    if name == "none_dep":
        assert not any("set_dependencies" in line for line in text)


def test_task_ids_leaving_a_manual_scope_are_declared_in_front_of_it(tmp_path: Path) -> None:
    """The manual scope is a C++ block: a TaskId its body defines (a submit's, a loop's, an if's) that
    a task after it waits for is declared before it (the C++ did not build: 'a' was not declared)."""
    text = lines(orchestration(program("""
        with pl.manual_scope():
            out, a = pl.submit(self.k, x, out)
            prev = a
            for i in pl.range(2):
                out, prev = pl.submit(self.k, x, out, deps=[prev])
        out, _ = pl.submit(self.k, x, out, deps=[a, prev])
    """), tmp_path))
    scope = text.index("PTO2_SCOPE(PTO2ScopeMode::MANUAL) {")
    assert text[scope - 2:scope] == ["PTO2TaskId a = PTO2TaskId::invalid();",
                                     "PTO2TaskId prev__rv_v3 = PTO2TaskId::invalid();"]
    assert "a = task_0_outs.task_id();" in text and "prev__rv_v3 = prev__iter_v1;" in text
    copy = text.index("prev__rv_v3 = prev__iter_v1;")
    assert text[copy + 1] == "}" and copy < text.index("// Task 2: k")  # at the scope's end


def test_views_leaving_a_manual_scope_are_declared_in_front_of_it(tmp_path: Path) -> None:
    """A view (slice, reshape, transpose) made in a manual scope and passed to a task after it is declared
    before the scope and assigned in it (the C++ did not build: 'v' was not declared after the scope)."""
    text = lines(orchestration(program("""
        with pl.manual_scope():
            v = pl.slice(x, [16, 64], [0, 0])
            r = pl.reshape(v, [16, 64])
            w = pl.transpose(r, 0, 1)
            out, t = pl.submit(self.k, x, out)
        out, _ = pl.submit(self.k, v, out, deps=[t])
        out, _ = pl.submit(self.k, r, out, deps=[t])
        out, _ = pl.submit(self.k, pl.transpose(w, 0, 1), out, deps=[t])
    """), tmp_path))
    scope = text.index("PTO2_SCOPE(PTO2ScopeMode::MANUAL) {")
    assert text[scope - 4:scope + 8] == [
        "ChipTensor v;",
        "ChipTensor r;",
        "ChipTensor w;",
        "PTO2TaskId t = PTO2TaskId::invalid();",
        "PTO2_SCOPE(PTO2ScopeMode::MANUAL) {",
        "uint32_t v_offsets[2] = {0, 0};",
        "uint32_t v_shapes[2] = {16, 64};",
        "v = ext_x.view(v_shapes, v_offsets);",
        "uint32_t r_shapes[2] = {16, 64};",
        "r = v.reshape(r_shapes, 2);",
        "w = r.transpose(0, 1);",
        "",
    ]
    assert "params_t1.add_input(v);" in text[text.index("// Task 1: k"):]


def test_a_task_id_array_leaving_a_manual_scope_is_refused(tmp_path: Path) -> None:
    from pypto.codegen.errors import CodegenError

    with pytest.raises(CodegenError) as info:
        orchestration(program("""
            with pl.manual_scope():
                prev = None
                for i in pl.parallel(2):
                    out, prev = pl.submit(self.k, x, out, deps=[prev])
            out, _ = pl.submit(self.k, x, out, deps=[prev])
        """), tmp_path)
    assert info.value.message == "no rule for the TaskId array 'prev' leaving a manual scope in orchestration"
