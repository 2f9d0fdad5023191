"""Address-backed tiles: after memory planning, wrong reuse decisions give wrong results."""

from __future__ import annotations

import numpy as np
import pytest
from interp_ir import SP, assign, call, function, ret, tensor_t, tup, var

from pypto import ir
from pypto.interp import InterpreterError, run
from pypto.ir import DataType as D

VEC = ir.MemorySpace.Vec
TT = tensor_t([16, 16])
NBYTES = 16 * 16 * 4


def tile_at(base: ir.Var, offset: int) -> ir.TileType:
    return ir.TileType([16, 16], D.FP32, ir.MemRef(base, offset, NBYTES), None, VEC)


def tile_add(addr_a: int, addr_b: int, addr_c: int) -> ir.Function:
    """``a = load(x); b = load(y); c = a + b; store(c)`` with the given Vec addresses."""
    base = ir.Var("mem_vec_0", ir.PtrType(), SP)
    x, y, out = var("x", TT), var("y", TT), var("out", TT)
    a, b, c = var("a", tile_at(base, addr_a)), var("b", tile_at(base, addr_b)), var("c", tile_at(base, addr_c))
    s = var("s", TT)
    load = {"target_memory": VEC}
    return function(
        "k",
        [x, y, (out, ir.ParamDirection.Out)],
        [TT],
        assign(a, call("tile.load", [x, tup(0, 0), tup(16, 16), tup(16, 16)], load, a.type)),
        assign(b, call("tile.load", [y, tup(0, 0), tup(16, 16), tup(16, 16)], load, b.type)),
        assign(c, call("tile.add", [a, b], None, c.type)),
        assign(s, call("tile.store", [c, tup(0, 0), out], None, TT)),
        ret(s),
        type=ir.FunctionType.AIV,
    )


INPUTS = (np.full((16, 16), 1.0, np.float32), np.full((16, 16), 10.0, np.float32), np.zeros((16, 16), np.float32))


@pytest.mark.parametrize("addrs", [(0, NBYTES, 0), (0, NBYTES, NBYTES), (NBYTES, 0, 2 * NBYTES)])
def test_valid_plans_compute_the_right_result(addrs: tuple[int, int, int]) -> None:
    np.testing.assert_array_equal(run(tile_add(*addrs), *INPUTS).value, np.full((16, 16), 11.0))


def test_overlapping_live_tiles_give_a_wrong_result() -> None:
    """``b`` reuses ``a``'s buffer while ``a`` is still live: the add reads ``b`` twice."""
    bad = tile_add(0, 0, NBYTES)
    np.testing.assert_array_equal(run(bad, *INPUTS).value, np.full((16, 16), 20.0))
    np.testing.assert_array_equal(run(bad, *INPUTS, memory="values").value, np.full((16, 16), 11.0))


def test_partially_overlapping_tiles() -> None:
    bad = tile_add(0, NBYTES // 2, 2 * NBYTES)
    got = run(bad, *INPUTS).value
    # b's first half overwrote a's second half
    np.testing.assert_array_equal(got[:8], np.full((8, 16), 11.0))
    np.testing.assert_array_equal(got[8:], np.full((8, 16), 20.0))


def _accumulate(carry_addr: int, yield_addr: int) -> ir.Function:
    """acc = zeros; for i in range(3): acc = acc + load(x) -- carries at ``carry_addr``, update at ``yield_addr``."""
    base = ir.Var("mem_vec_0", ir.PtrType(), SP)
    x, out = var("x", TT), var("out", TT)
    init = var("acc0", tile_at(base, carry_addr))
    acc = ir.IterArg("acc", tile_at(base, carry_addr), init, SP)
    t = var("t", tile_at(base, 2 * NBYTES))
    nxt = var("acc_next", tile_at(base, yield_addr))
    rv = var("acc_rv", tile_at(base, carry_addr))
    s = var("s", TT)
    i = var("i", ir.ScalarType(D.INDEX))
    body = ir.SeqStmts(
        [
            assign(t, call("tile.load", [x, tup(0, 0), tup(16, 16), tup(16, 16)], {"target_memory": VEC}, t.type)),
            assign(nxt, call("tile.add", [acc, t], None, nxt.type)),
            ir.YieldStmt([nxt], SP),
        ],
        SP,
    )
    return function(
        "k",
        [x, (out, ir.ParamDirection.Out)],
        [TT],
        assign(init, call("tile.full", [tup(16, 16), ir.ConstFloat(0.0, D.FP32, SP)], {"dtype": D.FP32}, init.type)),
        ir.ForStmt(i, 0, 3, 1, [acc], body, [rv], SP),
        assign(s, call("tile.store", [rv, tup(0, 0), out], None, TT)),
        ret(s),
    )


def test_loop_carry_in_one_buffer_accumulates() -> None:
    x = np.full((16, 16), 2.0, np.float32)
    np.testing.assert_array_equal(run(_accumulate(0, 0), x, np.zeros_like(x)).value, np.full((16, 16), 6.0))


def test_loop_carry_yielded_from_another_buffer_is_not_copied() -> None:
    """Codegen emits no copy for carries, so a yield outside the carried buffer loses the update."""
    x = np.full((16, 16), 2.0, np.float32)
    np.testing.assert_array_equal(run(_accumulate(0, NBYTES), x, np.zeros_like(x)).value, np.zeros((16, 16)))
    np.testing.assert_array_equal(
        run(_accumulate(0, NBYTES), x, np.zeros_like(x), memory="values").value, np.full((16, 16), 6.0)
    )


def test_functions_without_addresses_run_on_values() -> None:
    unplanned = ir.TileType([16, 16], D.FP32, ir.MemRef("mem_vec_0", -1, NBYTES), None, VEC)
    x, out = var("x", TT), var("out", TT)
    a, s = var("a", unplanned), var("s", TT)
    f = function(
        "k",
        [x, (out, ir.ParamDirection.Out)],
        [TT],
        assign(a, call("tile.load", [x, tup(0, 0), tup(16, 16), tup(16, 16)], {"target_memory": VEC}, unplanned)),
        assign(s, call("tile.store", [a, tup(0, 0), out], None, TT)),
        ret(s),
    )
    np.testing.assert_array_equal(run(f, INPUTS[0], INPUTS[2]).value, INPUTS[0])
    with pytest.raises(InterpreterError, match="function 'k' has tiles without allocated addresses"):
        run(f, INPUTS[0], INPUTS[2], memory="addresses")
    with pytest.raises(InterpreterError, match="memory must be 'auto', 'values' or 'addresses', got 'bytes'"):
        run(f, INPUTS[0], INPUTS[2], memory="bytes")
