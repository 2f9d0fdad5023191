"""Issue 13: exception classes, added checks and semantics the established API has."""

from __future__ import annotations

import numpy as np
import pytest
from pypto.interp import run
from pypto.language.parser.diagnostics import ParserSyntaxError, ParserTypeError

import pypto.language as pl
from pypto import ir


def test_a_wrong_operand_type_is_a_value_error_too() -> None:
    tile = ir.Var("t", ir.TileType([16, 16], ir.FP32, memory_space=ir.MemorySpace.Vec))
    tensor = ir.Var("x", ir.TensorType([16, 16], ir.FP32))
    with pytest.raises(ValueError, match="Operator 'tile.add'") as info:
        ir.op.tile.add(tile, tensor)
    assert isinstance(info.value, TypeError) and isinstance(info.value, ir.PyptoError)


def test_a_misplaced_keyword_on_spmd_is_a_syntax_error() -> None:
    text = """
@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        with pl.spmd(4, chunk=2):
            y = pl.add(x, x)
        return x
"""
    with pytest.raises(ParserSyntaxError, match="pl.spmd: got an unexpected keyword argument 'chunk'") as info:
        pl.parse(text)
    assert not isinstance(info.value, ParserTypeError)


def test_negative_slice_offsets_are_refused() -> None:
    t = ir.Var("t", ir.TensorType([8, 8], ir.FP32))
    with pytest.raises(ir.IRValueError, match="'offset' must not be negative; axis 1 has offset -2"):
        ir.op.tensor.slice(t, [4, 4], [0, -2])
    assert str(ir.op.tensor.slice(t, [4, 4], [4, 0]).type) == "pl.Tensor[[4, 4], pl.FP32]"


def test_sqrt_of_an_integer_tensor_is_fp32() -> None:
    x = ir.Var("x", ir.TensorType([4], ir.INT32))
    assert ir.op.tensor.sqrt(x).type.dtype is ir.FP32
    h = ir.Var("h", ir.TensorType([4], ir.FP16))
    assert ir.op.tensor.sqrt(h).type.dtype is ir.FP16
    f = pl.parse(
        """
@pl.function
def f(x: pl.Tensor[[4], pl.INT32]) -> pl.Tensor[[4], pl.FP32]:
    y = pl.sqrt(x)
    return y
"""
    )
    (got,) = run(f, np.array([1, 4, 9, 2], dtype=np.int32)).returns
    np.testing.assert_allclose(got, np.sqrt([1, 4, 9, 2]).astype(np.float32))
    assert got.dtype == np.float32
