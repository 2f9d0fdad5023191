"""Every example program of the DSL specification (seed python_syntax.zh.md) parses, prints and
round-trips, each as its own test, in the order of the specification."""

# ruff: noqa: F841  (names assigned inside DSL functions are DSL variables, read from the IR)

from __future__ import annotations

import pytest
from dsl_helpers import assert_roundtrip

import pypto.language as pl
from pypto import ir
from pypto.language.parser.diagnostics import ParserSyntaxError, ParserTypeError

# ----- 模块结构 (module structure) ---------------------------------------------------------------

HEADER_PROGRAM = """\
# pypto.program: program_name
import pypto.language as pl

@pl.program
class program_name:
    @pl.function
    def main(self, x: pl.Scalar[pl.INT64]) -> pl.Scalar[pl.INT64]:
        return x
"""


def test_module_structure_named_program() -> None:
    prog = pl.parse_program(HEADER_PROGRAM)
    assert prog.name == "program_name"
    assert assert_roundtrip(prog) == HEADER_PROGRAM.rstrip("\n")


def test_module_structure_unnamed_program_and_prefixes() -> None:
    unnamed = "# pypto.program\nimport pypto.language as pl\n\n@pl.function\ndef f(x: pl.INT64) -> pl.INT64:\n    return x\n"
    prog = pl.parse_program(unnamed)
    assert prog.name == "" and next(iter(prog.functions)).name == "f"
    legacy = "from pypto import language as ir\n\n@ir.function\ndef f(x: ir.Scalar[ir.INT64]) -> ir.Scalar[ir.INT64]:\n    return x\n"
    custom = "import pypto.language as dsl\n\n@dsl.function\ndef f(x: dsl.INT64) -> dsl.INT64:\n    return x\n"
    ir.assert_structural_equal(pl.parse(legacy), pl.parse(custom))
    assert pl.parse(legacy).as_python("ir") == legacy.split("\n\n", 1)[1].rstrip("\n")


# ----- 类型系统 (type system) ---------------------------------------------------------------------


@pl.function
def scalar_types(x: pl.INT64, y: pl.FP32, z: pl.BOOL) -> pl.INT64:
    a: pl.INT64 = x
    b: pl.FP32 = y
    c: pl.BOOL = z
    return a


def test_scalar_types() -> None:
    assert [p.type for p in scalar_types.params] == [
        ir.ScalarType(pl.INT64),
        ir.ScalarType(pl.FP32),
        ir.ScalarType(pl.BOOL),
    ]
    assert_roundtrip(scalar_types)


@pytest.mark.parametrize(
    "name",
    ["INT4", "INT8", "INT16", "INT32", "INT64", "UINT4", "UINT8", "UINT16", "UINT32", "UINT64", "FP4", "FP8",
     "FP16", "FP32", "BF16", "HF4", "HF8", "BOOL"],
)
def test_every_scalar_type_of_the_table(name: str) -> None:
    func = pl.parse(f"@pl.function\ndef f(x: pl.{name}) -> pl.Scalar[pl.{name}]:\n    return x\n")
    assert func.params[0].type == ir.ScalarType(getattr(pl, name))
    assert_roundtrip(func)


n = pl.dynamic("n")
m = pl.dynamic("m")


@pl.function
def tensor_tile_types(
    a: pl.Tensor[[4, 8], pl.FP32],
    b: pl.Tensor[[n, m], pl.INT64],
    t: pl.Tile[[16, 16], pl.FP16],
) -> pl.Tensor[[4, 8], pl.FP32]:
    return a


def test_tensor_and_tile_types() -> None:
    a, b, t = tensor_tile_types.params
    assert a.type == ir.TensorType([4, 8], pl.FP32)
    assert b.type.shape[0] is n.var and b.type.shape[1] is m.var
    assert t.type == ir.TileType([16, 16], pl.FP16)
    assert_roundtrip(tensor_tile_types, auto_mapping=True)


span = ir.Span.unknown()
addr_expr = pl.ConstInt(0x1000, pl.INT64, span)
memref = pl.MemRef(addr_expr, 1024, 0)


