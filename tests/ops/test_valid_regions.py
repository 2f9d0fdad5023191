"""Issue 33 item 6: how valid regions flow through writes (assemble, store), slices and reshapes."""

from __future__ import annotations

import pytest

from pypto import ir
from pypto.ir.ops.regions import RegionError, reshaped_box, written_union

T, L = ir.op.tensor, ir.op.tile
N = ir.Var("n", ir.ScalarType(ir.DataType.INDEX))


def tensor(name: str, shape: list, valid: list | None = None, pad: ir.PadValue = ir.PadValue.null) -> ir.Var:
    if valid is None and pad == ir.PadValue.null:
        return ir.Var(name, ir.TensorType(shape, ir.FP32))
    view = ir.TensorView(stride=[], layout=ir.TensorLayout.ND, valid_shape=valid or [], pad=pad)
    return ir.Var(name, ir.TensorType(shape, ir.FP32, None, view))


def tile(name: str, shape: list, valid: list | None = None, pad: ir.PadValue = ir.PadValue.null) -> ir.Var:
    view = ir.TileView(valid_shape=valid, pad=pad) if valid is not None or pad != ir.PadValue.null else None
    return ir.Var(name, ir.TileType(shape, ir.FP32, None, view, ir.Mem.Vec))


def printed(e: ir.Expr) -> str:
    return ir.python_print_type(e.type)


# ---------------------------------------------------------------- writes: the union of the written regions


@pytest.mark.parametrize(("valid", "offsets", "sizes", "union"), [
    ([8, 16], [8, 0], [8, 16], (16, 16)),  # rows appended
    ([16, 8], [0, 8], [16, 8], (16, 16)),  # columns appended
    ([8, 16], [4, 0], [8, 16], (12, 16)),  # overlapping
    ([8, 16], [0, 0], [4, 8], (8, 16)),  # inside
    ([0, 16], [0, 0], [4, 16], (4, 16)),  # the first write
    ([8, 8], [0, 0], [16, 16], (16, 16)),  # covering
    ([8, 16], [8, 0], [0, 16], (8, 16)),  # nothing written
])
def test_written_union(valid: list, offsets: list, sizes: list, union: tuple) -> None:
    assert written_union(valid, offsets, sizes) == union


@pytest.mark.parametrize(("valid", "offsets", "sizes", "message"), [
    ([4, 16], [8, 0], [8, 16], "leaves a gap after the target's valid region [4, 16]: axis 0 is valid up to 4"),
    ([8, 16], [8, 0], [8, 8], "would make the valid region L-shaped"),
    ([8, 16], [0, 0], [16, 8], "would make the valid region L-shaped"),
    ([0, 16], [4, 0], [4, 16], "is empty, so a write at offsets [4, 0] leaves a gap before it"),
])
def test_written_union_refuses_a_region_that_is_not_a_box(valid: list, offsets: list, sizes: list,
                                                           message: str) -> None:
    with pytest.raises(RegionError, match=message.replace("[", r"\[").replace("]", r"\]")):
        written_union(valid, offsets, sizes)


def test_assemble_appends_rows_to_the_valid_region() -> None:
    out = T.assemble(tensor("t", [24, 16], [8, 16]), tensor("s", [8, 16]), [8, 0])
    assert printed(out) == ("pl.Tensor[[24, 16], pl.FP32, pl.TensorView(valid_shape=[16, 16], stride=[], "
                            "layout=pl.TensorLayout.ND)]")
    assert printed(T.assemble(tensor("t", [16, 16], [8, 16]), tensor("s", [8, 16]), [8, 0])) == \
        "pl.Tensor[[16, 16], pl.FP32]"


