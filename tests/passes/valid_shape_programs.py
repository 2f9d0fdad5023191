"""Programs whose functions take tensors with a dynamic valid region (``pl.TensorView(valid_shape=[M, 64])``
taken from the caller's slices): the preservation cases of MaterializeValidShapeSymbols."""

from __future__ import annotations

import pypto.language as pl

M = pl.dynamic("M")
C = pl.dynamic("C")
N = pl.dynamic("N")



@pl.program
class ValidRowsKernel:
    """An explicit kernel over a 32-row block of which M rows are valid; the tail block has 16."""

    @pl.function(type=pl.FunctionType.InCore)
    def k(self,
          x: pl.Tensor[[32, 64], pl.FP32,
                       pl.TensorView(valid_shape=[M, 64], stride=[], layout=pl.TensorLayout.ND)],
          row: pl.Scalar[pl.INDEX],
          out: pl.InOut[pl.Tensor[[N, 64], pl.FP32]]) -> pl.Tensor[[N, 64], pl.FP32]:
        t: pl.Tile[[32, 64], pl.FP32] = pl.load(x, [0, 0], [32, 64])
        out = pl.store(pl.exp(t), [row, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[N, 64], pl.FP32],
             out: pl.Out[pl.Tensor[[N, 64], pl.FP32]]) -> pl.Tensor[[N, 64], pl.FP32]:
        for i in pl.range(0, N, 32):
            rows: pl.Scalar[pl.INDEX] = pl.min(32, N - i)
            xs = pl.slice(x, [32, 64], [i, 0], valid_shape=[rows, 64])
            out = self.k(xs, i, out)
        return out


@pl.program
class ValidColsKernel:
    """Columns of a tensor with a dynamic row length N, 64 at a time; C of the last block's are valid."""

    @pl.function(type=pl.FunctionType.InCore)
    def k(self,
          x: pl.Tensor[[16, 64], pl.FP32,
                       pl.TensorView(valid_shape=[16, C], stride=[], layout=pl.TensorLayout.ND)],
          col: pl.Scalar[pl.INDEX],
          out: pl.InOut[pl.Tensor[[16, N], pl.FP32]]) -> pl.Tensor[[16, N], pl.FP32]:
        t: pl.Tile[[16, 64], pl.FP32] = pl.load(x, [0, 0], [16, 64])
        out = pl.store(pl.add(t, t), [0, col], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, N], pl.FP32],
             out: pl.Out[pl.Tensor[[16, N], pl.FP32]]) -> pl.Tensor[[16, N], pl.FP32]:
        for j in pl.range(0, N, 64):
            cols: pl.Scalar[pl.INDEX] = pl.min(64, N - j)
            xs = pl.slice(x, [16, 64], [0, j], valid_shape=[16, cols])
            out = self.k(xs, j, out)
        return out


@pl.program
class ValidRowsTwoInputs:
    """Two parameters valid in the same M rows; the caller's extent is an expression, computed before the call."""

    @pl.function(type=pl.FunctionType.InCore)
    def k(self,
          x: pl.Tensor[[32, 64], pl.FP32,
                       pl.TensorView(valid_shape=[M, 64], stride=[], layout=pl.TensorLayout.ND)],
          y: pl.Tensor[[32, 64], pl.FP32,
                       pl.TensorView(valid_shape=[M, 64], stride=[], layout=pl.TensorLayout.ND)],
          row: pl.Scalar[pl.INDEX],
          out: pl.InOut[pl.Tensor[[N, 64], pl.FP32]]) -> pl.Tensor[[N, 64], pl.FP32]:
        t: pl.Tile[[32, 64], pl.FP32] = pl.load(x, [0, 0], [32, 64])
        u: pl.Tile[[32, 64], pl.FP32] = pl.load(y, [0, 0], [32, 64])
        out = pl.store(pl.mul(t, u), [row, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[N, 64], pl.FP32], y: pl.Tensor[[N, 64], pl.FP32],
             out: pl.Out[pl.Tensor[[N, 64], pl.FP32]]) -> pl.Tensor[[N, 64], pl.FP32]:
        for i in pl.range(0, N, 32):
            xs = pl.slice(x, [32, 64], [i, 0], valid_shape=[pl.min(32, N - i), 64])
            ys = pl.slice(y, [32, 64], [i, 0], valid_shape=[pl.min(32, N - i), 64])
            out = self.k(xs, ys, i, out)
        return out