@pl.function
def memref_types(
    tensor: pl.Tensor[[64, 128], pl.FP32, pl.MemRef(addr_expr, 8192, 0)],
    tile: pl.Tile[[16, 16], pl.FP16, pl.MemRef(addr_expr, 512, 0), pl.Mem.Left],
) -> pl.Tensor[[64, 128], pl.FP32]:
    return tensor


def test_memref_annotations() -> None:
    tensor, tile = memref_types.params
    assert tensor.type.memref.size == 8192 and tensor.type.memref.byte_offset.value == 0x1000
    assert tile.type.memref.size == 512 and tile.type.memory_space == pl.Mem.Left
    assert pl.Mem is pl.MemorySpace
    text = assert_roundtrip(memref_types)
    assert 'pl.Tile[[16, 16], pl.FP16, pl.MemRef("mem_0", pl.const(4096, pl.INT64), 512), pl.Mem.Left]' in text


valid_shape = [pl.ConstInt(16, pl.INT64, span)] * 2
stride = [pl.ConstInt(1, pl.INT64, span), pl.ConstInt(16, pl.INT64, span)]
start_offset = pl.ConstInt(0, pl.INT64, span)
tile_view = pl.TileView(valid_shape=valid_shape, stride=stride, start_offset=start_offset)


@pl.function
def tile_view_types(
    tile: pl.Tile[
        [16, 16], pl.FP16,
        pl.MemRef(addr_expr, 512, 0), pl.Mem.Left,
        pl.TileView(valid_shape=valid_shape, stride=stride, start_offset=start_offset),
    ],
    implicit: pl.Tile[[16, 16], pl.FP16, pl.Mem.Left],
    explicit: pl.Tile[[16, 16], pl.FP16, pl.Mem.Left, pl.TileView()],
) -> pl.Tile[[16, 16], pl.FP16, pl.Mem.Left]:
    return implicit


def test_tile_view_annotations() -> None:
    tile, implicit, explicit = tile_view_types.params
    view = tile.type.tile_view
    assert [s.value for s in view.stride] == [1, 16] and view.start_offset.value == 0
    assert tile.type.get_effective_tile_view().valid_shape[0].value == 16
    # an explicit view that repeats the implicit defaults is the omitted form
    assert implicit.type.tile_view is None and explicit.type.tile_view is None
    assert implicit.type == explicit.type
    assert_roundtrip(tile_view_types)


# ----- 表达式 (expressions) -----------------------------------------------------------------------


@pl.function
def constants(x: pl.INT64) -> pl.INT64:
    a = 42
    b = 3.14
    c = pl.const(42, pl.INT64)
    d = pl.const(32, pl.INDEX) + pl.const(32, pl.INDEX)
    e = 32 + 32
    return x


def test_variables_and_constants() -> None:
    a, b, c, d, e, _ = constants.body.stmts
    assert a.value.dtype == pl.INDEX and a.value.value == 42
    assert b.value.dtype == pl.FP32 and b.value.value == 3.14
    assert c.value.dtype == pl.INT64
    assert isinstance(d.value, ir.Add)  # typed leaves are not folded
    assert isinstance(e.value, ir.ConstInt) and e.value.value == 64  # Python literal arithmetic is
    text = assert_roundtrip(constants)
    assert "d: pl.Scalar[pl.INDEX] = pl.const(32, pl.INDEX) + pl.const(32, pl.INDEX)" in text


OFFSET = [0, 0]
TILE_SHAPE = [64, 64]


@pl.function
def func(t: pl.Tensor[[128, 128], pl.FP32], out: pl.Tensor[[128, 128], pl.FP32]) -> pl.Tensor[[128, 128], pl.FP32]:
    a: pl.Tile[[64, 64], pl.FP32] = pl.tile.load(t, OFFSET, TILE_SHAPE)  # closure vars as positional args
    return out