@pytest.mark.parametrize("build", [
    lambda: T.assemble(tensor("t", [16, 16], [8, 16]), tensor("s", [8, 8]), [8, 0]),
    lambda: L.assemble(tile("t", [16, 16], [8, 16]), tile("s", [8, 8]), [8, 0]),
    lambda: L.store(tile("s", [8, 8]), [8, 0], tensor("t", [16, 16], [8, 16])),
], ids=["tensor.assemble", "tile.assemble", "tile.store"])
def test_an_l_shaped_union_is_an_error(build) -> None:
    with pytest.raises(ir.IRValueError, match=r"writing \[8, 8\] at offsets \[8, 0\] into a target valid in "
                       r"\[8, 16\] would make the valid region L-shaped") as err:
        build()
    assert "in order from the origin" in err.value.hint


@pytest.mark.parametrize("build", [
    lambda: T.assemble(tensor("t", [16, 16], [4, 16]), tensor("s", [8, 16]), [8, 0]),
    lambda: L.assemble(tile("t", [16, 16], [4, 16]), tile("s", [8, 16]), [8, 0]),
    lambda: L.store(tile("s", [8, 16]), [8, 0], tensor("t", [16, 16], [4, 16])),
], ids=["tensor.assemble", "tile.assemble", "tile.store"])
def test_a_gap_is_an_error(build) -> None:
    with pytest.raises(ir.IRValueError, match="leaves a gap after the target's valid region"):
        build()


@pytest.mark.parametrize("build", [
    lambda: T.assemble(tensor("t", [16, 16]), tensor("s", [8, 16]), [-1, 0]),
    lambda: L.assemble(tile("t", [16, 16]), tile("s", [8, 16]), [0, -8]),
    lambda: L.store(tile("s", [8, 16]), [-2, 0], tensor("t", [16, 16])),
], ids=["tensor.assemble", "tile.assemble", "tile.store"])
def test_a_negative_offset_is_an_error(build) -> None:
    with pytest.raises(ir.IRValueError, match="is negative"):
        build()


def test_only_the_sources_valid_part_must_fit() -> None:
    source = tensor("s", [16, 16], [8, 16])
    assert printed(T.assemble(tensor("t", [16, 16]), source, [8, 0])) == "pl.Tensor[[16, 16], pl.FP32]"
    assert printed(L.assemble(tile("t", [16, 16]), tile("s", [16, 16], [8, 16]), [8, 0])) == \
        "pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec]"
    assert printed(L.store(tile("s", [16, 16], [8, 16]), [8, 0], tensor("t", [16, 16]))) == \
        "pl.Tensor[[16, 16], pl.FP32]"
    with pytest.raises(ir.IRValueError, match=r"with shape \[9, 16\] writes past the target shape \[16, 16\]"):
        T.assemble(tensor("t", [16, 16]), tensor("s", [16, 16], [9, 16]), [8, 0])
    with pytest.raises(ir.IRValueError, match=r"with shape \[9, 16\] writes past the target shape \[16, 16\]"):
        L.assemble(tile("t", [16, 16]), tile("s", [16, 16], [9, 16]), [8, 0])


# ---------------------------------------------------------------- slices


def test_a_slice_clamps_a_run_time_valid_extent_to_the_sources_valid_region() -> None:
    out = T.slice(tensor("t", [16, 16], [8, 16]), [16, 16], [0, 0], [N, 16])
    assert printed(out) == ("pl.Tensor[[16, 16], pl.FP32, pl.TensorView(valid_shape=[pl.min(n, pl.const(8, "
                            "pl.INDEX)), 16], stride=[], layout=pl.TensorLayout.ND)]")
    out = L.slice(tile("t", [16, 16], [8, 16]), [16, 16], [0, 0], [N, 16])
    assert printed(out) == ("pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[pl.min(n, "
                            "pl.const(8, pl.INDEX)), 16])]")


