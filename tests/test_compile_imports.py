"""What a compile loads: the passes fold constants without the reference interpreter, the
narrow dtypes of ml_dtypes (a slow import) wait until a program or an argument needs one, and the
simulator side of ``pypto.runtime`` (builder, simulator binding, workers) waits for a run."""

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
print(sorted(m for m in sys.modules if m in ("pypto.interp", "ml_dtypes") or m.startswith("pypto.interp.")))
"""


def test_compile_loads_neither_the_interpreter_nor_ml_dtypes() -> None:
    example = ROOT / "examples" / "tensor_softmax.py"
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(example)], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


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
