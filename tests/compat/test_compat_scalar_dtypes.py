"""Scalar operands take the source's dtype (issue 33 item 5): integer constants wrap to its width,
``sels`` checks its scalar against the src dtype, and ``tensor.write`` / ``tile.write`` take an INDEX scalar."""

from __future__ import annotations

import numpy as np
import pytest

import pypto.language as pl
from pypto import ir
from pypto.interp import run
from pypto.ir.op import tensor as T
from pypto.ir.op import tile as L

D, Mem = ir.DataType, ir.MemorySpace
MASK = ir.Var("m", ir.TileType([16, 8], D.UINT8, None, None, Mem.Vec))


def tile(dtype: ir.DataType) -> ir.Var:
    return ir.Var("t", ir.TileType([16, 64], dtype, None, None, Mem.Vec))


def tensor(dtype: ir.DataType) -> ir.Var:
    return ir.Var("x", ir.TensorType([16, 64], dtype))


@pytest.mark.parametrize(("build", "text"), [
    (lambda: L.adds(tile(D.INT8), 300), "pl.tile.adds(t, pl.const(44, pl.INT8))"),
    (lambda: L.subs(tile(D.INT16), -32769), "pl.tile.subs(t, pl.const(32767, pl.INT16))"),
    (lambda: L.muls(tile(D.UINT8), -1), "pl.tile.muls(t, pl.const(255, pl.UINT8))"),
    (lambda: L.maximums(tile(D.INT32), 2**31), "pl.tile.maximums(t, pl.const(-2147483648, pl.INT32))"),
    (lambda: L.ands(tile(D.UINT16), 0x1FFFF), "pl.tile.ands(t, pl.const(65535, pl.UINT16))"),
    (lambda: T.subs(tensor(D.INT32), 2**32 + 5), "pl.tensor.subs(x, pl.const(5, pl.INT32))"),
    (lambda: T.adds(tensor(D.UINT32), -2), "pl.tensor.adds(x, pl.const(4294967294, pl.UINT32))"),
    (lambda: L.adds(tile(D.FP16), 3), "pl.tile.adds(t, pl.const(3.0, pl.FP16))"),
])
def test_integer_constants_take_the_source_dtype_and_wrap(build, text: str) -> None:
    assert ir.python_print(build()) == text


@pytest.mark.parametrize(("src", "value", "text"), [
    (D.UINT8, 255, "pl.const(-1, pl.INT8)"),
    (D.UINT16, 65535, "pl.const(-1, pl.INT16)"),
    (D.INT32, 2**32 - 1, "pl.const(-1, pl.INT32)"),
    (D.FP16, -1.5, "pl.const(-1.5, pl.FP16)"),
    (D.FP32, 2, "2.0"),
])
def test_sels_scalar_takes_the_src_dtype_or_its_signed_twin(src: ir.DataType, value: float, text: str) -> None:
    call = L.sels(MASK, tile(src), tile(src), value)
    assert ir.python_print(call.args[3]) == text
    assert call.type.dtype == src


@pytest.mark.parametrize(("src", "value", "got"), [
    (D.INT16, 1.5, "FP32"),
    (D.FP16, ir.Var("s", ir.ScalarType(D.FP32)), "FP32"),
    (D.INT32, ir.Var("s", ir.ScalarType(D.INT16)), "INT16"),
    (D.UINT8, ir.Var("s", ir.ScalarType(D.UINT16)), "UINT16"),
    (D.INT8, True, "BOOL"),
])
def test_sels_refuses_a_scalar_of_another_dtype(src: ir.DataType, value: object, got: str) -> None:
    with pytest.raises(ir.IRValueError,
                       match=rf"'tile.sels': scalar dtype {got} must be the 'src' dtype {src.name} \(hint: cast"):
        L.sels(MASK, tile(src), tile(src), value)


def test_tensor_write_casts_an_index_scalar_to_an_integer_element_dtype() -> None:
    i = ir.Var("i", ir.ScalarType(D.INDEX))
    call = T.write(tensor(D.INT32), [0, 1], i)
    assert ir.python_print(call) == "pl.tensor.write(x, [0, 1], pl.cast(i, pl.INT32))"
    with pytest.raises(ir.IRValueError, match="Scalar operand has dtype `index`"):
        T.write(tensor(D.FP32), [0, 1], i)


def test_tile_write_takes_an_index_scalar_as_tensor_write_does() -> None:
    i = ir.Var("i", ir.ScalarType(D.INDEX))
    call = L.write(tile(D.INT16), [0, 1], i)
    assert ir.python_print(call) == "pl.tile.write(t, [0, 1], pl.cast(i, pl.INT16))"
    assert call.type == tile(D.INT16).type
    with pytest.raises(ir.IRValueError, match="Scalar operand has dtype `index`"):
        L.write(tile(D.FP32), [0, 1], i)



def test_an_index_scalar_written_into_an_index_tensor_is_not_cast() -> None:
    i = ir.Var("i", ir.ScalarType(D.INDEX))
    assert ir.python_print(T.write(tensor(D.INDEX), [0, 1], i)) == "pl.tensor.write(x, [0, 1], i)"


@pl.program
class WriteIndex:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, out: pl.Out[pl.Tensor[[8], pl.INT64]]) -> pl.Tensor[[8], pl.INT64]:
        for i in pl.range(8):
            out = pl.tensor.write(out, [i], i * 3)
        return out


def test_an_index_scalar_written_to_a_tensor_round_trips_and_interprets() -> None:
    printed = WriteIndex.as_python()
    assert "out: pl.Tensor[[8], pl.INT64] = pl.tensor.write(out, [i], pl.cast(i * 3, pl.INT64))" in printed
    ir.assert_structural_equal(pl.parse(printed), WriteIndex)
    assert run(WriteIndex, np.zeros(8, np.int64)).value.tolist() == [3 * k for k in range(8)]
