"""Issue 13: diagnostics renderer, IRBuilder additions, positional spans of ir.op builders, DynVar arithmetic."""

from __future__ import annotations

import pytest
from pypto.ir.builder import IRBuilder
from pypto.language.parser.diagnostics import ParserError
from pypto.language.parser.diagnostics.renderer import ErrorRenderer, concise_error_message

import pypto.language as pl
from pypto import ir

BAD = """
@pl.function
def f(x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
    y = undefined_name
    return y
"""


def _parse_error() -> ParserError:
    with pytest.raises(ParserError) as info:
        pl.parse(BAD)
    return info.value


def test_error_renderer_renders_the_diagnostic() -> None:
    err = _parse_error()
    assert ErrorRenderer(use_color=False).render(err) == err.format_error() == f"{type(err).__name__}: {err}"
    coloured = ErrorRenderer(use_color=True).render(err)
    assert coloured != err.format_error()
    assert "\033[" in coloured
    plain = coloured
    for code in ("\033[31m", "\033[34m", "\033[1m", "\033[0m"):
        plain = plain.replace(code, "")
    assert plain == err.format_error()


def test_error_renderer_of_other_errors_and_concise_message() -> None:
    err = _parse_error()
    assert concise_error_message(err) == f"{type(err).__name__}: {err.message} (<string>:4:9)"
    other = ir.IRValueError("bad value\nsecond line")
    assert ErrorRenderer().render(other) == "IRValueError: bad value\nsecond line"
    assert concise_error_message(other) == "IRValueError: bad value"


INDEX = ir.ScalarType(ir.INDEX)


def test_ir_builder_return_stmt_and_declare_function() -> None:
    ib = IRBuilder()
    with ib.program("prog") as prog:
        callee = prog.declare_function("helper")
        assert callee == ir.GlobalVar("helper")
        with ib.function("main") as f:
            n = f.param("n", INDEX)
            f.return_type(INDEX)
            r = ib.let("r", ir.Call(callee, [n], INDEX, ir.Span.unknown()))
            ib.return_stmt(r)
        with ib.function("helper") as h:
            m = h.param("m", INDEX)
            h.return_type(INDEX)
            ib.return_stmt([ir.add(m, 1)])
    program = prog.get_result()
    ir.assert_structural_equal(program.get_function("main").body.stmts[-1], ir.ReturnStmt([r], ir.Span.unknown()))
    again = pl.parse_program(program.as_python())
    ir.assert_structural_equal(program, again)


def test_a_declared_function_must_be_built() -> None:
    ib = IRBuilder()
    with pytest.raises(ir.IRValueError, match=r"declared function\(s\) missing never defined"):
        with ib.program("prog") as prog:
            prog.declare_function("missing")


def test_op_builders_take_the_span_positionally_last() -> None:
    span = ir.Span("k.py", 7, 3)
    a = ir.Var("a", ir.TensorType([64], ir.FP32))
    assert ir.op.tensor.add(a, a, span).span == span
    assert ir.op.tensor.adds(a, 1.0, span).span == span
    assert ir.op.tensor.add(a, 2.0, span).op.name == "tensor.adds"
    assert ir.op.system.bar_all(span).span == span
    assert ir.op.tensor.add(a, a, span=span).span == span
    here = ir.op.tensor.add(a, a).span
    assert here.filename.endswith("test_compat_builders.py")
    t = ir.Var("t", ir.TileType([16, 16], ir.FP32, memory_space=ir.MemorySpace.Vec))
    assert ir.op.tile.exp(t, span).span == span


def test_system_ops_module_and_mrgsort() -> None:
    assert ir.op.system_ops is ir.op.system
    span = ir.Span("k.py", 1, 1)
    src = ir.Var("s", ir.TensorType([1, 256], ir.FP32))
    one = ir.op.tensor.mrgsort(src, block_len=64, span=span)
    assert one.op.name == "tensor.mrgsort_format1" and one.span == span
    two = ir.op.tensor.mrgsort(src, src, span)
    assert two.op.name == "tensor.mrgsort_format2" and two.span == span
    with pytest.raises(TypeError, match="tensor.mrgsort: block_len is only for the single-list form"):
        ir.op.tensor.mrgsort(src, src, block_len=64)


def test_dyn_var_arithmetic() -> None:
    n = pl.dynamic("N")
    m = pl.dynamic("M")
    assert str(n * 2) == "N * 2" and str(2 * n) == "2 * N"
    assert str(n + m) == "N + M" and str(n - 1) == "N - 1" and str(n // 4) == "N // 4" and str(n % 4) == "N % 4"
    t = pl.Tensor[[n * 2, 64], pl.FP32]
    assert isinstance(t, ir.TensorType)
    ir.assert_structural_equal(t.shape[0], ir.mul(n.var, 2))
