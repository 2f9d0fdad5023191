"""What the boundary checks reuse between programs (node indexes, expression summaries, per-function
results) never hides a malformed node built after a check: the next check still reports it."""

from __future__ import annotations

from inv_helpers import INDEX, found, prog
from pypto.analysis import expr_vars, function_index
from pypto.languages.invariants import MixedKernelExpanded, SplitIncoreOrch, TypeChecked, UseAfterDef
from pypto.languages.tiled import tiled

from pypto import ir
from pypto.ir.op_registry import create_op_call

_SPAN = ir.Span.unknown()
_TILE = "pl.Tile[[64, 64], pl.FP32]"
_TENSOR = "pl.Tensor[[64, 64], pl.FP32]"
_VEC = "pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec]"
_KERNEL = f"""
    @pl.program
    class K:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, a: {_TENSOR}, out: pl.Out[{_TENSOR}]) -> {_TENSOR}:
            t: {_TILE} = pl.load(a, [0, 0], [64, 64])
            u: {_TILE} = pl.exp(t)
            r: {_TENSOR} = pl.store(u, [0, 0], out)
            return r
    """


def _kernel() -> tuple[ir.Program, ir.Function]:
    program = prog(_KERNEL)
    return program, program.get_function("k")


def _with(func: ir.Function, **fields: object) -> ir.Program:
    return ir.Program([ir.replace(func, **fields)], "K", _SPAN)


def test_a_new_kind_around_a_checked_body_shares_its_index_and_is_checked_again() -> None:
    program, kernel = _kernel()
    assert found(SplitIncoreOrch, program) == []
    moved = _with(kernel, func_type=ir.FunctionType.Orchestration, level=None, role=None)
    assert function_index(moved.get_function("k")) is function_index(kernel)  # one body, one index
    codes = [code for code, _, _ in found(SplitIncoreOrch, moved)]
    assert codes == ["TILE_OP_IN_ORCHESTRATION"] * 3


def test_new_parameters_around_a_checked_body_get_their_own_index() -> None:
    program, kernel = _kernel()
    assert found(UseAfterDef, program) == []
    fresh = [ir.Var(p.name_hint, p.type) for p in kernel.params]
    renamed = _with(kernel, params=fresh)
    assert function_index(renamed.get_function("k")) is not function_index(kernel)
    # The body still reads the old parameters, which the new function does not define.
    assert [(code, node) for code, _, node in found(UseAfterDef, renamed)] == [
        ("401", f"t: {_VEC} = pl.tile.load(a, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec)"),
        ("401", "r: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(u, [0, 0], out)"),
    ]


def test_a_statement_added_to_a_checked_body_is_checked() -> None:
    program, kernel = _kernel()
    assert tiled.check(program) == []
    ghost = ir.Var("ghost", INDEX)
    stmts = list(kernel.body.stmts)
    stmts.insert(1, ir.AssignStmt(ir.Var("x", INDEX), ghost, _SPAN))
    broken = _with(kernel, body=ir.SeqStmts(stmts, _SPAN))
    assert [(v.rule, v.code) for v in tiled.check(broken)] == [("UseAfterDef", "401")]


def test_an_assignment_sharing_dimensions_with_its_value_is_still_compared() -> None:
    program, kernel = _kernel()
    assign = kernel.body.stmts[1]
    value_type = assign.value.type
    # Same class and dimension objects, another dtype: the shortcut of equal shapes must not pass it.
    other = ir.TileType(value_type.shape, ir.FP16, None, None, value_type.memory_space)
    var = ir.Var("u", other)
    stmts = list(kernel.body.stmts)
    stmts[1] = ir.AssignStmt(var, assign.value, _SPAN)
    broken = _with(kernel, body=ir.SeqStmts(stmts, _SPAN))
    assert [(code, message) for code, message, _ in found(TypeChecked, broken)] == [
        ("102", "assignment to 'u': dtype fp16 vs fp32")
    ]


def test_keyword_arguments_holding_variables_are_read() -> None:
    n = ir.Var("n", INDEX)
    plain = ir.Call(ir.get_op("system.bar_v"), [], {"flag": ir.PipeType.V, "count": 2}, ir.UnknownType(), _SPAN)
    holding = ir.Call(ir.get_op("system.bar_v"), [], {"count": n}, ir.UnknownType(), _SPAN)
    assert expr_vars(plain) == ()
    assert expr_vars(holding) == (n,)


_LEFT = ir.Var("l", ir.TileType([16, 16], ir.FP16, None, None, ir.Mem.Left))
_RIGHT = ir.Var("r", ir.TileType([16, 16], ir.FP16, None, None, ir.Mem.Right))
_V = ir.Var("v", ir.TileType([16, 16], ir.FP16, None, None, ir.Mem.Vec))


def test_a_cube_op_added_to_a_checked_vector_kernel_is_caught() -> None:
    # An AIV kernel of vector ops only (their names give their side), checked.
    exp = ir.AssignStmt(ir.Var("e", _V.type), create_op_call("tile.exp", [_V], {}, _SPAN), _SPAN)
    kernel = ir.Function("k", [_V, _LEFT, _RIGHT], [], ir.SeqStmts([exp], _SPAN), _SPAN, type=ir.FunctionType.AIV)
    assert found(MixedKernelExpanded, ir.Program([kernel], "K", _SPAN)) == []
    # A cube op whose side its name gives, and a move whose side its spaces give (Left to Mat is cube
    # work), each added to the checked statement.
    matmul = create_op_call("tile.matmul", [_LEFT, _RIGHT], {}, _SPAN)
    move = create_op_call("tile.move", [_LEFT], {"target_memory": ir.Mem.Mat}, _SPAN)
    for call, text in ((matmul, "cube op tile.matmul"), (move, "cube op tile.move")):
        body = ir.SeqStmts([exp, ir.AssignStmt(ir.Var("x", call.type), call, _SPAN)], _SPAN)
        broken = ir.Program([ir.replace(kernel, body=body)], "K", _SPAN)
        assert [(code, message) for code, message, _ in found(MixedKernelExpanded, broken)] == [
            ("WRONG_SIDE", f"{text} in an AIV kernel")
        ]
