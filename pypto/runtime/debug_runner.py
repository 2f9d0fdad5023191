"""``debug/run.py``: the script a compile writes into its artifact tree to rerun the program alone.

    python <output_dir>/debug/run.py [--seed N] [NAME=VALUE ...]

The script reloads the tree with ``CompiledProgram.from_dir`` and runs it on a2a3sim with arguments
made from ``compiled_meta.json``: In and InOut tensors random (floats in [-1, 1), integers in
[0, 8), bools), Out tensors zeros, scalars 1. ``NAME=VALUE`` sets scalar ``NAME``; ``NAME=4x128``
gives tensor ``NAME``'s full shape, which a tensor with a dynamic dimension needs. It prints one
line per written tensor (shape, dtype, min, max, mean). ``PYPTO_EMIT_DEBUG_RUNNER=0`` (or
``false``/``no``) stops compiles from writing it.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

RUNNER_FILE = "debug/run.py"
ENV_SWITCH = "PYPTO_EMIT_DEBUG_RUNNER"
DESCRIPTION = "Rerun the program compiled into this folder on a2a3sim with generated arguments."

SCRIPT = '''"""Rerun the program compiled into this folder on a2a3sim (written by pypto: pypto.runtime.debug_runner)."""

import sys
from pathlib import Path

from pypto.runtime.debug_runner import main

sys.exit(main(Path(__file__).resolve().parent.parent, sys.argv[1:]))
'''


def runner_files() -> dict[str, str]:
    """The debug runner as a generated file, unless ``$PYPTO_EMIT_DEBUG_RUNNER`` switches it off."""
    if os.environ.get(ENV_SWITCH, "").strip().lower() in ("0", "false", "no"):
        return {}
    return {RUNNER_FILE: SCRIPT}


def main(output_dir: Path, argv: Sequence[str]) -> int:
    """Run the tree in ``output_dir`` with arguments made from its signature; see the module docstring."""
    from pypto.compiled import CompiledProgram
    from pypto.runtime.meta import read_meta

    parser = argparse.ArgumentParser(prog=f"{output_dir}/{RUNNER_FILE}", description=DESCRIPTION)
    parser.add_argument("--seed", type=int, default=0, help="seed of the random inputs (default 0)")
    parser.add_argument("values", nargs="*", metavar="NAME=VALUE", help="a scalar's value or a tensor's shape (4x128)")
    options = parser.parse_args(list(argv))
    _, meta = read_meta(output_dir)
    given = _given(parser, options.values, {p["name"] for p in meta["params"]})
    rng = np.random.default_rng(options.seed)
    args = [_argument(parser, p, given.get(p["name"]), rng) for p in meta["params"]]
    CompiledProgram.from_dir(output_dir)(*args)
    for p, arg in zip(meta["params"], args):
        if p["shape"] is not None and p["direction"] != "In":
            print(_summary(p["name"], arg))
    return 0


def _given(parser: argparse.ArgumentParser, values: Sequence[str], names: set[str]) -> dict[str, str]:
    given: dict[str, str] = {}
    for item in values:
        name, sep, value = item.partition("=")
        if not sep or name not in names:
            parser.error(f"{item!r}: expected NAME=VALUE with NAME one of {', '.join(sorted(names))}")
        given[name] = value
    return given


def _argument(
    parser: argparse.ArgumentParser, param: dict[str, Any], value: str | None, rng: np.random.Generator
) -> Any:
    from pypto.ir.numpy_dtypes import numpy_dtype
    from pypto.ir.datatype import DataType

    pypto_dtype = DataType.from_name(param["dtype"])
    dtype = numpy_dtype(pypto_dtype)
    name = param["name"]
    if param["shape"] is None:
        try:
            number = 1 if value is None else float(value) if pypto_dtype.is_float() else int(value)
            return dtype.type(number)
        except ValueError:
            parser.error(f"{name}={value}: not a number")
    shape = list(param["shape"])
    if value is not None:
        try:
            shape = [int(d) for d in value.split("x")]
        except ValueError:
            parser.error(f"{name}={value}: a shape is written like 4x128")
    if -1 in shape:
        parser.error(f"tensor {name!r} has a dynamic dimension: give its shape, e.g. {name}=" + "x".join(
            "64" if d == -1 else str(d) for d in shape))
    if param["direction"] == "Out":
        return np.zeros(shape, dtype)
    if dtype.kind == "b":
        return rng.integers(0, 2, shape).astype(dtype)
    if dtype.kind in "iu":
        return rng.integers(0, 8, shape).astype(dtype)
    return rng.uniform(-1.0, 1.0, shape).astype(dtype)


def _summary(name: str, array: np.ndarray) -> str:
    values = array.astype(np.float64)
    return (
        f"{name}: shape {list(array.shape)} {array.dtype} "
        f"min {values.min():.6g} max {values.max():.6g} mean {values.mean():.6g}"
    )
