"""What a compile loads: the passes fold constants without the reference interpreter, the
narrow dtypes of ml_dtypes (a slow import, 0.6 s of CPU) wait until a program or an argument needs
one (also when a run checks its arguments and the tolerances of its outputs), and the simulator
side of ``pypto.runtime`` (builder, simulator binding, workers) waits for a run; the pictures
(``pypto.memmap``, ``pypto.graph``) load only for a compile that draws them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Compiles an FP32 example in a fresh interpreter and prints what it loaded of those.
SCRIPT = """
import runpy, sys, tempfile
from pypto import ir
program = runpy.run_path(sys.argv[1])["TensorSoftmax"]
with tempfile.TemporaryDirectory() as out:
    compiled = ir.compile(program, output_dir=out)
assert compiled.program.name == "TensorSoftmax"
print(sorted(m for m in sys.modules if m in ("pypto.interp", "ml_dtypes", "pypto.memmap", "pypto.graph")
             or m.startswith("pypto.interp.")))
"""


def test_compile_loads_neither_the_interpreter_nor_ml_dtypes() -> None:
    example = ROOT / "examples" / "tensor_softmax.py"
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(example)], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


# Checks FP32 arguments and the tolerance of an FP32 output, then a BF16 argument.
RUN_SCRIPT = """
import runpy, sys
import numpy as np
from pypto.interp.tolerance import output_tolerances
from pypto.ir.datatype import DataType
from pypto.runtime.arguments import TensorParam, check_tensor
program = runpy.run_path(sys.argv[1])["TensorSoftmax"]
check_tensor(TensorParam("x", DataType.FP32, (2, 3)), np.zeros((2, 3), np.float32), True)
output_tolerances(program, program.get_function("main"))
print("ml_dtypes" in sys.modules)
import ml_dtypes
check_tensor(TensorParam("y", DataType.BF16, (2,)), np.zeros(2, ml_dtypes.bfloat16), False)
print("bf16 ok")
"""


def test_checking_fp32_arguments_and_tolerances_does_not_load_ml_dtypes() -> None:
    example = ROOT / "examples" / "tensor_softmax.py"
    done = subprocess.run([sys.executable, "-c", RUN_SCRIPT, str(example)], capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "bf16", "ok"]


# The runtime modules a run needs and a compile does not (pypto.runtime exports them lazily).
RUN_ONLY = ("pypto.runtime.build", "pypto.runtime.simulator", "pypto.runtime.worker", "pypto.runtime.runner")

RUNTIME_SCRIPT = f"""
import runpy, sys, tempfile
from pypto import ir
import pypto.runtime
program = runpy.run_path(sys.argv[1])["TensorSoftmax"]
with tempfile.TemporaryDirectory() as out:
    ir.compile(program, output_dir=out)
loaded = sorted(m for m in sys.modules if m in {RUN_ONLY!r})
assert pypto.runtime.RunConfig.__module__ == "pypto.runtime.config"
print(loaded)
"""


def test_compile_loads_no_simulator_side_of_the_runtime() -> None:
    example = ROOT / "examples" / "tensor_softmax.py"
    done = subprocess.run(
        [sys.executable, "-c", RUNTIME_SCRIPT, str(example)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
