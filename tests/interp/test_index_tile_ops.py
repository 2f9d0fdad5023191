"""tile.gather / tile.gatherb / tile.scatter semantics: pto-isa a2a3 addressing, exact values, refused indices."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from interp_ir import op_function, tensor_t, tile_t

from pypto import ir
from pypto.interp import run
from pypto.ir import DataType as D


def run_op(op: str, operands: list[Any], inputs: list[Any]) -> Any:
    return run(op_function(op, operands), *inputs).value


def test_gather_indexes_the_source_flat_over_its_whole_static_shape() -> None:
    src = (np.arange(32, dtype=np.float32) * 1.5).reshape(4, 8)
    idx = np.array([[31, 0, 8, 8], [9, 1, 30, 7]], dtype=np.int32)
    got = run_op("tile.gather", [tile_t([4, 8]), tile_t([2, 4], D.INT32), tile_t([2, 4], D.INT32)],
                 [src, idx, np.zeros((2, 4), np.int32)])
    np.testing.assert_array_equal(got, [[46.5, 0.0, 12.0, 12.0], [13.5, 1.5, 45.0, 10.5]])


def test_gather_refuses_an_index_past_the_source() -> None:
    idx = np.array([[0, 1, 2, 32]], dtype=np.int32)
    with pytest.raises(ir.PyptoError, match=r"indices\[0, 3\] = 32 is outside the 32 elements it addresses"):
        run_op("tile.gather", [tile_t([4, 8]), tile_t([1, 4], D.INT32), tile_t([1, 4], D.INT32)],
               [np.zeros((4, 8), np.float32), idx, np.zeros((1, 4), np.int32)])


def test_gather_refuses_a_negative_index() -> None:
    idx = np.array([[0, -3]], dtype=np.int32)
    with pytest.raises(ir.PyptoError, match=r"indices\[0, 1\] = -3 is outside the 32 elements it addresses"):
        run_op("tile.gather", [tile_t([4, 8]), tile_t([1, 2], D.INT32), tile_t([1, 2], D.INT32)],
               [np.zeros((4, 8), np.float32), idx, np.zeros((1, 2), np.int32)])


def test_scatter_zeroes_the_destination_and_keeps_the_last_of_duplicate_indices() -> None:
    dst = np.full((2, 4), 9.0, dtype=np.float32)
    src = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=np.float32)
    idx = np.array([[7, 0, 3], [0, 5, 3]], dtype=np.int32)
    got = run_op("tile.scatter", [tile_t([2, 4]), tile_t([2, 3]), tile_t([2, 3], D.INT32)], [dst, src, idx])
    np.testing.assert_array_equal(got, [[4.0, 0.0, 0.0, 6.0], [0.0, 5.0, 0.0, 1.0]])


def test_scatter_refuses_an_index_past_the_destination() -> None:
    idx = np.array([[0, 8]], dtype=np.int16)
    with pytest.raises(ir.PyptoError, match=r"indexes\[0, 1\] = 8 is outside the 8 elements it addresses"):
        run_op("tile.scatter", [tile_t([2, 4], D.INT8), tile_t([1, 2], D.INT8), tile_t([1, 2], D.INT16)],
               [np.zeros((2, 4), np.int8), np.ones((1, 2), np.int8), idx])


def test_gatherb_copies_the_32_byte_block_at_each_byte_offset() -> None:
    src = np.arange(64, dtype=np.int32).reshape(4, 16)  # 8 blocks of 8 int32
    offs = np.array([[224, 0, 32, 32, 64, 96, 128, 160]], dtype=np.uint32)
    got = run_op("tile.gatherb", [tile_t([4, 16], D.INT32), tile_t([1, 8], D.UINT32)], [src, offs])
    blocks = [7, 0, 1, 1, 2, 3, 4, 5]
    np.testing.assert_array_equal(got, np.concatenate([np.arange(8 * b, 8 * b + 8) for b in blocks]).reshape(1, 64))


def test_gatherb_refuses_an_offset_whose_block_leaves_the_source() -> None:
    offs = np.array([[0, 0, 0, 0, 0, 0, 0, 240]], dtype=np.uint32)
    with pytest.raises(ir.PyptoError, match=r"offset\[0, 7\] = 240 is outside \[0, 224\], "
                                            r"where a 32-byte block of the 256-byte src starts"):
        run_op("tile.gatherb", [tile_t([4, 16], D.INT32), tile_t([1, 8], D.UINT32)],
               [np.zeros((4, 16), np.int32), offs])


def test_gatherb_refuses_an_offset_inside_a_block() -> None:
    offs = np.array([[0, 0, 0, 0, 4, 0, 0, 0]], dtype=np.uint32)
    with pytest.raises(ir.PyptoError, match=r"offset\[0, 4\] = 4 is not a multiple of the 32-byte block"):
        run_op("tile.gatherb", [tile_t([4, 16], D.INT32), tile_t([1, 8], D.UINT32)],
               [np.zeros((4, 16), np.int32), offs])


def test_mscatter_writes_elements_into_the_tensor_flat_and_leaves_the_rest() -> None:
    out = np.full((2, 4), 9.0, dtype=np.float32)
    src = np.array([[1.0, 2.0], [3.0, 4.0]], dtype=np.float32)
    idx = np.array([[7, 0], [2, 7]], dtype=np.int32)
    got = run_op("tile.mscatter", [tile_t([2, 2]), tile_t([2, 2], D.INT32), tensor_t([2, 4])], [src, idx, out])
    np.testing.assert_array_equal(got, [[2.0, 9.0, 3.0, 9.0], [9.0, 9.0, 9.0, 4.0]])


def test_mscatter_refuses_an_index_past_the_tensor() -> None:
    idx = np.array([[3, 8]], dtype=np.uint32)
    with pytest.raises(ir.PyptoError, match=r"idx\[0, 1\] = 8 is outside the 8 elements it addresses"):
        run_op("tile.mscatter", [tile_t([1, 2]), tile_t([1, 2], D.UINT32), tensor_t([2, 4])],
               [np.ones((1, 2), np.float32), idx, np.zeros((2, 4), np.float32)])
