"""Every example with an orchestration function compiled by ``ir.compile``, run on a2a3sim and compared with the reference
interpreter on the same seeded inputs; ``pypto run`` does the same from the command line."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest

import pypto.language as pl
from pypto import ir
from pypto.cli import main
from pypto.compiled import CompiledProgram, parameters
from pypto.ir.numpy_dtypes import numpy_dtype
from pypto.interp.tolerance import output_tolerances
from pypto.ir.enums import ParamDirection
from pypto.runtime import ScalarParam, simulator_missing_reason

if (_missing := simulator_missing_reason()) is not None:
    pytest.skip(f"simulator tier: {_missing} (scripts/install-simulator.sh installs it)", allow_module_level=True)

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
# Example -> values of its scalar parameters (loop_sum has no orchestration: nothing to run on the simulator).
CASES = {
    "manual_deps": {},
    # The seed's dependency forms (issue 31): explicit edges, pl.at producers, manual_dep tensors,
    # task_dummy fan-in, TaskId arrays and the pl.parallel phase fence.
    "deps_explicit_edge": {},
    "deps_at_blocks": {},
    "deps_manual_tensor": {},
    "deps_fan_in": {},
    "deps_task_array": {},
    "deps_phase_fence": {},
    "deps_no_dep_dump": {},
    # TaskIds and a TaskId array through a while loop and out of an if: 3 producers in the loop, the
    # if's branch the fourth.
    "deps_while_if": {"n": 3},
    "tile_add": {},
    "row_blocks": {},
    "row_softmax": {},
    "matmul": {},
    "matmul_big_k": {},
    "scaled_sum": {"alpha": 0.75},
    "chained": {},
    # Tensor-level programs (issue 12): outlined into kernels, converted to tile ops.
    "tensor_matmul": {},
    "tensor_elementwise": {},
    "tensor_row_loop": {},
    "tensor_softmax": {},
    "tensor_spmd": {},
    "tensor_matmul_big_k": {},
    "tensor_batch_matmul": {},
    "tensor_dyn_rows": {},
    "tensor_dyn_cols": {},
    "tensor_matmul_big_mn": {},
    "tensor_matmul_trans": {},
    "tensor_matmul_acc": {},
    # Explicit cross-core program (issue 30): an AIV and an AIC kernel joined by two pipes in a Group.
    "cross_core_pipes": {},
    "cross_core_spmd": {},
    # pl.cluster() around a pl.spmd of mixed work: one Group on two blocks.
    "cross_core_cluster": {},
    # Mixed cube + vector scopes (issue 30): ExpandMixedKernel splits each into AIC + AIV + Group.
    "mixed_linear_relu": {},
    "mixed_matmul_softmax": {},
    "mixed_vector_to_cube": {},
    "mixed_split_epilogue": {},
}
# Examples with dynamic dimensions -> the values of the dimensions of each run (tensor_dyn_rows: a
# whole number of 32-row blocks, then a tail block of 16 valid rows; tensor_dyn_cols: 64-column blocks,
# then a tail of 8 valid columns).
DIMS = {"tensor_dyn_rows": [{"N": 96}, {"N": 80}], "tensor_dyn_cols": [{"N": 200}]}
RUNS = [(name, dims) for name in sorted(CASES) for dims in DIMS.get(name, [{}])]


def _inputs(entry: ir.Function, scalars: dict[str, float], dims: dict[str, int], seed: int) -> list[object]:
    """The arguments of the short call form: every parameter but the Out tensors."""
    rng = np.random.default_rng(seed)
    values: list[object] = []
    for param, direction in zip(parameters(entry, dims), entry.param_directions):
        if direction == ParamDirection.Out:
            continue
        if isinstance(param, ScalarParam):
            values.append(scalars[param.name])
        else:
            values.append(rng.standard_normal(param.shape).astype(numpy_dtype(param.dtype)))
    return values


@pytest.mark.parametrize(("name", "dims"), RUNS,
                         ids=[name + "".join(f"-{k}{v}" for k, v in dims.items()) for name, dims in RUNS])
def test_example_on_the_simulator_equals_the_interpreter(name: str, dims: dict[str, int], tmp_path: Path,
                                                        kernel_cache: Path, record_timing) -> None:
    program = pl.loads_program(str(EXAMPLES / f"{name}.py"))
    start = time.perf_counter()
    compiled = ir.compile(program, output_dir=tmp_path / name)
    seconds = time.perf_counter() - start
    for needed in ("kernel_config.py", "orchestration/main.cpp"):
        assert needed in compiled.files
    assert any(f.startswith("ptoas/") and f.endswith(".pto") for f in compiled.files)
    entry = compiled.entry_function()
    inputs = _inputs(entry, CASES[name], dims, seed=11)
    before = [x.copy() if isinstance(x, np.ndarray) else x for x in inputs]
    got = compiled.run(*inputs, cache_dir=kernel_cache)
    want = compiled.interpret(*inputs)
    for x, x0 in zip(inputs, before):
        np.testing.assert_array_equal(x, x0)  # inputs are left as they were
    outs = [p for p, d in zip(entry.params, entry.param_directions) if d == ParamDirection.Out]
    got_all = got if isinstance(got, tuple) else (got,)
    want_all = want if isinstance(want, tuple) else (want,)
    errors = []
    tolerances = output_tolerances(compiled.program, entry, dims)
    for param, g, w in zip(outs, got_all, want_all):
        rtol, atol = tolerances[param.name_hint]
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, err_msg=f"{name}: output {param.name_hint}")
        errors.append(float(np.max(np.abs(g.astype(np.float64) - w.astype(np.float64)))))
    peak = ", ".join(f"{space.name} {size}" for space, size in compiled.peak_memory().items())
    kinds = "; ".join(f"{kind} {' '.join(names)}" for kind, names in compiled.functions_by_kind().items())
    record_timing(f"{name}{dims or ''} (functions {kinds}; tasks {compiled.tasks().per_run}; compile {seconds:.2f}s; peak {peak}; "
                  f"max error {max(errors):.3g})", compiled.last_run)


def test_pypto_run_prints_the_error_of_every_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", str(EXAMPLES / "chained.py"), "--seed", "3", "-o", str(tmp_path / "out")]) == 0
    out = capsys.readouterr().out.splitlines()
    [line] = [line for line in out if line.startswith("  y: max error ")]
    assert line.endswith(" ok")
    assert any(line.startswith("ran on a2a3sim: build ") for line in out)


def test_pypto_run_takes_scalars_from_an_inputs_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    inputs = tmp_path / "in.npz"
    np.savez(inputs, alpha=np.float32(2.0))
    assert main(["run", str(EXAMPLES / "scaled_sum.py"), "--inputs", str(inputs), "-o", str(tmp_path / "out")]) == 0
    assert "  out: max error " in capsys.readouterr().out


# The matmul examples whose FP32 sums of 256 to 512 FP16 products differ from the interpreter's by
# up to 2.6e-5 (a fixed FP32 atol of 1e-5 reported them as mismatches).
LONG_SUMS = ["matmul_big_k", "tensor_matmul_big_k", "tensor_matmul_big_mn", "tensor_matmul_acc"]


@pytest.mark.parametrize("name", LONG_SUMS)
def test_pypto_run_accepts_long_matmul_sums(name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", str(EXAMPLES / f"{name}.py"), "--seed", "1", "-o", str(tmp_path / "out")]) == 0
    [line] = [line for line in capsys.readouterr().out.splitlines() if line.startswith("  c: max error ")]
    assert line.endswith(" ok")


def test_pypto_run_reports_a_wrong_result(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """An error of 1e-3 in a K = 512 FP32 matmul is beyond its tolerance (atol 512 * 2^-23 = 6.1e-5)."""
    interpret = CompiledProgram.interpret

    def off_by_a_little(self: CompiledProgram, *args: object) -> object:
        result = interpret(self, *args)
        args[-1][3, 5] += 1e-3  # type: ignore[index]
        return result

    monkeypatch.setattr(CompiledProgram, "interpret", off_by_a_little)
    assert main(["run", str(EXAMPLES / "matmul_big_k.py"), "--seed", "1", "-o", str(tmp_path / "out")]) == 1
    [line] = [line for line in capsys.readouterr().out.splitlines() if line.startswith("  c: max error ")]
    assert line.startswith("  c: max error 0.00")
    assert line.endswith(" MISMATCH (rtol=1e-05, atol=6.1e-05)")


def test_pypto_run_tolerance_flags_override_the_rule(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = str(tmp_path / "out")
    run = ["run", str(EXAMPLES / "matmul_big_k.py"), "--seed", "1", "-o", out]
    assert main([*run, "--atol", "1e-7", "--rtol", "0"]) == 1
    assert "  c: max error 2.1e-05 MISMATCH (rtol=0, atol=1e-07)" in capsys.readouterr().out
    assert main([*run, "--atol", "1e-3"]) == 0


@pytest.mark.parametrize("value", ["-1", "nan", "inf", "tight"])
def test_pypto_run_rejects_a_bad_tolerance(value: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["run", str(EXAMPLES / "matmul_big_k.py"), "--atol", value])
    assert exit_info.value.code == 2
    assert f"argument --atol: invalid tolerance '{value}': expected a non-negative number" in capsys.readouterr().err


def test_deps_while_if_takes_the_else_branch_on_the_simulator_as_the_interpreter(tmp_path: Path,
                                                                                 kernel_cache: Path) -> None:
    """n = 4: the while loop fills every slot and the if yields the loop's last TaskId (n = 3 above
    takes the other branch)."""
    compiled = ir.compile(pl.loads_program(str(EXAMPLES / "deps_while_if.py")), output_dir=tmp_path / "out")
    x = np.random.default_rng(4).standard_normal((64, 64)).astype(np.float32)
    got = compiled.run(x, 4, cache_dir=kernel_cache)
    want = compiled.interpret(x, 4)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w)
