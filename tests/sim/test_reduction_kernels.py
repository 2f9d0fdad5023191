"""Column reductions of FP16 tiles on a2a3sim equal the interpreter (issue 26).

``col_argmax``/``col_argmin`` used to come back with wrong indices: memory reuse put the INT32
result in the FP16 input's buffer, and pto-isa writes result column c (4 bytes) over input row 0
columns 2c, 2c+1 before reading them. One program holds the issue's shapes and valid regions, one
kernel each, so the orchestration builds once.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import pypto.language as pl
from pypto import ir
from pypto.runtime import simulator_missing_reason

if (_missing := simulator_missing_reason()) is not None:
    pytest.skip(f"simulator tier: {_missing} (scripts/install-simulator.sh installs it)", allow_module_level=True)

# (op, rows, cols, valid rows, valid cols)
ARG_CASES = [
    ("col_argmax", 8, 128, 8, 128),
    ("col_argmin", 16, 16, 16, 16),
    ("col_argmax", 32, 64, 32, 64),
    ("col_argmin", 16, 16, 11, 16),
    ("col_argmax", 8, 128, 8, 72),
]

KERNEL = """
    @pl.function(type=pl.FunctionType.InCore)
    def k{i}(self, x: pl.Tensor[[{r}, {c}], pl.FP16],
             y: pl.Out[pl.Tensor[[1, {c}], pl.INT32]]) -> pl.Tensor[[1, {c}], pl.INT32]:
        t: pl.Tile[[{r}, {c}], pl.FP16] = pl.load(x, [0, 0], [{r}, {c}], valid_shape=[{vr}, {vc}])
        s: pl.Tile[[{r}, {c}], pl.FP16] = pl.create_tile([{r}, {c}], dtype=pl.FP16, target_memory=pl.Mem.Vec)
        a: pl.Tile[[1, {c}], pl.INT32] = pl.tile.{op}(t, s)
        y = pl.store(a, [0, 0], y)
        return y
"""


def _arg_source() -> str:
    kernels = "".join(
        KERNEL.format(i=i, op=op, r=r, c=c, vr=vr, vc=vc) for i, (op, r, c, vr, vc) in enumerate(ARG_CASES)
    )
    params = ", ".join(f"x{i}: pl.Tensor[[{r}, {c}], pl.FP16]" for i, (_, r, c, _, _) in enumerate(ARG_CASES))
    outs = ", ".join(f"y{i}: pl.Out[pl.Tensor[[1, {c}], pl.INT32]]" for i, (_, _, c, _, _) in enumerate(ARG_CASES))
    types = ", ".join(f"pl.Tensor[[1, {c}], pl.INT32]" for _, _, c, _, _ in ARG_CASES)
    calls = "".join(f"        y{i} = self.k{i}(x{i}, y{i})\n" for i in range(len(ARG_CASES)))
    names = ", ".join(f"y{i}" for i in range(len(ARG_CASES)))
    return (
        "import pypto.language as pl\n\n\n@pl.program\nclass ColArg:"
        + kernels
        + f"""
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, {params}, {outs}) -> tuple[{types}]:
{calls}        return {names}
"""
    )


def test_col_argmax_and_argmin_of_fp16_tiles_equal_the_interpreter(tmp_path: Path, kernel_cache: Path) -> None:
    compiled = ir.compile(pl.parse(_arg_source()), output_dir=tmp_path / "colarg")
    rng = np.random.default_rng(26)
    # Distinct values (integers are exact in FP16): no ties, so each index is unique.
    xs = [rng.permutation(np.arange(-1024, 1024))[: r * c].reshape(r, c).astype(np.float16)
          for _, r, c, _, _ in ARG_CASES]
    got = [np.zeros((1, c), np.int32) for _, _, c, _, _ in ARG_CASES]
    want = [y.copy() for y in got]
    compiled.run(*xs, *got, cache_dir=kernel_cache)  # the Out arrays are written in place
    compiled.interpret(*xs, *want)
    for (op, r, c, vr, vc), x, g, w in zip(ARG_CASES, xs, got, want):
        region = x[:vr, :vc].astype(np.float32)
        expected = (np.argmax if op == "col_argmax" else np.argmin)(region, axis=0)
        np.testing.assert_array_equal(w[0, :vc], expected, err_msg=f"interpreter {op} {r}x{c} valid {vr}x{vc}")
        np.testing.assert_array_equal(g[0, :vc], w[0, :vc], err_msg=f"a2a3sim {op} {r}x{c} valid {vr}x{vc}")


# (op, result shape, scratch): FP16 [32, 64] sums and products, accumulated as pto-isa does.
FLOAT_CASES = [
    ("col_sum", "[1, 64]", True),
    ("row_sum", "[32, 1]", True),
    ("col_prod", "[1, 64]", False),
    ("row_prod", "[32, 1]", True),
]

FLOAT_KERNEL = """
    @pl.function(type=pl.FunctionType.InCore)
    def k{i}(self, x: pl.Tensor[[32, 64], pl.FP16],
             y: pl.Out[pl.Tensor[{shape}, pl.FP16]]) -> pl.Tensor[{shape}, pl.FP16]:
        t: pl.Tile[[32, 64], pl.FP16] = pl.load(x, [0, 0], [32, 64])
        s: pl.Tile[[32, 64], pl.FP16] = pl.create_tile([32, 64], dtype=pl.FP16, target_memory=pl.Mem.Vec)
        a: pl.Tile[{shape}, pl.FP16] = pl.tile.{op}(t{scratch})
        y = pl.store(a, [0, 0], y)
        return y
"""


def _float_source() -> str:
    kernels = "".join(
        FLOAT_KERNEL.format(i=i, op=op, shape=shape, scratch=", s" if scratch else "")
        for i, (op, shape, scratch) in enumerate(FLOAT_CASES)
    )
    n = len(FLOAT_CASES)
    outs = ", ".join(f"y{i}: pl.Out[pl.Tensor[{shape}, pl.FP16]]" for i, (_, shape, _) in enumerate(FLOAT_CASES))
    types = ", ".join(f"pl.Tensor[{shape}, pl.FP16]" for _, shape, _ in FLOAT_CASES)
    calls = "".join(f"        y{i} = self.k{i}(x, y{i})\n" for i in range(n))
    names = ", ".join(f"y{i}" for i in range(n))
    return (
        "import pypto.language as pl\n\n\n@pl.program\nclass Sums:"
        + kernels
        + f"""
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[32, 64], pl.FP16], {outs}) -> tuple[{types}]:
{calls}        return {names}
"""
    )


def test_fp16_sums_and_products_round_like_the_simulator(tmp_path: Path, kernel_cache: Path) -> None:
    compiled = ir.compile(pl.parse(_float_source()), output_dir=tmp_path / "sums")
    x = np.random.default_rng(5).uniform(0.9, 1.1, (32, 64)).astype(np.float16)
    got = [np.zeros((1, 64) if shape == "[1, 64]" else (32, 1), np.float16) for _, shape, _ in FLOAT_CASES]
    want = [y.copy() for y in got]
    compiled.run(x, *got, cache_dir=kernel_cache)
    compiled.interpret(x, *want)
    for (op, _, _), g, w in zip(FLOAT_CASES, got, want):
        np.testing.assert_array_equal(g, w, err_msg=f"a2a3sim {op} of FP16 [32, 64]")
    # Summing the 32 rows in FP16 is not the float32 sum rounded once: the test would see a float32 sum.
    assert not np.array_equal(want[0], x.astype(np.float32).sum(axis=0, keepdims=True).astype(np.float16))
