"""Expressions: literals and constants, static folding, closure values, operators and their
dtypes, op calls through namespaces, unified dispatch and promoted names."""

# ruff: noqa: F841  (names assigned inside DSL functions are DSL variables, read from the IR)

from __future__ import annotations

import math
import textwrap

import pytest
from dsl_helpers import assert_roundtrip

import pypto.language as pl
from pypto import ir
from pypto.language.parser.diagnostics import InvalidOperationError, ParserTypeError


def value_of(expr: str, params: str = "n: pl.INDEX, a: pl.INT64, k: pl.INT32, x: pl.FP32, p: pl.BOOL") -> ir.Expr:
    func = pl.parse(f"@pl.function\ndef f({params}):\n    v = {expr}\n")
    assert_roundtrip(func)
    return func.body.value


def test_literals() -> None:
    assert (value_of("7").value, value_of("7").dtype) == (7, pl.INDEX)
    assert (value_of("-7").value, value_of("0.5").dtype) == (-7, pl.FP32)
    assert value_of("True").value is True
    assert value_of("pl.const(3, pl.INT8)").dtype == pl.INT8
    assert value_of("pl.const(1, pl.FP16)").dtype == pl.FP16 and value_of("pl.const(1, pl.FP16)").value == 1.0
    assert value_of("pl.const(True, pl.BOOL)").value is True


def test_special_floats() -> None:
    assert math.isinf(value_of("inf").value) and value_of("-inf").value < 0
    assert math.isnan(value_of("nan").value)


def test_static_arithmetic_is_folded_but_typed_constants_are_not() -> None:
    assert value_of("2 * 3 + 1").value == 7
    assert value_of("7 / 2").value == 3.5 and value_of("2 ** 10").value == 1024
    assert value_of("1 < 2 and 3 > 2").value is True
    folded = value_of("pl.const(2, pl.INDEX) * 3")
    assert isinstance(folded, ir.Mul)
    with pytest.raises(InvalidOperationError, match="division by zero in a constant expression"):
        value_of("1 // 0")


def test_operator_dtypes_follow_promotion() -> None:
    assert value_of("a + n").dtype == pl.INT64  # INDEX and INT64 are never cast
    cast_sum = value_of("k + 1")
    assert isinstance(cast_sum.left, ir.Cast) and cast_sum.dtype == pl.INDEX
    assert value_of("x * 2.0").dtype == pl.FP32
    with pytest.raises(ParserTypeError, match="same numeric dtype category"):
        value_of("x + n")


def test_bool_operators() -> None:
    assert isinstance(value_of("p ^ (n > 1)"), ir.Xor)
    assert isinstance(value_of("n ^ 3"), ir.BitXor)
    assert isinstance(value_of("p & p"), ir.BitAnd) and value_of("p | p").dtype == pl.BOOL
    chained = value_of("1 < n < 9")
    assert isinstance(chained, ir.And) and isinstance(chained.left, ir.Lt) and isinstance(chained.right, ir.Lt)


def test_power_is_right_associative_and_parenthesised() -> None:
    v = value_of("(n ** 2) ** a")
    assert isinstance(v.left, ir.Pow)
    text = pl.parse("@pl.function\ndef f(n: pl.INDEX, a: pl.INDEX):\n    v = (n ** 2) ** a\n    w = n ** 2 ** a\n").as_python()
    assert "v: pl.Scalar[pl.INDEX] = (n ** 2) ** a" in text and "w: pl.Scalar[pl.INDEX] = n ** 2 ** a" in text


def test_unified_dispatch_on_scalars() -> None:
    assert isinstance(value_of("pl.add(n, 1)"), ir.Add) and isinstance(value_of("pl.mul(x, x)"), ir.Mul)


def test_min_max_abs_cast() -> None:
    assert isinstance(value_of("pl.min(n, 3)"), ir.Min) and isinstance(value_of("max(n, 3, a)"), ir.Max)
    assert value_of("min(2, 5)").value == 2
    assert isinstance(value_of("abs(a)"), ir.Abs)
    cast = value_of("pl.cast(k, pl.FP32)")
    assert isinstance(cast, ir.Cast) and cast.dtype == pl.FP32


CLOSURE_INT = 16
CLOSURE_FLOAT = 0.5
CLOSURE_LIST = [4, 8]
CLOSURE_EXPR = ir.ConstInt(3, pl.INT32, ir.Span.unknown())
CLOSURE_BOOL = True