def test_closure_variables() -> None:
    load = func.body.stmts[0].value
    assert load.op.name == "tile.load"
    assert [e.value for e in load.args[1].elements] == OFFSET
    assert [e.value for e in load.args[2].elements] == TILE_SHAPE
    assert_roundtrip(func)


@pl.function
def subscripts(
    C: pl.Tensor[[64, 64, 64, 64], pl.FP32], i: pl.Scalar[pl.INDEX], j: pl.Scalar[pl.INDEX],
    k: pl.Scalar[pl.INDEX], l: pl.Scalar[pl.INDEX],
) -> pl.Scalar[pl.FP32]:
    s = C[i, j, k, l]  # all scalar, full rank   -> scalar
    v2 = C[i, j]  # partial, all scalar      -> 64×64 view (dims 0,1 dropped)
    v3 = C[i]  # partial                  -> 64×64×64 view (dim 0 dropped)
    chained = C[i][j]  # chained                  -> works (C[i] is 3D, then [j])
    mixed = C[i:i + 8, j]  # mixed slice + scalar     -> 8×64×64 view (dim 1 dropped)
    full = C[i:i + 8, :, :, :]  # all slices            -> 8×64×64×64 view
    return s


def test_subscript_indexing_table() -> None:
    stmts = subscripts.body.stmts
    shapes = [[d.value for d in s.var.type.shape] for s in stmts[1:6]]
    assert stmts[0].value.op.name == "tensor.read" and stmts[0].var.type == ir.ScalarType(pl.FP32)
    assert shapes == [[64, 64], [64, 64, 64], [64, 64], [8, 64, 64], [8, 64, 64, 64]]
    drop = [[e.value for e in s.value.args[4].elements] if len(s.value.args) > 4 else [] for s in stmts[1:6]]
    assert drop == [[0, 1], [0], [0], [1], []]
    assert_roundtrip(subscripts)


@pl.function
def binary_ops(a: pl.INT64, b: pl.INT64, x: pl.FP32, y: pl.FP32, p: pl.BOOL, q: pl.BOOL) -> pl.INT64:
    r_add = a + b
    r_sub = a - b
    r_mul = a * b
    r_floordiv = a // b
    r_mod = a % b
    r_div = x / y
    r_pow = a ** b
    r_eq = a == b
    r_ne = a != b
    r_lt = a < b
    r_le = a <= b
    r_gt = a > b
    r_ge = a >= b
    r_and = p and q
    r_or = p or q
    r_xor = p ^ q
    r_bitand = a & b
    r_bitor = a | b
    r_shl = a << b
    r_shr = a >> b
    r_chain = p and q and r_lt
    return r_add


def test_binary_operator_table() -> None:
    nodes = [type(s.value).__name__ for s in binary_ops.body.stmts[:-1]]
    assert nodes == [
        "Add", "Sub", "Mul", "FloorDiv", "FloorMod", "FloatDiv", "Pow", "Eq", "Ne", "Lt", "Le", "Gt", "Ge",
        "And", "Or", "Xor", "BitAnd", "BitOr", "BitShiftLeft", "BitShiftRight", "And",
    ]
    chain = binary_ops.body.stmts[-2].value
    assert isinstance(chain.left, ir.And)  # a and b and c -> And(And(a, b), c)
    assert_roundtrip(binary_ops)


@pl.function
def unary_ops(x: pl.INT64, y: pl.INT64, p: pl.BOOL) -> pl.INT64:
    neg = -x
    bitnot = ~x
    lnot = not p
    absolute = abs(x)
    smaller = min(x, y)
    larger = max(x, y)
    return neg


def test_unary_operations_and_functions() -> None:
    nodes = [type(s.value).__name__ for s in unary_ops.body.stmts[:-1]]
    assert nodes == ["Neg", "BitNot", "Not", "Abs", "Min", "Max"]
    assert_roundtrip(unary_ops)


# ----- 函数/操作调用 (op calls) --------------------------------------------------------------------


