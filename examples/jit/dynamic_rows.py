"""@pl.jit with a dynamic row count: ``pl.dynamic`` in the annotation keeps the dim symbolic, so one
compile serves every row count (a multiple of the 16-row block here)."""

import torch

import pypto.language as pl

ROWS = pl.dynamic("ROWS")


@pl.jit
def exp_rows(a: pl.Tensor[[ROWS, 64], pl.FP32], c: pl.Out[pl.Tensor[[ROWS, 64], pl.FP32]]):
    for i in pl.range(0, a.shape[0], 16):
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(a, [i, 0], [16, 64])
            pl.store(pl.exp(t), [i, 0], c)
    return c


def check() -> None:
    for rows in (32, 96):
        a, c = torch.rand(rows, 64), torch.zeros(rows, 64)
        exp_rows(a, c)
        torch.testing.assert_close(c, torch.exp(a))


if __name__ == "__main__":
    check()
    print("dynamic_rows: ok")
