"""Issue 33 item 7: argument forms and type rules of the established gather/scatter, gemv, view and assemble ops."""

from __future__ import annotations

import numpy as np
import pytest
from pypto.interp import run

import pypto.language as pl
from pypto import ir
from pypto.ir.op import tensor as T
from pypto.ir.op import tile as L

D, Mem = ir.DataType, ir.MemorySpace


def tensor(name: str, shape: list[int], dtype: ir.DataType = D.FP32) -> ir.Var:
    return ir.Var(name, ir.TensorType(shape, dtype))


def tile(name: str, shape: list[int], dtype: ir.DataType = D.FP32, space: ir.MemorySpace = Mem.Vec) -> ir.Var:
    return ir.Var(name, ir.TileType(shape, dtype, None, None, space))


# ---------------------------------------------------------------- scatter_update argument orders


@pytest.mark.parametrize("ns, make", [(T, tensor), (L, tile)])
def test_scatter_update_takes_dim_first_or_as_keyword(ns, make) -> None:
    x, ix, rows = make("x", [16, 64]), make("ix", [4, 1], D.INT32), make("rows", [4, 64])
    leaf = "tensor" if ns is T else "tile"
    want = f"pl.{leaf}.scatter_update(x, ix, rows, dim=-2)"
    assert str(ns.scatter_update(x, -2, ix, rows)) == want
    assert str(ns.scatter_update(x, ix, rows, dim=-2)) == want
    assert str(ns.scatter_update(x, ix, rows)) == want
    with pytest.raises(TypeError, match="dim given both positionally and as dim="):
        ns.scatter_update(x, -2, ix, rows, dim=-2)


SCATTER_UPDATE = """
@pl.program
class P:
    @pl.function(type=pl.FunctionType.Opaque)
    def main(self, x: pl.Tensor[[16, 64], pl.FP32], i: pl.Tensor[[4, 1], pl.INT32],
             s: pl.Tensor[[4, 64], pl.FP32]) -> pl.Tensor[[16, 64], pl.FP32]:
        y = pl.scatter_update(x, -2, i, s)
        return y
"""


def test_scatter_update_dim_first_parses_and_writes_the_indexed_rows() -> None:
    prog = pl.parse(SCATTER_UPDATE)
    assert "pl.tensor.scatter_update(x, i, s, dim=-2)" in str(prog)
    x = np.zeros((16, 64), np.float32)
    i = np.array([[3], [1], [7], [0]], np.int32)
    s = np.arange(4 * 64, dtype=np.float32).reshape(4, 64) + 1
    (got,) = run(prog, x, i, s).returns
    want = x.copy()
    want[i[:, 0]] = s
    np.testing.assert_array_equal(got, want)
