"""Dynamic inner dimensions and dynamic valid regions on a2a3sim, equal to the interpreter (issue 29 item 5).

A kernel over ``pl.Tensor[[16, N], pl.FP32]`` reads N off its argument and uses it as the row pitch of
its loads and stores; a kernel parameter ``pl.TensorView(valid_shape=[M, 64], ...)`` is passed M, the
valid extent of the caller's slice, by MaterializeValidShapeSymbols.
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

# 64-column blocks of a tensor whose row length N is dynamic, walked by the orchestration.
COLUMN_BLOCKS = """
import pypto.language as pl

N = pl.dynamic("N")


@pl.program
class ColumnBlocks:
    @pl.function
    def main(self, x: pl.Tensor[[16, N], pl.FP32],
             out: pl.Out[pl.Tensor[[16, N], pl.FP32]]) -> pl.Tensor[[16, N], pl.FP32]:
        for j in pl.range(0, N, 64):
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.slice(x, [16, 64], [0, j])
                out = pl.assemble(out, pl.exp(t), [0, j])
        return out
"""

# The same blocks walked by a loop inside the kernel, whose bound N the kernel reads off x.
KERNEL_LOOP = """
import pypto.language as pl

N = pl.dynamic("N")


@pl.program
class KernelLoop:
    @pl.function
    def main(self, x: pl.Tensor[[16, N], pl.FP32],
             out: pl.Out[pl.Tensor[[16, N], pl.FP32]]) -> pl.Tensor[[16, N], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            for j in pl.range(0, N, 64):
                t = pl.slice(x, [16, 64], [0, j])
                out = pl.assemble(out, pl.mul(t, t), [0, j])
        return out
"""

# An explicit kernel whose parameter is valid in M of its 32 rows; the last block of N = 80 has 16.
VALID_ROWS = """
import pypto.language as pl

M = pl.dynamic("M")
N = pl.dynamic("N")


@pl.program
class ValidRows:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self,
          x: pl.Tensor[[32, 64], pl.FP32, pl.TensorView(valid_shape=[M, 64], stride=[], layout=pl.TensorLayout.ND)],
          row: pl.Scalar[pl.INDEX], out: pl.InOut[pl.Tensor[[N, 64], pl.FP32]]) -> pl.Tensor[[N, 64], pl.FP32]:
        t: pl.Tile[[32, 64], pl.FP32] = pl.load(x, [0, 0], [32, 64])
        out = pl.store(pl.add(pl.exp(t), t), [row, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[N, 64], pl.FP32],
             out: pl.Out[pl.Tensor[[N, 64], pl.FP32]]) -> pl.Tensor[[N, 64], pl.FP32]:
        for i in pl.range(0, N, 32):
            rows: pl.Scalar[pl.INDEX] = pl.min(32, N - i)
            xs = pl.slice(x, [32, 64], [i, 0], valid_shape=[rows, 64])
            out = self.k(xs, i, out)
        return out
"""

# Program, input shape, and the numpy function the interpreter's result must also equal.
CASES = {
    "column_blocks": (COLUMN_BLOCKS, (16, 192), np.exp),
    "kernel_loop": (KERNEL_LOOP, (16, 192), lambda x: x * x),
    "valid_rows": (VALID_ROWS, (80, 64), lambda x: np.exp(x) + x),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_dynamic_program_on_the_simulator_equals_the_interpreter(name: str, tmp_path: Path, kernel_cache: Path,
                                                                record_timing) -> None:
    source, shape, reference = CASES[name]
    compiled = ir.compile(pl.parse(source), output_dir=tmp_path / name)
    x = np.random.default_rng(29).standard_normal(shape).astype(np.float32)
    want = compiled.interpret(x)
    np.testing.assert_allclose(want, reference(x), rtol=1e-6, atol=1e-6)
    got = np.zeros(shape, np.float32)
    compiled.run(x, got, cache_dir=kernel_cache)
    record_timing(name, compiled.last_run)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    print(f"{name}: max error {np.abs(got - want).max():.3g}")


def test_a_kernel_reads_a_dynamic_row_length_off_its_argument(tmp_path: Path) -> None:
    compiled = ir.compile(pl.parse(COLUMN_BLOCKS), output_dir=tmp_path / "column_blocks")
    text = (Path(compiled.output_dir) / "kernels/aiv/main_incore_0.cpp").read_text()
    assert "GT_16x64_fp32::Stride(1024, 1024, 1024, N, 1)" in text
    assert "    int64_t N = static_cast<int64_t>(x_tensor->shapes[1]);\n" in text


def test_a_valid_extent_is_passed_to_the_kernel_as_a_scalar(tmp_path: Path) -> None:
    compiled = ir.compile(pl.parse(VALID_ROWS), output_dir=tmp_path / "valid_rows")
    kernel = (Path(compiled.output_dir) / "kernels/aiv/k.cpp").read_text()
    assert "static __aicore__ void k(__gm__ float* x, __gm__ float* out, int64_t M, int64_t row) {\n" in kernel
    assert "  GT_dx64_fp32 x_gt(x, GT_dx64_fp32::Shape(1, 1, 1, ((32 < M ? 32 : M)), 64));\n" in kernel
    orchestration = (Path(compiled.output_dir) / "orchestration/main.cpp").read_text()
    assert "uint32_t xs_shapes[2] = {rows, 64};" in orchestration
