"""CompiledProgram's established surface without the simulator: the path protocol, metadata, arguments
by name, torch bfloat16 tensors, ``config=`` refusals; ``ir.compile(memory_planner=)``; ``run()`` with
``codegen_only``; the runner's spec classes and log helpers."""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import warnings
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import pypto.language as pl
from pypto import ir
from pypto.compiled import CompiledProgram
from pypto.compile_options import MemoryPlanner, UnsupportedOptionError
from pypto.runtime import (
    IgnoredOptionWarning,
    RunConfig,
    RunResult,
    ScalarSpec,
    SimulatorArgumentError,
    SimulatorError,
    TensorSpec,
    configure_log,
    execute_compiled,
    log_level,
    run,
)
from pypto.runtime import config as config_module
from pypto.runtime import runner as runner_module

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def example(name: str) -> ir.Program:
    return pl.loads_program(str(EXAMPLES / f"{name}.py"))


@pytest.fixture(scope="module")
def tile_add(tmp_path_factory: pytest.TempPathFactory) -> ir.CompiledProgram:
    return ir.compile(example("tile_add"), output_dir=tmp_path_factory.mktemp("c") / "tile_add", dump_passes=False)


def test_the_class_is_reached_through_pypto_ir() -> None:
    assert ir.CompiledProgram is CompiledProgram
    assert runner_module.RunConfig is RunConfig


def test_a_compiled_program_is_its_folder(tile_add: ir.CompiledProgram) -> None:
    folder = tile_add.output_dir
    assert os.fspath(tile_add) == str(tile_add) == str(folder)
    assert repr(tile_add) == f"CompiledProgram({folder})"
    assert tile_add == str(folder) and tile_add == folder and tile_add != "elsewhere"
    assert hash(tile_add) == hash(folder)
    assert (Path(tile_add) / "kernel_config.py").is_file()


def test_the_metadata_of_the_orchestration(tile_add: ir.CompiledProgram) -> None:
    assert tile_add.param_names == ["a", "b", "out"]
    assert tile_add.output_indices == [2]
    assert tile_add.has_return is True
    assert tile_add.orchestration_names == ["main"]
    assert tile_add.runtime_name == "tensormap_and_ringbuffer"
    assert set(tile_add.runtime_config) == {"runtime", "aicpu_thread_num"}


def test_arguments_by_name_in_either_call_form(tile_add: ir.CompiledProgram) -> None:
    rng = np.random.default_rng(0)
    a, b = rng.random((128, 128), np.float32), rng.random((128, 128), np.float32)
    np.testing.assert_array_equal(tile_add.interpret(b=b, a=a), a + b)
    out = np.zeros((128, 128), np.float32)
    assert tile_add.interpret(a, out=out, b=b) is None
    np.testing.assert_array_equal(out, a + b)


@pytest.mark.parametrize(
    ("args", "kwargs", "message"),
    [
        ((), {"a": 1, "c": 2}, "'main' has no parameter named 'c'"),
        ((np.zeros(1),), {"a": 1}, "'main' got argument 'a' both by position and by name"),
        ((), {"a": 1}, "'main' is missing the argument(s) 'b'"),
    ],
    ids=["unknown", "twice", "missing"],
)
def test_bad_names_are_argument_errors(tile_add: ir.CompiledProgram, args: tuple, kwargs: dict, message: str) -> None:
    with pytest.raises(SimulatorArgumentError) as info:
        tile_add.interpret(*args, **kwargs)
    assert info.value.message == message


BF16_DOUBLE = pl.parse(
    """
import pypto.language as pl

@pl.program
class Bf16Double:
    @pl.function
    def main(
        self, a: pl.Tensor[[16, 16], pl.BF16], out: pl.Out[pl.Tensor[[16, 16], pl.BF16]]
    ) -> pl.Tensor[[16, 16], pl.BF16]:
        with pl.at(level=pl.Level.CORE_GROUP):
            out[:] = pl.add(a, a)
        return out
"""
)


def test_torch_bfloat16_tensors_are_taken_and_returned() -> None:
    torch = pytest.importorskip("torch")
    compiled = ir.compile(BF16_DOUBLE, dump_passes=False)
    a = torch.linspace(-2, 2, 256, dtype=torch.bfloat16).reshape(16, 16)
    out = compiled.interpret(a)
    assert out.dtype == torch.bfloat16 and torch.equal(out, a + a)
    into = torch.zeros(16, 16, dtype=torch.bfloat16)
    compiled.interpret(a, into)
    assert torch.equal(into, a + a)
    assert np.asarray(compiled.interpret(a.float().numpy().astype(ml_dtypes.bfloat16))).dtype == ml_dtypes.bfloat16


def test_a_config_for_hardware_is_refused_before_anything_runs(tile_add: ir.CompiledProgram) -> None:
    out = np.zeros((128, 128), np.float32)
    with pytest.raises(SimulatorError) as info:
        tile_add(out, out, out, config=RunConfig(platform="a2a3"))
    assert info.value.message == "platform 'a2a3' cannot run here; only a2a3sim runs here"


