"""@pl.jit: a K loop at tensor level. The first 128-wide K block is a ``pl.matmul``, each further
block is accumulated with ``pl.matmul_acc``; K comes from the operand's shape."""

import torch

import pypto.language as pl
from pypto.interp.tolerance import output_tolerances

BLOCK = 128


@pl.jit
def matmul_acc(a: pl.Tensor, b: pl.Tensor, c: pl.Out[pl.Tensor]):
    K = a.shape[1]
    with pl.at(level=pl.Level.CORE_GROUP):
        acc = pl.matmul(a[:, 0:BLOCK], b[0:BLOCK, :], out_dtype=pl.FP32)
        for k in pl.range(1, K // BLOCK):
            acc = pl.matmul_acc(acc, a[:, k * BLOCK : k * BLOCK + BLOCK], b[k * BLOCK : k * BLOCK + BLOCK, :])
        c[:] = acc
    return c


def check() -> None:
    a = torch.randn(64, 512, dtype=torch.float16)
    b = torch.randn(512, 64, dtype=torch.float16)
    c = torch.zeros(64, 64)
    matmul_acc(a, b, c)
    compiled = matmul_acc.compile(a, b, c)  # the cached program the call ran
    rtol, atol = output_tolerances(compiled.program, compiled.entry_function())["c"]  # docs/cli.md#tolerances
    # the reference sums in float64 and rounds once, as the interpreter does
    torch.testing.assert_close(c, (a.double() @ b.double()).float(), rtol=rtol, atol=atol)


if __name__ == "__main__":
    check()
    print("matmul_acc: ok")
