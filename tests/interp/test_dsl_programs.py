"""The seed's examples and DSL programs run by the interpreter, checked against numpy written here."""

from __future__ import annotations

import numpy as np
import pytest

import pypto.language as pl
from pypto.interp import run
from pypto.interp.testing import assert_pass_preserves

RNG = np.random.default_rng(5)


def rand(*shape: int) -> np.ndarray:
    return RNG.normal(size=shape).astype(np.float32)


@pl.function
def loop_sum(n: pl.INT64) -> pl.INT64:
    sum_init: pl.INT64 = 0
    for i, (sum,) in pl.range(n, init_values=(sum_init,)):
        sum = pl.yield_(sum + i)
    return sum


@pytest.mark.parametrize("n", [0, 1, 7, 100])
def test_seed_loop_sum(n: int) -> None:
    assert run(loop_sum, n).value == sum(range(n))


@pl.program
class BlockExample:
    @pl.function
    def tile_add(
        self,
        input_a: pl.Tensor[[64, 64], pl.FP32],
        input_b: pl.Tensor[[64, 64], pl.FP32],
        output: pl.Tensor[[64, 64], pl.FP32],
    ) -> pl.Tensor[[64, 64], pl.FP32]:
        tile_a: pl.Tile[[64, 64], pl.FP32] = pl.load(input_a, [0, 0], [64, 64])
        tile_b: pl.Tile[[64, 64], pl.FP32] = pl.load(input_b, [0, 0], [64, 64])
        tile_c: pl.Tile[[64, 64], pl.FP32] = pl.add(tile_a, tile_b)
        result: pl.Tensor[[64, 64], pl.FP32] = pl.store(tile_c, [0, 0], output)
        return result


def test_seed_block_example_tile_add() -> None:
    a, b = rand(64, 64), rand(64, 64)
    np.testing.assert_array_equal(run(BlockExample, a, b, np.zeros_like(a)).value, a + b)


@pl.function
def ssa_control_flow(x: pl.INT64, flag: pl.BOOL) -> tuple[pl.INT64, pl.INT64, pl.INT64]:
    if flag:
        y1 = pl.yield_(x + 1)
    else:
        y1 = pl.yield_(x + 2)
    sum_init: pl.INT64 = 0
    for i, (sum,) in pl.range(10, init_values=(sum_init,)):
        sum = pl.yield_(sum + i)
    sum_final: pl.INT64 = sum
    x_init: pl.Scalar[pl.INT64] = 0
    for (w,) in pl.while_(init_values=(x_init,)):
        pl.cond(w < x)
        w_next = pl.yield_(w + 3)
    return y1, sum_final, w_next


@pytest.mark.parametrize(("x", "flag"), [(5, True), (5, False), (0, True)])
def test_seed_ssa_if_for_while(x: int, flag: bool) -> None:
    w = 0
    while w < x:
        w += 3
    assert run(ssa_control_flow, x, flag).returns == (x + 1 if flag else x + 2, 45, w)


@pl.function
def pre_ssa(n: pl.Scalar[pl.INT64]) -> pl.Scalar[pl.INT64]:
    i: pl.Scalar[pl.INT64] = 0
    while i < n:
        i = i + 3
    total: pl.Scalar[pl.INT64] = 0
    for k in pl.range(20):
        if k % 2 == 1:
            continue
        if k > 10:
            break
        total = total + k
    for k in pl.parallel(0, 4, 2):
        total = total * 2
    for k in pl.unroll(3):
        total = total + 1
    return i * 1000 + total


def test_surface_reassignment_break_continue_parallel_unroll() -> None:
    total = sum(k for k in range(0, 11, 2)) * 4 + 3
    assert run(pre_ssa, 10).value == 12 * 1000 + total


@pl.program
class Orchestrated:
    @pl.function(type=pl.FunctionType.InCore)
    def scale(
        self, x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]
    ) -> pl.Tensor[[16, 64], pl.FP32]:
        t: pl.Tile[[16, 64], pl.FP32] = pl.load(x, [0, 0], [16, 64])
        u: pl.Tile[[16, 64], pl.FP32] = pl.mul(t, 3.0)
        out = pl.store(u, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.InCore)
    def shift(
        self, x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]
    ) -> pl.Tensor[[16, 64], pl.FP32]:
        t: pl.Tile[[16, 64], pl.FP32] = pl.load(x, [0, 0], [16, 64])
        u: pl.Tile[[16, 64], pl.FP32] = pl.add(t, 1.0)
        out = pl.store(u, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self, x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]
    ) -> pl.Tensor[[16, 64], pl.FP32]:
        tmp: pl.Tensor[[16, 64], pl.FP32] = pl.create_tensor([16, 64], dtype=pl.FP32)
        tmp = self.scale(x, tmp)
        out = self.shift(tmp, out)
        return out


def test_orchestration_calling_kernels_with_out_params() -> None:
    x = rand(16, 64)
    result = run(Orchestrated, x, np.zeros_like(x))
    np.testing.assert_allclose(result.value, x * 3 + 1, rtol=1e-6)
    np.testing.assert_allclose(result.outputs["out"], x * 3 + 1, rtol=1e-6)


@pl.program
class TensorProgram:
    @pl.function
    def main(
        self,
        x: pl.Tensor[[16, 32], pl.FP32],
        w: pl.Tensor[[32, 8], pl.FP32],
        out: pl.Out[pl.Tensor[[16, 8], pl.FP32]],
    ) -> pl.Tensor[[16, 8], pl.FP32]:
        h = pl.matmul(x, w)
        m = pl.row_max(h)
        s = pl.row_expand_sub(h, m)
        out = pl.assemble(out, pl.exp(s), [0, 0])
        return out


def test_tensor_level_program() -> None:
    x, w = rand(16, 32), rand(32, 8)
    h = x.astype(np.float64) @ w
    expected = np.exp(h - h.max(axis=1, keepdims=True))
    np.testing.assert_allclose(run(TensorProgram, x, w, np.zeros((16, 8), np.float32)).value, expected, rtol=1e-5)


@pl.inline
def double(x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
    result: pl.Tensor[[64], pl.FP32] = pl.mul(x, 2.0)
    return result


@pl.function
def softmax_vec(x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
    y: pl.Tensor[[64], pl.FP32] = pl.add(x, 1.0)
    return y


@pl.program
class WithHelpers:
    @pl.function
    def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        y: pl.Tensor[[64], pl.FP32] = double(x)
        z: pl.Tensor[[64], pl.FP32] = softmax_vec(y)
        return z


def test_seed_inline_and_external_functions() -> None:
    x = rand(64)
    np.testing.assert_allclose(run(WithHelpers, x).value, x * 2 + 1, rtol=1e-6)


def reparse(program: object) -> object:
    """Print a program and parse the text back: a "pass" that must not change the meaning."""
    return pl.parse(program.as_python())


@pytest.mark.parametrize(
    ("program", "inputs"),
    [
        (BlockExample, [rand(64, 64), rand(64, 64), np.zeros((64, 64), np.float32)]),
        (Orchestrated, [rand(16, 64), np.zeros((16, 64), np.float32)]),
        (TensorProgram, [rand(16, 32), rand(32, 8), np.zeros((16, 8), np.float32)]),
    ],
    ids=["BlockExample", "Orchestrated", "TensorProgram"],
)
def test_printed_programs_parse_back_to_the_same_meaning(program: object, inputs: list[np.ndarray]) -> None:
    assert_pass_preserves(reparse, program, inputs)