def test_compile_takes_the_established_planner_names(tmp_path: Path) -> None:
    program = example("tile_add")
    for planner in (None, MemoryPlanner.PYPTO, "PYPTO"):
        ir.compile(program, output_dir=tmp_path / str(planner), dump_passes=False, memory_planner=planner)
    with pytest.raises(UnsupportedOptionError, match="memory_planner=DSA_RP hands memory planning to the ptoas"):
        ir.compile(program, output_dir=tmp_path / "dsa", memory_planner=MemoryPlanner.DSA_RP)
    with pytest.raises(UnsupportedOptionError, match=r"unknown memory_planner 'greedy' \(use one of PYPTO, DSA_RP"):
        ir.compile(program, output_dir=tmp_path / "greedy", memory_planner="greedy")


def test_run_with_codegen_only_compiles_into_the_kernels_dir(tmp_path: Path) -> None:
    a = np.zeros((128, 128), np.float32)
    config = RunConfig(platform="a5", codegen_only=True, save_kernels_dir=str(tmp_path / "k"), dump_passes=True)
    compiled = run(example("tile_add"), a, a, a, config=config)
    assert compiled.output_dir == tmp_path / "k" and compiled.platform == "a5"
    assert (tmp_path / "k" / "passes_dump").is_dir()
    with pytest.raises(SimulatorError, match="platform 'a5' cannot run here"):
        run(example("tile_add"), a, a, a, config=RunConfig(platform="a5"))
    with pytest.raises(TypeError, match="expected a @pl.program class or an ir.Program, got str"):
        run("tile_add.py")
    with pytest.raises(ValueError, match="distributed_config: multi-chip programs are not supported"):
        run(example("tile_add"), config=RunConfig(distributed_config=object()))


def test_tensor_specs_create_their_tensors() -> None:
    torch = pytest.importorskip("torch")
    assert torch.equal(TensorSpec("a", [2, 3], torch.float32).create_tensor(), torch.zeros(2, 3))
    seven = TensorSpec("a", [2], torch.int32, init_value=7).create_tensor()
    assert torch.equal(seven, torch.full([2], 7, dtype=torch.int32))
    assert TensorSpec("a", [2, 2], torch.float16, init_value=torch.randn).create_tensor().dtype == torch.float16
    assert TensorSpec("a", [3], torch.float32, init_value=lambda: [1, 2, 3]).create_tensor().tolist() == [1.0, 2.0, 3.0]
    assert TensorSpec("a", [1], torch.float16, init_value=torch.ones(1)).create_tensor().dtype == torch.float16
    with pytest.raises(TypeError, match="TensorSpec 'a': unsupported init_value of type str"):
        TensorSpec("a", [1], torch.float32, init_value="x").create_tensor()


def test_scalar_specs_and_run_results() -> None:
    assert ScalarSpec("n", 3).ctype == "int64"
    with pytest.raises(ValueError, match="ctype must be one of int64, int32, uint64, uint32, float, double, got 'i"):
        ScalarSpec("n", 3, ctype="int8")
    assert str(RunResult(True, "tile_add", execution_time=1.5)) == "PASS: tile_add (1.50s)"
    assert str(RunResult(False, "t", error="mismatch")) == "FAIL: t - mismatch"
    assert str(RunResult(True)) == "PASS"


def test_log_level_follows_configure_log() -> None:
    before = logging.getLogger("simpler").level
    try:
        configure_log("debug")
        assert log_level() == logging.DEBUG
        configure_log(logging.ERROR)
        assert log_level() == logging.ERROR
        with pytest.raises(ValueError, match="unknown log level 'loud'"):
            configure_log("loud")
    finally:
        logging.getLogger("simpler").setLevel(before)


def test_a_compile_writes_the_call_signature_and_from_dir_reads_it(tmp_path: Path) -> None:
    compiled = ir.compile(example("tensor_dyn_rows"), output_dir=tmp_path / "dyn", dump_passes=False)
    meta = json.loads((tmp_path / "dyn" / "compiled_meta.json").read_text())
    assert meta == {
        "schema": 1,
        "function": "main",
        "params": [
            {"name": "x", "direction": "In", "shape": [-1, 64], "dtype": "FP32"},
            {"name": "out", "direction": "Out", "shape": [-1, 64], "dtype": "FP32"},
        ],
        "num_return_types": 1,
        "platform": "a2a3sim",
        "backend_type": "Ascend910B",
    }
    loaded = CompiledProgram.from_dir(tmp_path / "dyn")
    assert loaded == compiled and loaded.program is None
    assert (loaded.param_names, loaded.output_indices, loaded.has_return) == (["x", "out"], [1], True)
    assert CompiledProgram.from_dir(tmp_path / "dyn", platform="a2a3").platform == "a2a3"
    with pytest.raises(SimulatorError, match="was loaded with from_dir: it has no program to interpret"):
        loaded.interpret(np.zeros((16, 64), np.float32))