def test_closure_values() -> None:
    local_tuple = (1, 2)

    @pl.function
    def f(x: pl.Tensor[[64, 64], pl.FP32]) -> pl.INDEX:
        a = CLOSURE_INT * 2
        b = CLOSURE_FLOAT
        c = CLOSURE_LIST[1] + local_tuple[0]
        d = CLOSURE_EXPR
        t = pl.tensor.slice(x, CLOSURE_LIST, [0, 0])
        e = CLOSURE_BOOL
        return a

    a, b, c, d, t, e, _ = f.body.stmts
    assert (a.value.value, b.value.value, c.value.value, e.value.value) == (32, 0.5, 9, True)
    assert d.value is CLOSURE_EXPR
    assert [e.value for e in t.value.args[1].elements] == CLOSURE_LIST
    assert_roundtrip(f)


def test_closure_dynamic_dimension_and_annotation_alias() -> None:
    rows = pl.dynamic("rows")
    row_tensor = pl.Tensor[[rows, 64], pl.FP32]

    @pl.function
    def f(x: row_tensor) -> pl.INDEX:
        y: row_tensor = pl.exp(x)
        return rows

    assert f.params[0].type.shape[0] is rows.var
    assert f.body.stmts[1].value[0] is rows.var
    assert f.body.stmts[0].var.type.shape[0] is rows.var


def test_closure_dynamic_valid_extent_in_a_tensor_view_alias() -> None:
    """``pl.TensorView(valid_shape=[m, 64])`` built in Python (an alias, or an annotation evaluated at def
    time) holds the dimension's Var, as ``pl.Tensor[[m, 64], ...]`` does."""
    m = pl.dynamic("m")
    view = pl.TensorView(valid_shape=[m, 64], stride=[], layout=pl.TensorLayout.ND)
    block = pl.Tensor[[32, 64], pl.FP32, view]

    @pl.function(type=pl.FunctionType.InCore)
    def f(x: block, out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        t: pl.Tile[[32, 64], pl.FP32] = pl.load(x, [0, 0], [32, 64])
        out = pl.store(t, [0, 0], out)
        return out

    assert view.valid_shape[0] is m.var
    assert f.params[0].type.tensor_view.valid_shape[0] is m.var
    assert_roundtrip(f)


def test_op_namespaces_unified_dispatch_and_promoted_names() -> None:
    text = textwrap.dedent(
        """
        @pl.function(type=pl.FunctionType.InCore)
        def f(x: pl.Tensor[[64, 64], pl.FP32], s: pl.FP32) -> pl.Tensor[[64, 64], pl.FP32]:
            a = pl.tensor.add(x, x)
            b = pl.add(x, s)
            c = pl.load(x, [0, 0], [64, 64])
            d = pl.tile.add(c, c)
            e = pl.mul(d, 2.0)
            g = pl.exp(e)
            h = pl.tile.cast(g, pl.FP16, mode='round')
            pl.system.sync_set(0, pipe=pl.PipeType.MTE2)
            return a
        """
    )
    func = pl.parse(text)
    names = [s.value.op.name if isinstance(s, ir.AssignStmt) else s.expr.op.name for s in func.body.stmts[:-1]]
    assert names == ["tensor.add", "tensor.adds", "tile.load", "tile.add", "tile.muls", "tile.exp", "tile.cast", "system.sync_set"]
    assert func.body.stmts[6].value.kwargs["mode"] == 2
    assert_roundtrip(func)


def test_printed_op_forms_parse_back() -> None:
    text = textwrap.dedent(
        """
        @pl.function(type=pl.FunctionType.InCore, level=pl.Level.CHIP_DIE, role=pl.Role.SubWorker)
        def f(x: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
            t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec)
            u: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.muls(t, 2.0)
            v: pl.Tile[[64, 64], pl.FP16, pl.Mem.Vec] = pl.tile.cast(u, target_type=pl.FP16, mode='round')
            w: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.adds(x, 1.0)
            pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)
            r: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(u, [0, 0], x)
            return r
        """
    ).strip()
    func = pl.parse(text)
    assert func.as_python() == text


def test_namespaced_arithmetic_with_a_scalar_rhs_round_trips() -> None:
    """``pl.tensor.add(t, 1.0)`` is ``tensor.adds`` (ops.md §4.2), so it prints and parses back the same."""
    value = value_of("pl.tensor.add(t, 1.0)", "t: pl.Tensor[[64], pl.FP32]")
    assert value.op.name == "tensor.adds"
    assert value_of("pl.tile.mul(u, 2.0)", "u: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec]").op.name == "tile.muls"


@pytest.mark.parametrize(
    ("expr", "message"),
    [
        ("(10 ** 4000) ** 4000", "integer too large in a constant expression"),
        ("2 ** 10 ** 10", "exponent too large in a constant expression"),
        ("1 << 10 ** 10", "shift too large in a constant expression"),
        ("[0] * 10 ** 12", "sequence too large in a constant expression"),
    ],
)
def test_static_folding_refuses_huge_values(expr: str, message: str) -> None:
    """Folding in function bodies has the same size bounds as module-level constants (untrusted text)."""
    with pytest.raises(InvalidOperationError) as err:
        value_of(expr)
    assert err.value.message == message