def test_a_slice_keeps_the_sources_pad_mode() -> None:
    src = tensor("t", [16, 16], [8, 16], pad=ir.PadValue.max)
    assert printed(T.slice(src, [16, 16], [0, 0])) == (
        "pl.Tensor[[16, 16], pl.FP32, pl.TensorView(valid_shape=[8, 16], stride=[], layout=pl.TensorLayout.ND, "
        "pad=pl.PadValue.max)]")
    assert T.slice(src, [16, 16], [0, 0], pad_value=ir.PadValue.min).type.tensor_view.pad == ir.PadValue.min
    window = L.slice(tile("t", [16, 16], [8, 16], pad=ir.PadValue.min), [16, 16], [0, 0])
    assert printed(window) == ("pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[8, 16], "
                               "pad=pl.PadValue.min)]")


@pytest.mark.parametrize(("drop", "message"), [
    ([0, 0], "'drop_dims' names axis 0 twice"),
    ([0, -3], "'drop_dims' names axis 0 twice"),
    ([1], r"can only drop static unit dims; axis 1 has extent \[16\]"),
    ([3], "drop_dims axis 3 is out of range for rank 3"),
])
def test_drop_dims_are_checked(drop: list, message: str) -> None:
    with pytest.raises(ir.IRValueError, match=message):
        T.slice(tensor("t", [4, 16, 16]), [1, 16, 16], [0, 0, 0], drop_dims=drop)


def test_drop_dims_removes_unit_axes() -> None:
    assert printed(T.slice(tensor("t", [4, 16, 16]), [1, 16, 8], [2, 0, 0], drop_dims=[0])) == \
        "pl.Tensor[[16, 8], pl.FP32]"


# ---------------------------------------------------------------- lower-rank windows

I = ir.Var("i", ir.ScalarType(ir.DataType.INDEX))


@pytest.mark.parametrize(("shape", "offset", "valid", "call", "result"), [
    ([64], [I, 3, 0], None, "pl.tensor.slice(t, [1, 1, 64], [i, 3, 0], [], [0, 1])", "pl.Tensor[[64], pl.FP32]"),
    ([1, 64], [I, 3, 0], None, "pl.tensor.slice(t, [1, 1, 64], [i, 3, 0], [], [0])", "pl.Tensor[[1, 64], pl.FP32]"),
    ([8, 32], [2, 4, 32], None, "pl.tensor.slice(t, [1, 8, 32], [2, 4, 32], [], [0])", "pl.Tensor[[8, 32], pl.FP32]"),
    ([64], [I, 3, 0], [N], "pl.tensor.slice(t, [1, 1, 64], [i, 3, 0], [1, 1, n], [0, 1])",
     "pl.Tensor[[64], pl.FP32, pl.TensorView(valid_shape=[n], stride=[], layout=pl.TensorLayout.ND)]"),
])
def test_a_lower_rank_window_is_the_full_rank_one_with_its_leading_axes_dropped(
        shape: list, offset: list, valid: list | None, call: str, result: str) -> None:
    window = T.slice(tensor("t", [4, 16, 64]), shape, offset, valid)
    assert ir.python_print(window) == call
    assert printed(window) == result


def test_a_lower_rank_window_of_a_tile_is_at_least_2d() -> None:
    window = L.slice(tile("v", [16, 64], [16, 40]), [64], [I, 0])
    assert ir.python_print(window) == "pl.tile.slice(v, [1, 64], [i, 0], [], [0])"
    assert printed(window) == "pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[1, 40])]"


