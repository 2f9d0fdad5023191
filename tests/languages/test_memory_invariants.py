"""HasMemRefs and AllocatedMemoryAddr."""

from __future__ import annotations

from inv_helpers import found, single
from pypto.languages.invariants import A5, AllocatedMemoryAddr, HasMemRefs, target_platform

from pypto import ir

_SPAN = ir.Span.unknown()
_KIB = 1024


def _vec(name: str, memref: ir.MemRef | None = None) -> ir.Var:
    return ir.Var(name, ir.TileType([16, 16], ir.FP32, memref, None, ir.Mem.Vec))


def _exp(target: ir.Var, source: ir.Var) -> ir.AssignStmt:
    return ir.AssignStmt(target, ir.Call(ir.get_op("tile.exp"), [source], target.type, _SPAN))


def test_every_tile_has_a_memref_except_pipe_slots() -> None:
    src = _vec("src", ir.MemRef("mem_vec_0", 0, 1024))
    popped, view = _vec("popped"), _vec("view")
    stmts = [
        ir.AssignStmt(popped, ir.Call(ir.get_op("tile.tpop_from_aic"), [], {"split": 0}, popped.type, _SPAN)),
        ir.AssignStmt(
            view,
            ir.Call(
                ir.get_op("tile.reshape"),
                [popped, ir.MakeTuple([ir.ConstInt(16, ir.INDEX)] * 2, _SPAN)],
                popped.type,
                _SPAN,
            ),
        ),
        _exp(_vec("plain"), src),
        _exp(_vec("placed", ir.MemRef("mem_vec_1", 1024, 1024)), src),
    ]
    program = single("main", [src], ir.SeqStmts(stmts, _SPAN), func_type=ir.FunctionType.AIV)
    assert found(HasMemRefs, program) == [
        ("NO_MEMREF", "tile 'plain' has no MemRef", "plain: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.exp(src)"),
    ]


def test_an_unplaced_tile_assigned_in_a_loop_from_a_placed_value_is_reported() -> None:
    """The check looks at the assigned variables' types: a tile without a MemRef deep in a loop body
    is found even when the value it is assigned has a placed type (and every other type is placed)."""
    src = _vec("src", ir.MemRef("mem_vec_0", 0, 1024))
    plain = _vec("plain")
    value = ir.Call(ir.get_op("tile.exp"), [src], src.type, _SPAN)
    body = ir.SeqStmts([ir.AssignStmt(plain, value)], _SPAN)
    loop = ir.ForStmt(ir.Var("i", ir.ScalarType(ir.INDEX)), 0, 4, 1, [], body, [], _SPAN)
    program = single("main", [src], ir.SeqStmts([loop], _SPAN), func_type=ir.FunctionType.AIV)
    assert found(HasMemRefs, program) == [
        ("NO_MEMREF", "tile 'plain' has no MemRef", "plain: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.exp(src)"),
    ]


def test_addresses_and_capacity() -> None:
    src = _vec("src", ir.MemRef("mem_vec_0", 0, 1024))
    unplaced = _vec("unplaced", ir.MemRef("mem_vec_1", -1, 1024))
    high = _vec("high", ir.MemRef("mem_vec_2", 184 * _KIB, 1024))
    stmts = [_exp(unplaced, src), _exp(high, src)]
    program = single("main", [src], ir.SeqStmts(stmts, _SPAN), func_type=ir.FunctionType.AIV)
    assert [(c, m) for c, m, _ in found(AllocatedMemoryAddr, program)] == [
        ("NO_ADDRESS", "tile 'unplaced' has no address in Vec"),
        ("CAPACITY", "Function 'main': Vec buffer usage (189440 bytes) exceeds platform limit (188416 bytes)"),
    ]
    fits = single("main", [src], _exp(high, src), func_type=ir.FunctionType.AIV)
    with target_platform(A5):
        assert found(AllocatedMemoryAddr, fits) == []


def test_addresses_are_judged_by_the_defined_variables_each_reported() -> None:
    """The check looks at each type once (variables share them), yet reports every variable of an
    unaddressed type and the first one reaching a space's highest end; the types of values (a call's
    result type) are not the variables' and are not judged."""
    src = _vec("src", ir.MemRef("mem_vec_0", 0, 1024))
    unplaced = ir.TileType([16, 16], ir.FP32, ir.MemRef("mem_vec_1", -1, 1024), None, ir.Mem.Vec)
    a, b = ir.Var("a", unplaced), ir.Var("b", unplaced)
    high = ir.TileType([16, 16], ir.FP32, ir.MemRef("mem_vec_2", 184 * _KIB, 1024), None, ir.Mem.Vec)
    c, d = ir.Var("c", high), ir.Var("d", high)
    stmts = [_exp(a, src), _exp(c, src), _exp(b, src), _exp(d, src)]
    program = single("main", [src], ir.SeqStmts(stmts, _SPAN), func_type=ir.FunctionType.AIV)
    capacity = "Function 'main': Vec buffer usage (189440 bytes) exceeds platform limit (188416 bytes)"
    assert [(c, m, n.split(":")[0]) for c, m, n in found(AllocatedMemoryAddr, program)] == [
        ("NO_ADDRESS", "tile 'a' has no address in Vec", "a"),
        ("NO_ADDRESS", "tile 'b' has no address in Vec", "b"),
        ("CAPACITY", capacity, "c"),
    ]
    unplaced_value = ir.AssignStmt(src, ir.Call(ir.get_op("tile.exp"), [src], unplaced, _SPAN))
    placed = single("main", [src], unplaced_value, func_type=ir.FunctionType.AIV)
    assert found(AllocatedMemoryAddr, placed) == []
