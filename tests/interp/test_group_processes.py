"""A Group's AIC and AIV kernels run as communicating processes over bounded pipes; a deadlock is an
error naming the waiting kernels, their pipes and their peers."""

from __future__ import annotations

import numpy as np
import pytest

import pypto.language as pl
from pypto.interp import InterpreterError, run

_T = "pl.Tensor[[16, 16], pl.FP32]"
_PARAMS = f"a: {_T}, b: {_T}, c: pl.Out[{_T}]"


def _program(aic: str, aiv: str, slot_num: int = 2, slot_size: int = 1024, dir_mask: int = 3) -> str:
    init = f"dir_mask={dir_mask}, slot_size={slot_size}, slot_num={slot_num}"
    return f"""
import pypto.language as pl
@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIC)
    def g_aic(self, {_PARAMS}):
        pl.aic_initialize_pipe(pl.const(0, pl.INT32), pl.const(0, pl.INT32), {init})
{aic}
    @pl.function(type=pl.FunctionType.AIV)
    def g_aiv(self, {_PARAMS}):
        pl.aiv_initialize_pipe(pl.const(0, pl.INT32), pl.const(0, pl.INT32), {init})
{aiv}
    @pl.function(type=pl.FunctionType.Group)
    def g(self, {_PARAMS}) -> {_T}:
        self.g_aic(a, b, c)
        self.g_aiv(a, b, c)
        return c
"""


# The vector side sends each row block of a to the cube, which multiplies it by b and sends it back:
# three round trips through one-slot pipes, so the kernels must take turns.
_PING_AIC = """
        b1: pl.Tile[[16, 16], pl.FP32, pl.Mem.Mat] = pl.load(b, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        b0: pl.Tile[[16, 16], pl.FP32, pl.Mem.Right] = pl.move(b1, target_memory=pl.Mem.Right)
        for i in pl.range(3):
            x1: pl.Tile[[16, 16], pl.FP32, pl.Mem.Mat] = pl.tpop_from_aiv(split=0)
            x0: pl.Tile[[16, 16], pl.FP32, pl.Mem.Left] = pl.move(x1, target_memory=pl.Mem.Left)
            pl.tfree_to_aiv(x1)
            y: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.matmul(x0, b0)
            pl.tpush_to_aiv(y, split=0)
"""
_PING_AIV = """
        x: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [16, 16])
        for i, (cur,) in pl.range(3, init_values=(x,)):
            pl.tpush_to_aic(cur, split=0)
            y: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tpop_from_aic(split=0)
            nxt: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.add(y, y)
            pl.tfree_to_aic(y)
            out = pl.yield_(nxt)
        pl.store(out, [0, 0], c)
"""


def _args() -> list[np.ndarray]:
    rng = np.random.default_rng(0)
    return [rng.uniform(-1, 1, (16, 16)).astype(np.float32) for _ in range(2)] + [np.zeros((16, 16), np.float32)]


def test_kernels_take_turns_through_one_slot_pipes() -> None:
    a, b, c = _args()
    result = run(pl.parse(_program(_PING_AIC, _PING_AIV, slot_num=1)), a, b, c, entry="g")
    expected = a.astype(np.float64)
    for _ in range(3):
        expected = 2 * (expected @ b)
    np.testing.assert_allclose(result.outputs["c"], expected, rtol=1e-4)


def test_on_two_lanes_each_pops_every_unsplit_tile_and_the_cube_takes_lane_0s_pushes() -> None:
    """pto-isa's TPUSH drops an unsplit vector->cube push of lane 1: the cube sees each tile once (a
    lane 1 push filling its own queue deadlocked on the second round trip)."""
    a, b, c = _args()
    text = _program(_PING_AIC, _PING_AIV, slot_num=1).replace(
        "@pl.function(type=pl.FunctionType.AIV)",
        '@pl.function(type=pl.FunctionType.AIV, attrs={"dual_aiv_dispatch": True})')
    result = run(pl.parse(text), a, b, c, entry="g")
    expected = a.astype(np.float64)
    for _ in range(3):
        expected = 2 * (expected @ b)
    np.testing.assert_allclose(result.outputs["c"], expected, rtol=1e-4)