@pytest.mark.parametrize(("args", "message", "hint"), [
    (([64], [0]), r"'offset' must have 3 elements \(the source rank\), got 1",
     "a [64] window covers the source's trailing axis and starts at an offset on every axis, e.g. [0, 0, 0]"),
    (([8, 64], [2, 0]), r"'offset' must have 3 elements \(the source rank\), got 2",
     "a [8, 64] window covers the source's trailing 2 axes and starts at an offset on every axis, e.g. [0, 2, 0]"),
    (([1, 64], [0, 0, 0], None, [0]), r"'drop_dims' needs a 'shape' of the source rank 3, got \[1, 64\]",
     "write the window as [1, 1, 64] and list every axis to drop"),
    (([64], [0, 0, 0], [1, 64]), r"'valid_shape' must have 1 elements \(the window rank\), got 2", None),
    (([64], [0, 0, 8]), r"window at offsets \[0, 0, 8\] with shape \[1, 1, 64\] reads past the source shape",
     None),
    (([2, 4, 16, 64], [0, 0, 0, 0]), r"'shape' must have 3 elements \(the source rank\), got 4", None),
])
def test_lower_rank_windows_are_checked(args: tuple, message: str, hint: str | None) -> None:
    with pytest.raises(ir.IRValueError, match=message) as err:
        T.slice(tensor("t", [4, 16, 64]), *args)
    assert err.value.hint == hint


# ---------------------------------------------------------------- reshape


@pytest.mark.parametrize(("shape", "valid", "dims", "want"), [
    ([16, 16], [8, 16], [1, 16, 16], "[1, 8, 16]"),  # a unit axis added
    ([1, 16, 16], [1, 8, 16], [16, 16], "[8, 16]"),  # and removed
    ([16, 16], [8, 16], [8, 32], "[4, 32]"),  # a row prefix
    ([4, 16], [4, 8], [4, 2, 8], "[4, 1, 8]"),  # a column prefix that is whole rows of the new shape
    ([16, 16], [1, 8], [256], "[8]"),  # the first elements
    ([16, 16], [0, 16], [8, 32], "[0, 0]"),  # an empty region
])
def test_reshape_maps_the_valid_region_exactly(shape: list, valid: list, dims: list, want: str) -> None:
    out = T.reshape(tensor("t", shape, valid), dims)
    assert printed(out) == (f"pl.Tensor[{dims}, pl.FP32, pl.TensorView(valid_shape={want}, stride=[], "
                            "layout=pl.TensorLayout.ND)]")


def test_a_tile_reshape_keeps_the_valid_region_and_the_pad_mode() -> None:
    out = L.reshape(tile("t", [16, 16], [8, 16], pad=ir.PadValue.max), [8, 32])
    assert printed(out) == ("pl.Tile[[8, 32], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[4, 32], "
                            "pad=pl.PadValue.max)]")
    out = T.reshape(tensor("t", [16, 16], [8, 16], pad=ir.PadValue.zero), [1, 256])
    assert printed(out) == ("pl.Tensor[[1, 256], pl.FP32, pl.TensorView(valid_shape=[1, 128], stride=[], "
                            "layout=pl.TensorLayout.ND, pad=pl.PadValue.zero)]")


def test_a_region_with_no_image_is_an_error_for_tiles() -> None:
    with pytest.raises(ir.IRValueError, match=r"cannot carry the valid region \[5, 16\] of \[16, 16\] into shape "
                       r"\[8, 32\]; pass valid_shape explicitly"):
        L.reshape(tile("t", [16, 16], [5, 16]), [8, 32])
    assert T.reshape(tensor("t", [16, 16], [16, 8]), [256]).type.tensor_view is None


def test_reshaped_box_agrees_with_the_element_mask() -> None:
    import itertools
    import math

    import numpy as np

    shapes = [[4, 4], [2, 8], [16], [1, 16], [4, 1, 4], [2, 2, 4], [8, 2], [2, 4, 2], [16, 1]]
    for shape, dims in itertools.product(shapes, shapes):
        for valid in itertools.product(*[range(d + 1) for d in shape]):
            mask = np.zeros(shape, bool)
            mask[tuple(slice(0, v) for v in valid)] = True
            mask = mask.reshape(dims)
            box = tuple(int(n) for n in np.max(np.nonzero(mask), axis=1) + 1) if mask.any() else (0,) * len(dims)
            exact = mask[tuple(slice(0, b) for b in box)].all() and mask.sum() == math.prod(box)
            assert reshaped_box(valid, shape, dims) == (box if exact else None), (shape, valid, dims)
