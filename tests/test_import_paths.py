"""Every public import path of DESIGN.md works whichever of them a program imports first.

The IR core calls the printer, structural equality and the op registry through hooks those modules
install when imported, and ``ir.compile`` is loaded lazily: in a fresh interpreter one path is
imported first, then all the others in the listed order, then what the hooks serve is used.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

# DESIGN.md "Public import paths", each with the names it must export
PUBLIC_IMPORTS = [
    "from pypto import DataType, ir, passes",
    "import pypto.language as pl",
    "from pypto.language.typing import Scalar, Tensor, Tile",
    "from pypto.language.typing.dynamic import DynVar",
    "from pypto.language.parser.diagnostics import ParserError, ParserSyntaxError, ParserTypeError",
    "from pypto.language.parser.diagnostics.exceptions import (InvalidOperationError, SSAViolationError, "
    "UndefinedVariableError, UnsupportedFeatureError)",
    "from pypto.language.parser.text_parser import parse, parse_program",
    "from pypto.ir import Var, ScalarType, TensorType, structural_equal, python_print, compile",
    "from pypto.ir.op import array, system, tensor, tile",
    "from pypto.ir import printer; from pypto.ir.printer import python_print",
    "from pypto.ir.builder import IRBuilder",
    "import pypto.passes",
    "from pypto.pypto_core import DataType, ir, passes",
]

# What the hooks and the lazy ir.compile serve, checked after the imports.
CHECKS = """
from pypto import ir

x = ir.Var("x", ir.ScalarType(ir.INT64))
assert str(x + 1) == "x + 1", str(x + 1)
assert repr(ir.ScalarType(ir.FP32)) == "pl.Scalar[pl.FP32]"
t = ir.TensorType([64, 128], ir.FP16)
assert t == ir.TensorType([64, 128], ir.FP16) and hash(t) == hash(ir.TensorType([64, 128], ir.FP16))
assert ir.is_op_registered("tensor.add") and ir.get_op("tensor.cast").has_attr("target_type")
assert str(ir.op.tensor.add(ir.Var("a", t), ir.Var("b", t))) == "pl.tensor.add(a, b)"
from pypto.compile import compile
assert ir.compile is compile
"""


def _run(statements: list[str]) -> subprocess.CompletedProcess[str]:
    code = "\n".join([*statements, CHECKS])
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)


# Entry points into each layer (a fresh interpreter costs about a second, so not all of them): the
# printer and the builders above the core, the DSL, a deep parser module, the passes, the alias.
FIRST = [
    "from pypto.ir import printer; from pypto.ir.printer import python_print",
    "from pypto.ir.builder import IRBuilder",
    "import pypto.language as pl",
    "from pypto.language.parser.diagnostics.exceptions import (InvalidOperationError, SSAViolationError, "
    "UndefinedVariableError, UnsupportedFeatureError)",
    "import pypto.passes",
    "from pypto.pypto_core import DataType, ir, passes",
]


@pytest.mark.parametrize("first", FIRST)
def test_public_import_path_first(first: str) -> None:
    rest = [s for s in PUBLIC_IMPORTS if s != first]
    done = _run([first, *rest])
    assert done.returncode == 0, done.stderr