def test_a_pop_without_a_matching_push_is_a_deadlock_naming_both_kernels() -> None:
    aic = "        pl.system.bar_all()"
    aiv = "        y: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tpop_from_aic(split=0)\n        pl.tfree_to_aic(y)"
    with pytest.raises(InterpreterError) as err:
        run(pl.parse(_program(aic, aiv)), *_args(), entry="g")
    assert ("deadlock in Group 'g': 'g_aiv' waits to pop from the empty c2v pipe 0 (lane 0) "
            "(peer 'g_aic' finished)") in str(err.value)


def test_a_cycle_of_full_pipes_is_a_deadlock_naming_both_pipes() -> None:
    push3 = "        t: pl.Tile[[16, 16], pl.FP32, pl.Mem.{space}] = pl.load(a, [0, 0], [16, 16]{mem})\n" + "".join(
        ["        pl.{op}(t, split=0)\n"] * 3)
    aic = push3.format(space="Mat", mem=", target_memory=pl.Mem.Mat", op="tpush_to_aiv")
    aiv = push3.format(space="Vec", mem="", op="tpush_to_aic")
    with pytest.raises(InterpreterError) as err:
        run(pl.parse(_program(aic, aiv)), *_args(), entry="g")
    assert ("deadlock in Group 'g': 'g_aic' waits to push into the full c2v pipe 0 (lane 0, 2 slots) "
            "(peer 'g_aiv' blocked); 'g_aiv' waits to push into the full v2c pipe 0 (lane 0, 2 slots) "
            "(peer 'g_aic' blocked)") in str(err.value)


def test_popped_tiles_hold_their_slot_until_freed() -> None:
    aic = "".join(["        t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Mat] = pl.load(a, [0, 0], [16, 16], "
                   "target_memory=pl.Mem.Mat)\n"] + ["        pl.tpush_to_aiv(t, split=0)\n"] * 3)
    aiv = "".join(f"        y{i}: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tpop_from_aic(split=0)\n"
                  for i in range(3))
    with pytest.raises(InterpreterError) as err:
        run(pl.parse(_program(aic, aiv, dir_mask=1)), *_args(), entry="g")
    assert ("deadlock in Group 'g': 'g_aic' waits to push into the full c2v pipe 0 (lane 0, 2 slots) "
            "(peer 'g_aiv' blocked); 'g_aiv' waits to pop from the empty c2v pipe 0 (lane 0) "
            "(peer 'g_aic' blocked)") in str(err.value)


def test_a_tile_larger_than_the_slot_is_an_error() -> None:
    aic = ("        t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Mat] = pl.load(a, [0, 0], [16, 16], "
           "target_memory=pl.Mem.Mat)\n"
           "        pl.tpush_to_aiv(t, split=0)")
    aiv = "        y: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tpop_from_aic(split=0)"
    with pytest.raises(InterpreterError, match="a 1024-byte tile does not fit the 512-byte slots of c2v pipe 0"):
        run(pl.parse(_program(aic, aiv, slot_size=512, dir_mask=1)), *_args(), entry="g")


def test_a_pipe_used_without_initialisation_is_an_error() -> None:
    text = _program("        pl.system.bar_all()", "        y: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = "
                    "pl.tpop_from_aic(split=0)").replace("pl.aic_initialize_pipe", "# pl.aic_initialize_pipe")
    text = text.replace("pl.aiv_initialize_pipe", "# pl.aiv_initialize_pipe")
    with pytest.raises(InterpreterError, match="c2v pipe 0 is used before aic_initialize_pipe/aiv_initialize_pipe "
                       r"set it up \(dir_mask 1 or 3, id=0\)"):
        run(pl.parse(text), *_args(), entry="g")
