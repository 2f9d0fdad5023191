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
from pypto.compiled import parameters
from pypto.interp.dtypes import numpy_dtype, tolerance
from pypto.ir.enums import ParamDirection
from pypto.runtime import ScalarParam, simulator_missing_reason

if (_missing := simulator_missing_reason()) is not None:
    pytest.skip(f"simulator tier: {_missing} (scripts/install-simulator.sh installs it)", allow_module_level=True)

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
# Example -> values of its scalar parameters (loop_sum has no orchestration: nothing to run on the simulator).
CASES = {
    "manual_deps": {},
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
    "tensor_matmul_big_mn": {},
    "tensor_matmul_trans": {},
    "tensor_matmul_acc": {},
}
# Examples with dynamic dimensions -> the values of the dimensions of each run (tensor_dyn_rows: a
# whole number of 32-row blocks, then a tail block of 16 valid rows).
DIMS = {"tensor_dyn_rows": [{"N": 96}, {"N": 80}]}
RUNS = [(name, dims) for name in sorted(CASES) for dims in DIMS.get(name, [{}])]
# Absolute tolerances wider than the dtype's: a K=512 FP32 dot product summed in the cube unit's
# order differs from numpy's by a few ulps of its partial sums (~1e-5 at magnitudes ~20).
ATOL = {"matmul_big_k": 1e-4, "tensor_matmul_big_k": 1e-4, "tensor_matmul_big_mn": 1e-4, "tensor_matmul_acc": 1e-4}


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
    for param, g, w in zip(outs, got_all, want_all):
        rtol, atol = tolerance(param.type.dtype)
        atol = ATOL.get(name, atol)
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
