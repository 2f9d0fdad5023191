"""``@pl.jit`` kernels the JIT tests specialise (kept in a file: the JIT reads their source)."""

from __future__ import annotations

import pypto.language as pl

SCALE = 2.0
ROWS = pl.dynamic("ROWS")


@pl.jit
def scaled_add(a: pl.Tensor, b: pl.Tensor, c: pl.Out[pl.Tensor], alpha: pl.FP32):
    M, N = a.shape
    with pl.at(level=pl.Level.CORE_GROUP):
        x = pl.load(a, [0, 0], [M, N])
        y = pl.load(b, [0, 0], [M, N])
        pl.store(pl.add(pl.mul(x, alpha), pl.mul(y, SCALE)), [0, 0], c)
    return c


@pl.jit
def shift_scaled(x: pl.Tensor, tmp: pl.Out[pl.Tensor], y: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.load(x, [0, 0], [64, 64])
        pl.store(pl.mul(t, 3.0), [0, 0], tmp)
    with pl.at(level=pl.Level.CORE_GROUP):
        u = pl.load(tmp, [0, 0], [64, 64])
        pl.store(pl.add(u, 1.0), [0, 0], y)
    return y


@pl.jit
def dtype_and_dims(a: pl.Tensor, c: pl.Out[pl.Tensor]):
    K = a.shape[1]
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.load(a, [0, 0], [a.shape[0], K])
        pl.store(pl.cast(pl.cast(t, pl.FP16), a.dtype), [0, 0], c)
    return c


@pl.jit
def dyn_rows(a: pl.Tensor[[ROWS, 64], pl.FP32], c: pl.Out[pl.Tensor[[ROWS, 64], pl.FP32]]):
    n = a.shape[0]
    for i in pl.range(0, n, 16):
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(a, [i, 0], [16, 64])
            pl.store(pl.exp(t), [i, 0], c)
    return c


@pl.jit
def bound_rows(a: pl.Tensor, c: pl.Out[pl.Tensor]):
    R = pl.dynamic("R")
    a.bind_dynamic(0, R)
    c.bind_dynamic(0, R)
    for i in pl.range(0, a.shape[0], 16):
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(a, [i, 0], [16, 64])
            pl.store(pl.add(t, t), [i, 0], c)
    return c


@pl.jit
def bound_rows_tail(a: pl.Tensor, c: pl.Out[pl.Tensor]):
    R = pl.dynamic("R")
    a.bind_dynamic(0, R)
    c.bind_dynamic(0, R)
    for i in pl.range(0, R, 32):
        rows = pl.min(32, R - i)
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(a, [i, 0], [32, 64], valid_shape=[rows, 64])
            pl.store(pl.add(t, t), [i, 0], c)
    return c


@pl.jit.incore
def add_block(x: pl.Tensor, acc: pl.InOut[pl.Tensor], row: pl.Scalar[pl.INDEX]):
    t = pl.load(x, [row, 0], [16, 64])
    a = pl.load(acc, [row, 0], [16, 64])
    pl.store(pl.add(a, t), [row, 0], acc)
    return acc


@pl.jit
def submitted_chain(x: pl.Tensor, acc: pl.InOut[pl.Tensor]):
    with pl.manual_scope():
        prev = None
        for b in pl.range(4):
            acc, prev = pl.submit(add_block, x, acc, b * 16, deps=[prev])
    return acc


@pl.jit.inline
def double(t: pl.Tile[[32, 64], pl.FP32]) -> pl.Tile[[32, 64], pl.FP32]:
    return pl.add(t, t)


@pl.jit.incore
def add_rows(a: pl.Tensor, b: pl.Tensor, c: pl.Out[pl.Tensor]):
    x = pl.load(a, [0, 0], [32, 64])
    y = pl.load(b, [0, 0], [32, 64])
    d = double(pl.add(x, y))
    pl.store(d, [0, 0], c)
    return c


@pl.jit
def with_helpers(a: pl.Tensor, b: pl.Tensor, c: pl.Out[pl.Tensor]):
    c = add_rows(a, b, c=c)
    return c


@pl.jit
def typed(a: pl.Tensor[[32, 64], pl.FP32], c: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.load(a, [0, 0], [32, 64])
        pl.store(t, [0, 0], c)
    return c


@pl.jit
def bad_body(a: pl.Tensor, c: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.load(a, [0, 0], [32, 64])
        pl.store(pl.no_such_op(t), [0, 0], c)
    return c


@pl.jit
def runtime_n(a: pl.Tensor[[32, 64], pl.FP32], c: pl.Out[pl.Tensor[[32, 64], pl.FP32]], n: pl.FP32 = pl.RUNTIME):
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.load(a, [0, 0], [32, 64])
        pl.store(pl.mul(t, n), [0, 0], c)
    return c


@pl.jit
def orphan_call(a: pl.Tensor, b: pl.Tensor):
    t = pl.create_tensor([32, 64], dtype=pl.FP32)
    t = add_rows(a, b, pl.add(t, t))
    return t


@pl.jit
def needs_n(a: pl.Tensor[[32, 64], pl.FP32], c: pl.Out[pl.Tensor[[32, 64], pl.FP32]], n: pl.FP32):
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.load(a, [0, 0], [32, 64])
        pl.store(pl.mul(t, n), [0, 0], c)
    return c


@pl.jit
def recast(a: pl.Tensor, c: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        x = pl.load(a, [0, 0], [32, 64])
        x = pl.cast(x, pl.FP16)
        x = pl.add(x, x)
        pl.store(x, [0, 0], c)
    return c


@pl.jit
def recast_wrong(a: pl.Tensor, c: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        x = pl.load(a, [0, 0], [32, 64])
        x = pl.cast(x, pl.FP16)
        for i in pl.range(2):
            x = pl.cast(x, pl.FP32)
        pl.store(x, [0, 0], c)
    return c


def scaler(k: float) -> pl.JITFunction:
    """A kernel per factor: ``k`` is a closure constant of the body."""

    @pl.jit
    def scale(a: pl.Tensor, c: pl.Out[pl.Tensor]):
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(a, [0, 0], [32, 64])
            pl.store(pl.mul(t, k), [0, 0], c)
        return c

    return scale


@pl.jit.inline
def store_into(t: pl.Tile[[32, 64], pl.FP32], c: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
    c = pl.store(t, [0, 0], c)
    return c


@pl.jit
def via_inline_out(a: pl.Tensor, c: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.load(a, [0, 0], [32, 64])
        c = store_into(t, c)
    return c


@pl.jit
def through_scratch(a: pl.Tensor, b: pl.Tensor, c: pl.Out[pl.Tensor]):
    M, N = a.shape
    tmp = pl.create_tensor([M, N * 1], dtype=a.dtype)
    tmp = add_rows(a, b, tmp)
    c = add_rows(tmp, b, c)
    return c


GAIN = 4.0


@pl.jit.incore
def gained(a: pl.Tensor, c: pl.Out[pl.Tensor]):
    t = pl.load(a, [0, 0], [32, 64])
    pl.store(pl.mul(t, GAIN), [0, 0], c)
    return c


@pl.jit
def calls_gained(a: pl.Tensor, c: pl.Out[pl.Tensor]):
    c = gained(a, c)
    return c


@pl.jit
def wrong_keyword(a: pl.Tensor, b: pl.Tensor, c: pl.Out[pl.Tensor]):
    c = add_rows(a, b, out=c)
    return c


@pl.jit
def through_views(a: pl.Tensor, c: pl.Out[pl.Tensor]):
    top = pl.slice(a, [32, 64], [0, 0])
    bottom = a[32:64, :]
    c = add_rows(top, bottom, c)
    return c


@pl.jit
def through_reshape(b: pl.Tensor, c: pl.Out[pl.Tensor]):
    flat = pl.reshape(b, [32, 64])
    c = add_rows(flat, flat, c)
    return c


@pl.jit.incore
def halves(a: pl.Tensor, lo: pl.Out[pl.Tensor], hi: pl.Out[pl.Tensor]):
    t = pl.load(a, [0, 0], [32, 64])
    lo = pl.store(t, [0, 0], lo)
    hi = pl.store(pl.add(t, t), [0, 0], hi)
    return lo, hi


@pl.jit
def through_tuple(a: pl.Tensor, lo: pl.Out[pl.Tensor], hi: pl.Out[pl.Tensor], c: pl.Out[pl.Tensor]):
    x, y = halves(a, lo, hi)
    c = add_rows(x, y, c)
    return c


@pl.jit
def loop_local(a: pl.Tensor, c: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        for i in pl.range(2):
            t = pl.load(a, [0, 0], [32, 64])
            t = pl.add(t, t)
        pl.store(t, [0, 0], c)
    return c


@pl.jit
def loop_scratch(a: pl.Tensor, b: pl.Out[pl.Tensor], c: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.load(a, [0, 0], [32, 64])
        pl.store(pl.add(t, t), [0, 0], b)
        for i in pl.range(2):
            t = pl.load(a, [i * 16, 0], [16, 64])  # a new shape: a fresh local of the loop
            pl.store(pl.mul(t, 3.0), [i * 16, 0], c)
    return c


@pl.jit
def two_outputs(x: pl.Tensor, partial: pl.Out[pl.Tensor], out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.load(x, [0, 0], [16, 64])
        pl.store(pl.col_sum(t), [0, 0], partial)
        pl.store(pl.col_max(t), [0, 0], out)
    return partial, out
