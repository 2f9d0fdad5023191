"""@pl.jit: y = relu(x @ w + bias) as two tasks: a cube matmul into ``h``, then a vector kernel
adding the bias row and clamping at zero. ``h`` is written by a bare store in the first scope and
read by the second, which therefore waits for it."""

import torch

import pypto.language as pl
from pypto.interp.tolerance import output_tolerances


@pl.jit
def fused_linear(x: pl.Tensor, w: pl.Tensor, bias: pl.Tensor, h: pl.Out[pl.Tensor], y: pl.Out[pl.Tensor]):
    M, K = x.shape
    N = w.shape[1]
    with pl.at(level=pl.Level.CORE_GROUP):
        h[:] = pl.matmul(x, w, out_dtype=pl.FP32)
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.load(h, [0, 0], [M, N])
        bv = pl.load(bias, [0, 0], [1, N])
        s = pl.col_expand_add(t, bv)
        pl.store(pl.maximum(s, pl.mul(s, 0.0)), [0, 0], y)
    return y


def check() -> None:
    x = torch.randn(64, 128, dtype=torch.float16)
    w = torch.randn(128, 64, dtype=torch.float16)
    bias = torch.randn(1, 64)
    h, y = torch.zeros(64, 64), torch.zeros(64, 64)
    fused_linear(x, w, bias, h, y)
    compiled = fused_linear.compile(x, w, bias, h, y)  # the cached program the call ran
    tolerances = output_tolerances(compiled.program, compiled.entry_function())  # docs/cli.md#tolerances
    # the reference sums in float64 and rounds once, as the interpreter does
    want_h = (x.double() @ w.double()).float()
    torch.testing.assert_close(h, want_h, rtol=tolerances["h"][0], atol=tolerances["h"][1])
    torch.testing.assert_close(y, torch.relu(want_h + bias), rtol=tolerances["y"][0], atol=tolerances["y"][1])


if __name__ == "__main__":
    check()
    print("fused_linear: ok")
