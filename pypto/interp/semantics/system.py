"""System, launch-index, task-id, cross-core and array ops.

Synchronisation, barriers, cache and pipe set-up are no-ops: the interpreter runs everything in
program order. ``get_block_idx``/``get_subblock_idx`` read the launch indices of the running SPMD
block / AIV lane. Task ids are opaque positive integers (``task_invalid`` is 0).

Cross-core pipes are FIFOs per (direction, pipe id, AIV lane). ``tpush_to_aiv`` with a split puts
each lane's half (rows for UP_DOWN, columns for LEFT_RIGHT; lane 0 takes the larger half of an odd
extent) on that lane's queue, without a split the whole tile on both; ``tpop_from_aic`` takes the
running lane's entry. ``tpush_to_aic`` queues the lane's tile (an unsplit push of lane 1 sends
nothing, as in pto-isa: the cube takes lane 0's) and ``tpop_from_aiv`` joins the lanes' halves.
Outside a Group, a pop from an empty pipe is an error: producers must run before consumers in
program order. Inside a Group (pypto.interp.group) the kernels run as processes: a pop from an empty
pipe waits for the producer, and a push waits while the pipe's ``slot_num`` slots hold tiles pushed
and not yet freed by the consumer's ``tfree``; a pushed tile larger than ``slot_size`` is an error.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pypto.ir.datatype import DataType
from pypto.ir.enums import MemorySpace
from pypto.ir.ops.cross_core_ops import C2V, DIRECTION_NAMES, PIPE_OP_DIRECTION, default_slot_num, slot_bytes

from ..errors import OpError
from ..values import ArrayValue, TileValue
from .common import as_ints, like, read, result_dtype, scalar_array
from .movement import to_scalar
from .table import INVALID_TASK_ID, OpContext, register

_NO_OPS = (
    "system.sync_src",
    "system.sync_dst",
    "system.bar_v",
    "system.bar_m",
    "system.bar_all",
    "system.fence",
    "system.cacheinvalid",
    "system.syncall",
    "system.sync_set",
    "system.sync_wait",
    "system.set_ffts",
)


@register(*_NO_OPS)
def _no_op(ctx: OpContext, *args: Any) -> None:
    return None


@register("tile.get_block_idx", "tensor.get_block_idx")
def _block_idx(ctx: OpContext) -> int:
    return ctx.state.block_idx


@register("tile.get_block_num", "tensor.get_block_num")
def _block_num(ctx: OpContext) -> int:
    return ctx.state.block_num


@register("tile.get_subblock_idx", "tensor.get_subblock_idx")
def _subblock_idx(ctx: OpContext) -> int:
    return ctx.state.subblock_idx


@register("system.task_invalid")
def _task_invalid(ctx: OpContext) -> int:
    return INVALID_TASK_ID


@register("system.task_dummy")
def _task_dummy(ctx: OpContext, *deps: Any) -> int:
    return ctx.state.new_task_id()


@register("system.task_is_valid")
def _task_is_valid(ctx: OpContext, task_id: Any) -> bool:
    return int(task_id) != INVALID_TASK_ID


@register("system.available_cluster_count")
def _cluster_count(ctx: OpContext) -> int:
    return ctx.state.cluster_count


@register("system.available_aiv_count")
def _aiv_count(ctx: OpContext) -> int:
    return ctx.state.aiv_count


@register("system.reserve_buffer")
def _reserve_buffer(ctx: OpContext) -> int:
    return max(0, int(ctx.kwarg("base", -1)))


@register("system.import_peer_buffer")
def _import_peer_buffer(ctx: OpContext) -> int:
    return 0


def _split_axis(split: int) -> int | None:
    """The axis a split code halves: 1/3 rows, 2/4 columns, 0 none."""
    if split == 0:
        return None
    if split in (1, 3):
        return -2
    if split in (2, 4):
        return -1
    raise OpError(f"unknown split code {split}")


def _half(data: np.ndarray, axis: int, lane: int) -> np.ndarray:
    n = data.shape[axis]
    first = (n + 1) // 2
    index = [slice(None)] * data.ndim
    index[axis] = slice(0, first) if lane == 0 else slice(first, n)
    return data[tuple(index)]


def _pipe_id(ctx: OpContext) -> int:
    return int(ctx.kwarg("id", 0) or 0)


def _queue(ctx: OpContext, direction: int, lane: int) -> list[TileValue]:
    return ctx.state.pipes.setdefault((direction, _pipe_id(ctx), lane), [])


@register("system.aic_initialize_pipe", "system.aiv_initialize_pipe")
def _initialize_pipe(ctx: OpContext, c2v_buf: Any, v2c_buf: Any) -> None:
    mask = int(ctx.kwarg("dir_mask"))
    default = default_slot_num(mask)
    slots = ctx.kwarg("slot_num", None)
    for direction in DIRECTION_NAMES:
        if mask & direction:
            ctx.state.pipe_slots[(direction, _pipe_id(ctx))] = (
                int(slots) if slots is not None else default, int(ctx.kwarg("slot_size")))


def _limits(ctx: OpContext, direction: int) -> tuple[int, int] | None:
    """(slot_num, slot_size) of the pipe; inside a Group a pipe must be initialised before use."""
    st, pipe = ctx.state, _pipe_id(ctx)
    limits = st.pipe_slots.get((direction, pipe))
    if limits is None and st.group is not None:
        raise OpError(f"{DIRECTION_NAMES[direction]} pipe {pipe} is used before aic_initialize_pipe/"
                      f"aiv_initialize_pipe set it up (dir_mask {direction} or 3, id={pipe})")
    return limits


def _push(ctx: OpContext, direction: int, lane: int, value: TileValue, nbytes: int) -> None:
    """Queue ``value`` on the pipe; ``nbytes`` is what it takes of a slot (cross_core_ops.slot_bytes)."""
    st, pipe = ctx.state, _pipe_id(ctx)
    queue = _queue(ctx, direction, lane)
    limits = _limits(ctx, direction)
    if limits is not None:
        slots, size = limits
        if nbytes > size:
            raise OpError(f"a {nbytes}-byte tile does not fit the {size}-byte slots of "
                          f"{DIRECTION_NAMES[direction]} pipe {pipe}")
        if st.group is not None:
            key = (direction, pipe, lane)
            consumer = "AIV" if direction == C2V else "AIC"
            st.group.block(lambda: len(queue) + st.held.get(key, 0) < slots,
                           f"push into the full {DIRECTION_NAMES[direction]} pipe {pipe} (lane {lane}, {slots} slots)",
                           consumer)
    queue.append(value)


def _pop(ctx: OpContext, direction: int, lane: int) -> TileValue:
    st, pipe = ctx.state, _pipe_id(ctx)
    queue = _queue(ctx, direction, lane)
    _limits(ctx, direction)
    if not queue:
        if st.group is None:
            raise OpError("the pipe is empty (outside a Group the interpreter runs producers before consumers "
                          "in program order)")
        producer = "AIC" if direction == C2V else "AIV"
        waiting = f"pop from the empty {DIRECTION_NAMES[direction]} pipe {pipe} (lane {lane})"
        st.group.block(lambda: bool(queue), waiting, producer)
    key = (direction, pipe, lane)
    st.held[key] = st.held.get(key, 0) + 1
    return queue.pop(0)


def _free(ctx: OpContext, direction: int, lanes: tuple[int, ...]) -> None:
    for lane in lanes:
        key = (direction, _pipe_id(ctx), lane)
        if ctx.state.held.get(key, 0) > 0:
            ctx.state.held[key] -= 1


@register("system.tfree_to_aic")
def _tfree_to_aic(ctx: OpContext, tile: Any) -> None:
    _free(ctx, PIPE_OP_DIRECTION[ctx.name], (ctx.state.subblock_idx,))


@register("system.tfree_to_aiv")
def _tfree_to_aiv(ctx: OpContext, tile: Any) -> None:
    lanes = (0, 1) if _split_axis(int(ctx.kwarg("split", 0) or 0)) is not None else (0,)
    _free(ctx, PIPE_OP_DIRECTION[ctx.name], lanes)


@register("tile.tpush_to_aiv")
def _tpush_to_aiv(ctx: OpContext, tile: ArrayValue) -> None:
    data = read(tile).copy()
    split = int(ctx.kwarg("split", 0) or 0)
    axis = _split_axis(split)
    nbytes = slot_bytes("tile.tpush_to_aiv", data.size * tile.dtype.get_bit() // 8, split)
    for lane in _aiv_lanes(ctx):
        part = data if axis is None else _half(data, axis, lane)
        _push(ctx, PIPE_OP_DIRECTION[ctx.name], lane, TileValue(part, tile.dtype), nbytes)


def _aiv_lanes(ctx: OpContext) -> tuple[int, ...]:
    """The AIV lanes a cube push feeds: both, unless a Group runs a single-lane AIV kernel."""
    group = ctx.state.group
    if group is not None and not any(p.kind == "AIV" and p.launch[3] > 1 for p in group.processes):
        return (0,)
    return (0, 1)


@register("tile.tpush_to_aic")
def _tpush_to_aic(ctx: OpContext, tile: ArrayValue) -> None:
    split = int(ctx.kwarg("split", 0) or 0)
    if split == 0 and ctx.state.subblock_idx != 0:
        return  # an unsplit push of lane 1 sends nothing: the cube takes lane 0's tile (pto-isa's TPUSH)
    data = read(tile).copy()
    nbytes = slot_bytes("tile.tpush_to_aic", data.size * tile.dtype.get_bit() // 8, split)
    _push(ctx, PIPE_OP_DIRECTION[ctx.name], ctx.state.subblock_idx, TileValue(data, tile.dtype), nbytes)


@register("tile.tpop_from_aic")
def _tpop_from_aic(ctx: OpContext) -> TileValue:
    got = _pop(ctx, PIPE_OP_DIRECTION[ctx.name], ctx.state.subblock_idx)
    dt = result_dtype(ctx, got.dtype)
    return TileValue(got.data, dt, None, MemorySpace.Vec)


@register("tile.tpop_from_aiv")
def _tpop_from_aiv(ctx: OpContext) -> TileValue:
    axis = _split_axis(int(ctx.kwarg("split", 0)))
    first = _pop(ctx, PIPE_OP_DIRECTION[ctx.name], 0)
    data = first.data
    if axis is not None:
        second = _pop(ctx, PIPE_OP_DIRECTION[ctx.name], 1)
        data = np.concatenate([first.data, second.data], axis=axis)
    dt = result_dtype(ctx, first.dtype)
    return TileValue(data, dt, None, MemorySpace.Mat)


@register("tile.aiv_shard", "tensor.aiv_shard")
def _aiv_shard(ctx: OpContext, src: ArrayValue) -> ArrayValue:
    axis = _split_axis(int(ctx.kwarg("split", 0)))
    data = read(src)
    part = data if axis is None else _half(data, axis, ctx.state.subblock_idx).copy()
    return like(ctx, src, part, src.dtype)


@register("tile.aic_gather", "tensor.aic_gather")
def _aic_gather(ctx: OpContext, src: ArrayValue) -> ArrayValue:
    # The lanes of a pl.split_aiv region run one after the other: each adds its half to the whole,
    # which is complete once the last lane has run (the cube reads it after the region).
    axis = _split_axis(int(ctx.kwarg("split", 0)))
    data = read(src)
    if axis is None:
        return like(ctx, src, data.copy(), src.dtype)
    lane = ctx.state.subblock_idx
    shape = list(data.shape)
    shape[axis] *= 2
    if lane == 0 or id(ctx.call) not in ctx.state.gathers:
        ctx.state.gathers[id(ctx.call)] = np.zeros(shape, data.dtype)
    whole = ctx.state.gathers[id(ctx.call)]
    _half(whole, axis, lane)[...] = data
    return like(ctx, src, whole.copy(), src.dtype)


@register("array.create")
def _array_create(ctx: OpContext, extent: Any) -> np.ndarray:
    dt = DataType(ctx.kwarg("dtype", DataType.INT32))
    (n,) = as_ints(extent, "extent")
    return np.zeros(n, dtype=np.int64 if dt.is_task_id() else scalar_array(0, dt).dtype)


def _array_index(arr: Any, index: Any) -> int:
    if not isinstance(arr, np.ndarray):
        raise OpError(f"expected an array, got {type(arr).__name__}")
    i = int(index)
    if not 0 <= i < arr.shape[0]:
        raise OpError(f"array index {i} out of bounds for extent {arr.shape[0]}")
    return i


@register("array.get_element")
def _array_get(ctx: OpContext, arr: Any, index: Any) -> Any:
    i = _array_index(arr, index)
    dt = ctx.result_type.dtype if hasattr(ctx.result_type, "dtype") else DataType.INT64
    return to_scalar(arr[i], dt)


@register("array.update_element")
def _array_update(ctx: OpContext, arr: Any, index: Any, value: Any) -> np.ndarray:
    i = _array_index(arr, index)
    out = arr.copy()
    out[i] = value
    return out