def test_from_dir_needs_a_well_formed_signature(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="compiled_meta.json does not exist"):
        CompiledProgram.from_dir(tmp_path)
    (tmp_path / "compiled_meta.json").write_text('{"params": [{"name": "x"}]}')
    with pytest.raises(ValueError, match="compiled_meta.json is malformed"):
        CompiledProgram.from_dir(tmp_path)


def test_the_call_config_of_a_call(tile_add: ir.CompiledProgram, tmp_path: Path) -> None:
    pytest.importorskip("simpler")
    default_threads = tile_add.runtime_config["aicpu_thread_num"]
    assert tile_add.build_call_config().aicpu_thread_num == default_threads
    assert tile_add.build_call_config(RunConfig(aicpu_thread_num=2)).aicpu_thread_num == 2
    config = tile_add.build_call_config(
        RunConfig(aicpu_thread_num=2, enable_chip_swimlane=True), aicpu_thread_num=3, dfx_dir=tmp_path / "dfx"
    )
    assert (config.aicpu_thread_num, config.enable_chip_swimlane) == (3, 4)
    assert config.output_prefix == str(tmp_path / "dfx") and (tmp_path / "dfx").is_dir()


def test_run_warns_once_about_what_it_cannot_honour(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(config_module, "_warned", set())
    config = RunConfig(compile_profiling=True, memory_planner=MemoryPlanner.PTOAS, save_kernels_dir=str(tmp_path / "a"))
    with pytest.warns(IgnoredOptionWarning) as caught:
        run(example("tile_add"), config=config)
    assert sorted(str(w.message).split(":")[0] for w in caught) == [
        "RunConfig.compile_profiling has no effect on a2a3sim",
        "RunConfig.memory_planner has no effect on a2a3sim",
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        run(example("tile_add"), config=dataclasses.replace(config, save_kernels_dir=str(tmp_path / "b")))


def test_analyze_auto_scopes_for_deps_is_a_compile_option(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(config_module, "_warned", set())
    config = RunConfig(analyze_auto_scopes_for_deps=True, codegen_only=True, save_kernels_dir=str(tmp_path / "on"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        compiled = run(example("chained"), config=config)
    text = (compiled.output_dir / "orchestration" / "main.cpp").read_text()
    assert "PTO2_SCOPE(PTO2ScopeMode::MANUAL) {" in text and text.count(".set_dependencies(") == 1


def test_argument_errors_are_type_errors_as_established(tile_add: ir.CompiledProgram) -> None:
    with pytest.raises(TypeError, match=r"'main' takes 3 arguments \(a, b, out\) or 2 without its outputs"):
        tile_add(np.zeros((128, 128), np.float32))


def test_execute_compiled_refuses_what_cannot_run_here(tile_add: ir.CompiledProgram) -> None:
    with pytest.raises(ValueError, match="execute_compiled supports level=2 only"):
        execute_compiled(tile_add.output_dir, [], level=3)
    with pytest.raises(SimulatorError, match="platform 'a5' cannot run here"):
        execute_compiled(tile_add.output_dir, [], platform="a5")
    with pytest.raises(ValueError, match=r"unknown DFX flags \['enable_pmu'\]"):
        execute_compiled(tile_add.output_dir, [], dfx={"enable_pmu": 1})


def test_validate_ir_interprets_every_pass_dump(tmp_path: Path, tile_add: ir.CompiledProgram) -> None:
    compiled = ir.compile(example("tile_add"), output_dir=tmp_path / "dumped", dump_passes=True)
    rng = np.random.default_rng(1)
    a, b = rng.random((128, 128), np.float32), rng.random((128, 128), np.float32)
    checks = compiled.validate_ir([a, b], a + b)
    dumps = sorted(p.name for p in (tmp_path / "dumped" / "passes_dump").glob("*.py"))
    assert [c.dump for c in checks] == dumps and len(dumps) > 20
    assert all(c.passed and c.max_abs_error == 0.0 for c in checks)
    wrong = compiled.validate_ir([a, b, np.zeros_like(a)], {"out": a}, rtol=0, atol=0)
    assert not any(c.passed for c in wrong) and wrong[0].max_abs_error == pytest.approx(float(b.max()))
    with pytest.raises(SimulatorArgumentError, match=r"expected 1 output\(s\) \(out\), got 2"):
        compiled.validate_ir([a, b], [a, b])
    with pytest.raises(SimulatorArgumentError, match="'a' is not an output of 'main' \\(out\\)"):
        compiled.validate_ir([a, b], {"a": a})
    with pytest.raises(FileNotFoundError, match="holds no pass dumps"):
        tile_add.validate_ir([a, b], a + b)
