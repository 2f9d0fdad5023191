"""@pl.jit: softmax of each row of a tile; ``x.dtype`` and the shape come from the argument."""

import torch

import pypto.language as pl


@pl.jit
def row_softmax(x: pl.Tensor, y: pl.Out[pl.Tensor]):
    rows, cols = x.shape
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.load(x, [0, 0], [rows, cols])
        scratch = pl.create_tile([rows, cols], dtype=x.dtype, target_memory=pl.Mem.Vec)
        shifted = pl.row_expand_sub(t, pl.row_max(t, scratch))
        e = pl.exp(shifted)
        pl.store(pl.row_expand_div(e, pl.row_sum(e, scratch)), [0, 0], y)
    return y


def check() -> None:
    x, y = torch.randn(64, 64), torch.zeros(64, 64)
    row_softmax(x, y)
    torch.testing.assert_close(y, torch.softmax(x, dim=1))


if __name__ == "__main__":
    check()
    print("softmax: ok")
