"""@pl.jit: c = alpha * a + SCALE * b on one CORE_GROUP block. The shape is read from the tensors
(``M, N = a.shape`` folds), ``alpha`` and the module constant ``SCALE`` fold into the kernel."""

import torch

import pypto.language as pl

SCALE = 0.5


@pl.jit
def scaled_add(a: pl.Tensor, b: pl.Tensor, c: pl.Out[pl.Tensor], alpha: pl.FP32):
    M, N = a.shape
    with pl.at(level=pl.Level.CORE_GROUP):
        x = pl.load(a, [0, 0], [M, N])
        y = pl.load(b, [0, 0], [M, N])
        pl.store(pl.add(pl.mul(x, alpha), pl.mul(y, SCALE)), [0, 0], c)
    return c


def check() -> None:
    a, b, c = torch.rand(64, 64), torch.rand(64, 64), torch.zeros(64, 64)
    scaled_add(a, b, c, 2.0)
    torch.testing.assert_close(c, 2.0 * a + SCALE * b)


if __name__ == "__main__":
    check()
    print("elementwise: ok")
