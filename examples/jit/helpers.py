"""@pl.jit with helpers: an ``@pl.jit.incore`` kernel called from the entry, which itself expands an
``@pl.jit.inline`` helper. Each helper is specialised from its call site and compiled into the
entry's program."""

import torch

import pypto.language as pl


@pl.jit.inline
def relu(t: pl.Tile[[32, 64], pl.FP32]) -> pl.Tile[[32, 64], pl.FP32]:
    return pl.maximum(t, pl.mul(t, 0.0))


@pl.jit.incore
def add_relu(a: pl.Tensor, b: pl.Tensor, c: pl.Out[pl.Tensor]):
    x = pl.load(a, [0, 0], [32, 64])
    y = pl.load(b, [0, 0], [32, 64])
    r = relu(pl.add(x, y))
    pl.store(r, [0, 0], c)
    return c


@pl.jit
def fused(a: pl.Tensor, b: pl.Tensor, c: pl.Out[pl.Tensor]):
    c = add_relu(a, b, c)
    return c


def check() -> None:
    a, b, c = torch.randn(32, 64), torch.randn(32, 64), torch.zeros(32, 64)
    fused(a, b, c)
    torch.testing.assert_close(c, torch.relu(a + b))


if __name__ == "__main__":
    check()
    print("helpers: ok")
