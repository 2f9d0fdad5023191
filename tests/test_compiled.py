"""CompiledProgram: the two call forms, argument checks before anything runs, the interpreter on the
same call, and what the summary reads from the final IR. Simulator runs are in tests/sim/."""

from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import pytest

import pypto.language as pl
from pypto import ir
from pypto.backend import BackendType
from pypto.compiled import CompiledProgram, TaskCount, dynamic_dims, parameters
from pypto.ir import DataType
from pypto.ir.enums import MemorySpace
from pypto.runtime import ScalarParam, SimulatorArgumentError, SimulatorError, TensorParam

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def example(name: str) -> ir.Program:
    return pl.loads_program(str(EXAMPLES / f"{name}.py"))


def compiled_of(program: ir.Program, **changes: object) -> CompiledProgram:
    """A CompiledProgram over ``program`` as it is (no pipeline run), with ``changes`` to its fields."""
    fields: dict = dict(
        program=program,
        final_program=program,
        output_dir=Path("/nonexistent"),
        backend_type=BackendType.Ascend910B,
        platform="a2a3sim",
        files=("kernel_config.py",),
        final_dialect="runtime",
    )
    fields.update(changes)
    return CompiledProgram(**fields)


def rand(*shape: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def test_parameters_follow_the_signature() -> None:
    entry = example("row_blocks").get_function("block_add")
    assert parameters(entry) == [
        TensorParam("a", DataType.FP32, (128, 128)),
        TensorParam("b", DataType.FP32, (128, 128)),
        TensorParam("c", DataType.FP32, (128, 128)),
        ScalarParam("row", DataType.INDEX),
    ]


def test_dynamic_dimensions_are_read_off_the_arrays_of_a_call() -> None:
    entry = example("tensor_dyn_rows").get_function("main")
    x = rand(80, 64)
    assert dynamic_dims(entry, [x]) == {"N": 80}  # the short form: out is left out
    assert dynamic_dims(entry, [x, np.zeros((80, 64), np.float32)]) == {"N": 80}
    assert parameters(entry, {"N": 80}) == [
        TensorParam("x", DataType.FP32, (80, 64)),
        TensorParam("out", DataType.FP32, (80, 64)),
    ]
    with pytest.raises(SimulatorArgumentError, match="has the dynamic dimension N, which no argument gives"):
        parameters(entry)


def test_a_dynamic_call_allocates_outputs_of_the_given_rows() -> None:
    compiled = compiled_of(example("tensor_dyn_rows"))
    x = rand(80, 64)
    np.testing.assert_allclose(compiled.interpret(x), np.exp(x) + x, rtol=1e-6)
    with pytest.raises(SimulatorArgumentError, match=r"out must have shape \[80, 64\], got \[96, 64\]"):
        compiled.interpret(x, np.zeros((96, 64), np.float32))


def test_interpret_in_place_writes_the_outputs() -> None:
    compiled = compiled_of(example("tile_add"))
    a, b = rand(128, 128), rand(128, 128, seed=1)
    out = np.full((128, 128), np.nan, np.float32)
    a0 = a.copy()
    assert compiled.interpret(a, b, out) is None
    np.testing.assert_array_equal(out, a + b)
    np.testing.assert_array_equal(a, a0)


def test_interpret_without_outputs_allocates_and_returns_them() -> None:
    compiled = compiled_of(example("scaled_sum"))
    x = rand(64, 64)
    out = compiled.interpret(x, 0.5)
    assert out.shape == (16, 64) and out.dtype == np.float32
    np.testing.assert_allclose(out, 0.5 * x.reshape(4, 16, 64).sum(0), rtol=1e-6)


def test_interpret_of_a_scalar_program_returns_its_value() -> None:
    compiled = compiled_of(example("loop_sum"))
    assert compiled.interpret(5) == 0 + 2 + 4 - 2


@pytest.mark.parametrize(
    ("make_args", "message"),
    [
        (lambda a, b, c: [a], "'main' takes 3 arguments (a, b, out) or 2 without its outputs (a, b), got 1"),
        (lambda a, b, c: [a, b.astype(np.float16), c], "b must have dtype float32 (fp32), got float16"),
        (lambda a, b, c: [a, b, c[:64]], "out must have shape [128, 128], got [64, 128]"),
        (lambda a, b, c: [a, [[1.0]], c], "b must be an array, got list"),
    ],
    ids=["count", "dtype", "shape", "not-an-array"],
)
def test_bad_arguments_are_errors_before_anything_runs(make_args, message: str) -> None:
    compiled = compiled_of(example("tile_add"))
    a, b = rand(128, 128), rand(128, 128, seed=1)
    c = np.zeros((128, 128), np.float32)
    with pytest.raises(SimulatorArgumentError) as info:
        compiled.interpret(*make_args(a, b, c))
    assert info.value.message == message
    assert not c.any()


def test_a_scalar_argument_is_checked_against_its_dtype() -> None:
    compiled = compiled_of(example("scaled_sum"))
    with pytest.raises(SimulatorArgumentError, match="alpha must be a scalar of fp32, got ndarray"):
        compiled.interpret(rand(64, 64), np.ones(1, np.float32))


def test_a_read_only_output_is_refused() -> None:
    compiled = compiled_of(example("tile_add"))
    c = np.zeros((128, 128), np.float32)
    c.flags.writeable = False
    with pytest.raises(SimulatorArgumentError, match="out is written by the program but the array is read-only"):
        compiled.interpret(rand(128, 128), rand(128, 128), c)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"platform": "a5sim"}, "platform 'a5sim' cannot run here; only a2a3sim runs here"),
        ({"files": (), "final_dialect": "ssa", "generated": False}, "the pipeline ended in dialect 'ssa', so no code was generated"),
        ({"skip_ptoas": True}, "the program was compiled with skip_ptoas=True: it has no kernel C++ to run"),
    ],
)
def test_a_call_that_cannot_run_here_says_why(changes: dict, message: str) -> None:
    compiled = compiled_of(example("tile_add"), **changes)
    c = np.zeros((128, 128), np.float32)
    with pytest.raises(SimulatorError) as info:
        compiled(rand(128, 128), rand(128, 128), c)
    assert info.value.message == message
    assert not c.any()