@pl.function(type=pl.FunctionType.InCore)
def op_calls(
    a: pl.Tensor[[64, 64], pl.FP32], b: pl.Tensor[[64, 64], pl.FP32], t: pl.Tensor[[64, 64], pl.FP32]
) -> pl.Tensor[[64, 64], pl.FP32]:
    s = pl.tensor.add(a, b)  # Tensor addition
    tile_t = pl.tile.load(t, [0, 0], [64, 64])  # Tile load
    u = pl.add(a, b)  # Tensor or Tile — dispatched automatically
    tile_m = pl.mul(tile_t, 2.0)  # Tile + scalar -> tile.muls
    tile_e = pl.exp(tile_t)  # Tile -> tile.exp
    tile_l = pl.load(t, [0, 0], [64, 64])  # Promoted from block
    created = pl.create_tensor([64], dtype=pl.FP32)  # Promoted from tensor
    pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)
    pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)
    pl.system.bar_v()  # Vector barrier
    pl.system.bar_m()  # Matrix barrier
    pl.system.bar_all()  # Global barrier
    return s


def test_op_calls() -> None:
    names = [s.value.op.name if isinstance(s, ir.AssignStmt) else s.expr.op.name for s in op_calls.body.stmts[:-1]]
    assert names == [
        "tensor.add", "tile.load", "tensor.add", "tile.muls", "tile.exp", "tile.load", "tensor.create",
        "system.sync_src", "system.sync_dst", "system.bar_v", "system.bar_m", "system.bar_all",
    ]
    assert_roundtrip(op_calls)


