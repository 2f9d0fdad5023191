"""What a compile loads: the passes fold constants without the reference interpreter."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Compiles an example in a fresh interpreter and prints the pypto.interp modules it loaded.
SCRIPT = """
import runpy, sys, tempfile
from pypto import ir
program = runpy.run_path(sys.argv[1])["TensorSoftmax"]
with tempfile.TemporaryDirectory() as out:
    compiled = ir.compile(program, output_dir=out)
assert compiled.program.name == "TensorSoftmax"
print(sorted(m for m in sys.modules if m == "pypto.interp" or m.startswith("pypto.interp.")))
"""


def test_compile_loads_no_interpreter() -> None:
    example = ROOT / "examples" / "tensor_softmax.py"
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(example)], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