def test_a_program_without_orchestration_cannot_run_on_the_simulator() -> None:
    with pytest.raises(SimulatorError, match="program 'LoopSum' has no orchestration function; the simulator runs exactly one"):
        compiled_of(example("loop_sum"))(5)


def test_functions_by_kind_and_tasks() -> None:
    compiled = compiled_of(example("chained"))
    assert compiled.functions_by_kind() == {"InCore": ["half_plus_one", "twice"], "Orchestration": ["main"]}
    assert compiled.tasks() == TaskCount(sites=2, per_run=2)
    assert compiled_of(example("row_blocks")).tasks() == TaskCount(sites=1, per_run=2)


def test_a_loop_with_a_dynamic_bound_has_no_task_count_per_run() -> None:
    program = pl.parse(
        textwrap.dedent(
            """
            import pypto.language as pl

            @pl.program
            class Dyn:
                @pl.function(type=pl.FunctionType.InCore)
                def k(self, x: pl.Tensor[[16], pl.FP32], y: pl.Out[pl.Tensor[[16], pl.FP32]]) -> pl.Tensor[[16], pl.FP32]:
                    t: pl.Tile[[16], pl.FP32] = pl.load(x, [0], [16])
                    y = pl.store(t, [0], y)
                    return y

                @pl.function(type=pl.FunctionType.Orchestration)
                def main(self, x: pl.Tensor[[16], pl.FP32], n: pl.Scalar[pl.INDEX], y: pl.Out[pl.Tensor[[16], pl.FP32]]) -> pl.Tensor[[16], pl.FP32]:
                    for i in pl.range(n):
                        y = self.k(x, y)
                    y = self.k(x, y)
                    return y
            """
        )
    )
    assert compiled_of(program).tasks() == TaskCount(sites=2, per_run=None)


def test_peak_memory_is_the_highest_planned_byte_per_space() -> None:
    program = pl.parse(
        textwrap.dedent(
            """
            import pypto.language as pl

            @pl.program
            class Planned:
                @pl.function(type=pl.FunctionType.AIV)
                def k(self, x: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
                    a: pl.Tile[[16, 16], pl.FP32, pl.MemRef("mem_vec_0", 0, 1024), pl.Mem.Vec] = pl.load(x, [0, 0], [16, 16])
                    b: pl.Tile[[16, 16], pl.FP32, pl.MemRef("mem_vec_1", 1024, 1024), pl.Mem.Vec] = pl.add(a, a)
                    c: pl.Tile[[16, 16], pl.FP32, pl.MemRef("mem_vec_2", 0, 1024), pl.Mem.Vec] = pl.add(b, b)
                    out = pl.store(c, [0, 0], out)
                    return out
            """
        )
    )
    assert compiled_of(program).peak_memory() == {MemorySpace.Vec: 2048}
    assert compiled_of(example("tile_add")).peak_memory() == {}  # nothing planned


def test_torch_tensors_are_accepted_and_returned() -> None:
    torch = pytest.importorskip("torch", reason="torch is optional")
    compiled = compiled_of(example("tile_add"))
    a, b = torch.randn(128, 128), torch.randn(128, 128)
    out = compiled.interpret(a, b)
    assert isinstance(out, torch.Tensor)
    assert torch.equal(out, a + b)