@pl.function(type=pl.FunctionType.AIV)
def vector_push(t: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
    tile0 = pl.load(t, [0, 0], [64, 64])
    tile1 = pl.load(t, [0, 0], [64, 64])
    pl.tpush_to_aic(tile0, split=0, id=0)  # Vector → Cube push on pipe 0
    pl.tpush_to_aic(tile1, split=0, id=1)  # Vector → Cube push on pipe 1
    peer = pl.import_peer_buffer(name="slot_buf", peer_func="other_func")
    pl.aiv_initialize_pipe(pl.const(0, pl.INT32), peer, dir_mask=2, slot_size=512, id=0)
    return t


@pl.function(type=pl.FunctionType.AIC)
def cube_pop(t: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
    buf = pl.reserve_buffer(name="slot_buf", size=4096, base=pl.AUTO)
    pl.aic_initialize_pipe(pl.const(0, pl.INT32), buf, dir_mask=2, slot_size=512, id=0)
    pl.aic_initialize_pipe(pl.const(0, pl.INT32), buf, dir_mask=2, slot_size=512, slot_num=16, local_slot_num=4)
    tile0: pl.Tile[[64, 64], pl.FP32, pl.Mem.Mat] = pl.tpop_from_aiv(split=0, id=0)  # Cube pops from Vector pipe 0
    tile1: pl.Tile[[64, 64], pl.FP32, pl.Mem.Mat] = pl.tpop_from_aiv(split=0, id=1)  # Cube pops from Vector pipe 1
    pl.tfree_to_aiv(tile0, id=0)  # Release slot to Vector pipe 0
    pl.tfree_to_aiv(tile1, id=1)  # Release slot to Vector pipe 1
    return t


def test_cross_core_operations() -> None:
    assert_roundtrip(vector_push)
    assert_roundtrip(cube_pop, concise=False)  # tpop results are typed by their annotation


def test_a_pop_used_without_its_tile_type_says_to_annotate_it() -> None:
    code = """
import pypto.language as pl

@pl.function(type=pl.FunctionType.AIC)
def cube_pop(t: pl.Tensor[[16, 16], pl.FP32]) -> pl.Tensor[[16, 16], pl.FP32]:
    buf = pl.reserve_buffer(name="slot_buf", size=4096, base=pl.AUTO)
    pl.aic_initialize_pipe(pl.const(0, pl.INT32), buf, dir_mask=2, slot_size=512, id=0)
    tile0 = pl.tpop_from_aiv(split=0, id=0)
    left = pl.move(tile0, target_memory=pl.Mem.Left)
    return t
"""
    with pytest.raises(ParserTypeError) as info:
        pl.parse(code)
    err = info.value
    assert err.message == "Operator 'tile.move': argument 'tile' must be a Tile, got UnknownType"
    assert err.hint == (
        "'tile0' has no type: a pl.tpop_from_aic/pl.tpop_from_aiv takes the tile type of its annotation, e.g. "
        "tile0: pl.Tile[[16, 16], pl.FP16, pl.Mem.Mat] = pl.tpop_from_aiv(split=0, id=0), or of its shape= and "
        "dtype= arguments"
    )
    assert err.location.begin_line == 9


# ----- 语句 (statements) ---------------------------------------------------------------------------


@pl.function
def assignments(a: pl.Tensor[[4], pl.FP32], expr: pl.INT64) -> pl.Tensor[[4], pl.FP32]:
    x: pl.INT64 = expr
    y: pl.Tensor[[4], pl.FP32] = pl.exp(a)
    return y


def test_assignment() -> None:
    assert_roundtrip(assignments)


@pl.function
def if_single(condition: pl.BOOL, value1: pl.INT64, value2: pl.INT64) -> pl.INT64:
    if condition:
        y1 = pl.yield_(value1)
    else:
        y1 = pl.yield_(value2)
    return y1


@pl.function
def if_multiple(condition: pl.BOOL, value1: pl.INT64, value2: pl.INT64, value3: pl.INT64, value4: pl.INT64) -> pl.INT64:
    if condition:
        y1, y2 = pl.yield_(value1, value2)
    else:
        y1, y2 = pl.yield_(value3, value4)
    return y1 + y2


def test_if_statement_ssa() -> None:
    stmt = if_single.body.stmts[0]
    assert [v.name_hint for v in stmt.return_vars] == ["y1"]
    assert if_single.body.stmts[1].value[0] is stmt.return_vars[0]  # the phi is visible after the if
    assert len(if_multiple.body.stmts[0].return_vars) == 2
    assert_roundtrip(if_single)
    assert_roundtrip(if_multiple)


@pl.function
def range_forms(start: pl.Scalar[pl.INDEX], stop: pl.Scalar[pl.INDEX], step: pl.Scalar[pl.INDEX]) -> pl.INDEX:
    for i in pl.range(stop):  # start=0, step=1
        a = i
    for i in pl.range(start, stop):  # step=1
        b = i
    for i in pl.range(start, stop, step):  # 完整形式
        c = i
    for i in pl.parallel(stop):
        d = i
    for i in pl.parallel(start, stop, step):
        e = i
    return stop


def test_for_loop_forms() -> None:
    loops = range_forms.body.stmts[:-1]
    assert [(s.start.value if isinstance(s.start, ir.ConstInt) else s.start.name_hint) for s in loops[:3]] == [
        0, "start", "start"
    ]
    assert [s.kind for s in loops] == [pl.ForKind.Sequential] * 3 + [pl.ForKind.Parallel] * 2
    assert_roundtrip(range_forms)


@pl.function
def iter_args_loop(n: pl.Scalar[pl.INDEX]) -> pl.INT64:
    sum_init: pl.INT64 = 0
    for i, (sum,) in pl.range(n, init_values=(sum_init,)):
        sum = pl.yield_(sum + i)
    sum_final = sum
    return sum_final


def test_for_loop_with_iter_args() -> None:
    loop = iter_args_loop.body.stmts[1]
    assert [a.name_hint for a in loop.iter_args] == ["sum"] and loop.iter_args[0].initValue.name_hint == "sum_init"
    final = iter_args_loop.body.stmts[2]
    assert final.value is loop.return_vars[0]  # after the loop, `sum` is the loop result
    assert_roundtrip(iter_args_loop)


@pl.function
def natural_while(n: pl.INT64) -> pl.INT64:
    i: pl.Scalar[pl.INT64] = 0
    while i < n:
        i = i + 1
    return i


@pl.function
def ssa_while(n: pl.INT64) -> pl.INT64:
    x_init: pl.Scalar[pl.INT64] = 0
    for (x,) in pl.while_(init_values=(x_init,)):
        pl.cond(x < n)
        x_next = pl.yield_(x + 1)
    return x_next


@pl.function
def pre_ssa_while(n: pl.INT64) -> pl.INT64:
    x_init: pl.Scalar[pl.INT64] = 0
    for (x,) in pl.while_(init_values=(x_init,)):
        pl.cond(x < n)
        x = x + 1
    return x_init


def test_while_loops() -> None:
    loop = natural_while.body.stmts[1]
    assert isinstance(loop, ir.WhileStmt) and not loop.iter_args
    ssa = ssa_while.body.stmts[1]
    assert [v.name_hint for v in ssa.return_vars] == ["x_next"] and ssa.iter_args[0].name_hint == "x"
    pre = pre_ssa_while.body.stmts[1]
    assert len(pre.iter_args) == 1 and pre.return_vars == []
    for fn in (natural_while, ssa_while, pre_ssa_while):
        assert_roundtrip(fn)


def test_while_bare_yield_is_rejected() -> None:
    with pytest.raises(ParserSyntaxError, match="requires assignment-form pl.yield_") as err:
        pl.parse(
            "@pl.function\n"
            "def f(n: pl.INT64, x_init: pl.INT64) -> pl.INT64:\n"
            "    for (x,) in pl.while_(init_values=(x_init,)):\n"
            "        pl.cond(x < n)\n"
            "        pl.yield_(x + 1)\n"
            "    return n\n"
        )
    assert err.value.location.begin_line == 5


@pl.function
def yield_statements(n: pl.Scalar[pl.INDEX], x: pl.INT64, y: pl.INT64) -> pl.INT64:
    for i in pl.range(n):
        yield
    for i, (a,) in pl.range(n, init_values=(x,)):
        yield a + 1
    for i, (b, c) in pl.range(n, init_values=(x, y)):
        yield b, c
    return a + b + c


def test_yield_statements() -> None:
    loops = yield_statements.body.stmts[:3]
    assert loops[0].body.value == []
    assert [v.name_hint for v in loops[1].return_vars] == ["a"]
    assert [v.name_hint for v in loops[2].return_vars] == ["b", "c"]
    assert_roundtrip(yield_statements)


@pl.function
def break_continue(n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
    for i in pl.range(n):
        if i > 4:
            break
        continue
    for j in pl.parallel(n):
        for k in pl.range(n):  # legal: the innermost loop is sequential
            break
    return n


def test_break_and_continue() -> None:
    assert_roundtrip(break_continue)


def test_break_in_parallel_loop_is_rejected() -> None:
    with pytest.raises(ParserSyntaxError, match="'break' is not supported inside a pl.parallel loop"):
        pl.parse("@pl.function\ndef f(n: pl.INDEX) -> pl.INDEX:\n    for i in pl.parallel(n):\n        break\n    return n\n")
    with pytest.raises(ParserSyntaxError, match="'continue' is not supported inside a pl.unroll loop"):
        pl.parse("@pl.function\ndef f(n: pl.INDEX) -> pl.INDEX:\n    for i in pl.unroll(4):\n        continue\n    return n\n")


N = 64


def test_static_print_and_static_assert(capsys: pytest.CaptureFixture[str]) -> None:
    @pl.function
    def func(x: pl.Tensor[[128, 64], pl.FP16]) -> pl.Tensor[[128, 64], pl.FP16]:
        pl.static_print("input:", x)
        pl.static_print(f"input: {x}")
        pl.static_assert(True)
        pl.static_assert(N > 32, "N too small")
        return x

    out = capsys.readouterr().out.splitlines()
    line = func.span.begin_line  # the def line; the prints are the next two lines
    expected = f"static_print [{__file__}:{line + 1}]: input: x: pl.Tensor[[128, 64], pl.FP16]"
    assert out == [expected, expected.replace(f":{line + 1}]", f":{line + 2}]")]
    assert isinstance(func.body, ir.ReturnStmt)  # the checks produce no IR
    assert_roundtrip(func)


# ----- 函数 (functions) -----------------------------------------------------------------------------


@pl.function
def single_return(param1: pl.INT64, param2: pl.FP32) -> pl.INT64:
    x: pl.INT64 = param1 + 1
    return x


@pl.function
def multiple_returns(x: pl.INT64) -> tuple[pl.INT64, pl.INT64]:
    y: pl.INT64 = x + 1
    z: pl.INT64 = x * 2
    return y, z


@pl.function
def no_return(x: pl.INT64):
    y: pl.INT64 = x + 1


@pl.function(type=pl.FunctionType.Orchestration)
def orchestrator(n: pl.INT64) -> pl.INT64:
    return n + 1


@pl.function(type=pl.FunctionType.InCore)
def aicore_kernel(x: pl.INT64) -> pl.INT64:
    return x * 2


def test_functions() -> None:
    assert multiple_returns.return_types == [ir.ScalarType(pl.INT64)] * 2
    assert no_return.return_types == []
    assert single_return.func_type == pl.FunctionType.Opaque
    assert orchestrator.func_type == pl.FunctionType.Orchestration and orchestrator.level == pl.Level.CHIP
    assert aicore_kernel.func_type == pl.FunctionType.InCore and aicore_kernel.role == pl.Role.SubWorker
    for fn in (single_return, multiple_returns, no_return, orchestrator, aicore_kernel):
        assert_roundtrip(fn)


@pl.function(type=pl.FunctionType.InCore)
def kernel(
    qi: pl.Tensor[[16, 128], pl.BF16],  # In (default)
    output: pl.InOut[pl.Tensor[[16, 128], pl.FP32]],  # InOut
    result: pl.Out[pl.Tensor[[16, 128], pl.FP32]],  # Out
    scale: pl.Scalar[pl.FP32],  # In (default)
) -> pl.Tensor[[16, 128], pl.FP32]:
    ...


def test_parameter_directions() -> None:
    assert kernel.param_directions == [
        pl.ParamDirection.In, pl.ParamDirection.InOut, pl.ParamDirection.Out, pl.ParamDirection.In
    ]
    assert kernel.requires_runtime_binding
    assert_roundtrip(kernel)


def test_scalar_inout_is_rejected() -> None:
    with pytest.raises(ParserTypeError, match="Scalar parameters cannot be InOut"):
        pl.parse("@pl.function\ndef f(s: pl.InOut[pl.Scalar[pl.FP32]]) -> pl.FP32:\n    return s\n")


# ----- 完整示例 (complete examples) -------------------------------------------------------------------

LOOP_SUM = """\
# pypto.program: my_program
import pypto.language as pl

def loop_sum(n: pl.INT64) -> pl.INT64:
    sum_init: pl.INT64 = 0
    for i, (sum,) in pl.range(n, init_values=(sum_init,)):
        sum = pl.yield_(sum + i)
    return sum
"""


def test_complete_example_loop_sum() -> None:
    prog = pl.parse_program(LOOP_SUM)
    assert prog.name == "my_program"
    loop_sum = prog.get_function("loop_sum")
    assert isinstance(loop_sum.body.stmts[1], ir.ForStmt)
    assert_roundtrip(prog)
    assert_roundtrip(pl.parse(LOOP_SUM))


@pl.program
class BlockExample:
    @pl.function
    def tile_add(
        self,
        input_a: pl.Tensor[[64, 64], pl.FP32],
        input_b: pl.Tensor[[64, 64], pl.FP32],
        output: pl.Tensor[[64, 64], pl.FP32],
    ) -> pl.Tensor[[64, 64], pl.FP32]:
        tile_a: pl.Tile[[64, 64], pl.FP32] = pl.load(input_a, [0, 0], [64, 64])
        tile_b: pl.Tile[[64, 64], pl.FP32] = pl.load(input_b, [0, 0], [64, 64])
        tile_c: pl.Tile[[64, 64], pl.FP32] = pl.add(tile_a, tile_b)
        result: pl.Tensor[[64, 64], pl.FP32] = pl.store(tile_c, [0, 0], output)
        return result


def test_complete_example_tile_operations() -> None:
    func = BlockExample.get_function("tile_add")
    assert [s.value.op.name for s in func.body.stmts[:4]] == ["tile.load", "tile.load", "tile.add", "tile.store"]
    assert func.body.stmts[0].var.type == ir.TileType([64, 64], pl.FP32, memory_space=pl.Mem.Vec)
    text = assert_roundtrip(BlockExample)
    assert "tile_c: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.add(tile_a, tile_b)" in text


@pl.function
def ssa_control_flow(condition: pl.BOOL, x: pl.INT64) -> pl.INT64:
    # If: phi node at merge point
    if condition:
        y1 = pl.yield_(x + 1)
    else:
        y1 = pl.yield_(x + 2)
    # y1 = phi(x + 1, x + 2)

    # For: loop-carried values via iter_args
    sum_init: pl.INT64 = 0
    for i, (sum,) in pl.range(10, init_values=(sum_init,)):
        sum = pl.yield_(sum + i)
    sum_final: pl.INT64 = sum  # captures final value
    return sum_final + y1


def test_ssa_control_flow() -> None:
    assert ssa_control_flow.body.stmts[0].leading_comments == ["If: phi node at merge point"]
    assert ssa_control_flow.body.stmts[1].leading_comments == ["y1 = phi(x + 1, x + 2)", "For: loop-carried values via iter_args"]
    assert_roundtrip(ssa_control_flow)


# ----- 跨模块函数复用 (reusing functions across modules) -----------------------------------------------


@pl.function
def softmax(x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
    y: pl.Tensor[[64], pl.FP32] = pl.exp(x)
    return y


@pl.program
class MyModel:
    @pl.function
    def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        y: pl.Tensor[[64], pl.FP32] = softmax(x)  # ir.Call(GlobalVar("softmax"), [x])
        return y


def test_external_function_call() -> None:
    call = MyModel.get_function("main").body.stmts[0].value
    assert isinstance(call.op, ir.GlobalVar) and call.op.name == "softmax"
    assert MyModel.get_function("softmax") is softmax
    assert_roundtrip(MyModel)


@pl.inline
def normalize(x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
    result: pl.Tensor[[64], pl.FP32] = pl.mul(x, 2.0)
    return result


@pl.program
class MyInlineModel:
    @pl.function
    def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        y: pl.Tensor[[64], pl.FP32] = normalize(x)  # statements inlined in-place
        return y


def test_inline_function() -> None:
    main = MyInlineModel.get_function("main")
    assert list(MyInlineModel.functions) == [ir.GlobalVar("main")]  # nothing added to the program
    first, second, _ = main.body.stmts
    assert first.var.name_hint == "result" and first.value.op.name == "tensor.muls"
    assert second.var.name_hint == "y" and second.value is first.var
    assert_roundtrip(MyInlineModel)


# ----- 打印 IR 节点 (printing) -----------------------------------------------------------------------


@pl.program
class Printing:
    @pl.function
    def main(self, x: pl.Tensor[[64, 128], pl.FP32]) -> pl.Tensor[[64, 128], pl.FP16]:
        y: pl.Tensor[[64, 128], pl.FP32] = pl.exp(x)
        result: pl.Tensor[[64, 128], pl.FP16] = pl.cast(y, pl.FP16)
        return result


def test_verbose_and_concise_printing() -> None:
    main = Printing.get_function("main")
    assert main.as_python(concise=True).splitlines()[1:] == [
        "def main(x: pl.Tensor[[64, 128], pl.FP32]) -> pl.Tensor[[64, 128], pl.FP16]:",
        "    y = pl.tensor.exp(x)",
        "    result = pl.tensor.cast(y, target_type=pl.FP16, mode='round')",
        "    return result",
    ]
    assert main.body.stmts[0].as_python("ir") == "y: ir.Tensor[[64, 128], ir.FP32] = ir.tensor.exp(x)"
    assert_roundtrip(Printing)
    ir.assert_structural_equal(pl.parse(main.as_python(concise=True)), main)
