"""@pl.jit: three ``pl.at`` scopes, each one task. A bare ``pl.store`` into ``tmp`` makes it an output
of its task, so the next scope reads the new version and waits for the writer (spec/runtime.md §6)."""

import torch

import pypto.language as pl


@pl.jit
def shift_scaled(x: pl.Tensor, tmp: pl.Out[pl.Tensor], y: pl.Out[pl.Tensor], z: pl.Out[pl.Tensor]):
    n, m = x.shape
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.load(x, [0, 0], [n, m])
        pl.store(pl.mul(t, 3.0), [0, 0], tmp)
    with pl.at(level=pl.Level.CORE_GROUP):
        u = pl.load(tmp, [0, 0], [n, m])
        pl.store(pl.add(u, 1.0), [0, 0], y)
    with pl.at(level=pl.Level.CORE_GROUP):
        v = pl.load(tmp, [0, 0], [n, m])
        w = pl.load(y, [0, 0], [n, m])
        pl.store(pl.mul(v, w), [0, 0], z)
    return z


def check() -> None:
    x = torch.rand(32, 64)
    tmp, y, z = torch.zeros(32, 64), torch.zeros(32, 64), torch.zeros(32, 64)
    shift_scaled(x, tmp, y, z)
    torch.testing.assert_close(z, (3 * x) * (3 * x + 1))


if __name__ == "__main__":
    check()
    print("task_graph: ok")
