"""Decorators: ``@pl.function`` options, ``@pl.program`` (methods with and without ``self``,
``self.f`` calls in any order), external functions and ``@pl.inline`` expansion."""

from __future__ import annotations

import pytest
from dsl_helpers import assert_roundtrip

import pypto.language as pl
from pypto import interp, ir
from pypto.language.decorators import DeferredFunction
from pypto.language.parser.diagnostics import ParserSyntaxError, ParserTypeError, UndefinedVariableError


def test_function_options() -> None:
    @pl.function(type=pl.FunctionType.InCore, strict_ssa=True)
    def kernel(x: pl.INDEX) -> pl.INDEX:
        return x

    assert kernel.func_type == pl.FunctionType.InCore and kernel.level == pl.Level.CHIP_DIE
    assert kernel.name == "kernel" and kernel.span.filename == __file__

    with pytest.raises(ParserTypeError, match="type= must be a pl.FunctionType member, got 'InCore'"):
        pl.parse("@pl.function(type='InCore')\ndef f(x: pl.INDEX) -> pl.INDEX:\n    return x\n")
    with pytest.raises(ParserTypeError, match="level CHIP contradicts function type InCore"):

        @pl.function(type=pl.FunctionType.InCore, level=pl.Level.CHIP)
        def bad(x: pl.INDEX) -> pl.INDEX:
            return x

    with pytest.raises(ParserTypeError, match="@pl.function decorates a function"):
        pl.function(3)
    with pytest.raises(ParserTypeError, match="@pl.program decorates a class"):
        pl.program(3)


def test_program_methods_with_and_without_self_and_any_order() -> None:
    @pl.program
    class Model:
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
            out = self.kernel(a, out)
            return out

        @pl.function(type=pl.FunctionType.InCore)
        def kernel(a: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
            t = pl.load(a, [0], [64])
            r = pl.store(t, [0], out)
            return r

    assert Model.name == "Model"
    call = Model.get_function("main").body.stmts[0].value
    assert call.op.name == "kernel" and call.type == ir.TensorType([64], pl.FP32)
    text = assert_roundtrip(Model)
    assert "    def kernel(a: pl.Tensor[[64], pl.FP32]" in text  # SubWorker kernels print without self


def test_program_method_must_be_marked_and_class_named() -> None:
    @pl.program(name="renamed")
    class Model:
        def helper(self) -> int:  # not a DSL function: ignored
            return 1

        @pl.function
        def main(self, n: pl.INDEX) -> pl.INDEX:
            return n

    assert Model.name == "renamed" and [gv.name for gv in Model.functions] == ["main"]


def test_deferred_method_outside_a_program() -> None:
    class Plain:
        @pl.function
        def main(self, n: pl.INDEX) -> pl.INDEX:
            return n

    assert isinstance(Plain.__dict__["main"], DeferredFunction)
    with pytest.raises(ParserTypeError, match="decorate the class with @pl.program"):
        Plain.__dict__["main"](1)


def test_self_outside_a_program() -> None:
    with pytest.raises(UndefinedVariableError, match="'self' is only available in the functions of a @pl.program"):

        @pl.function
        def f(n: pl.INDEX) -> pl.INDEX:
            return self.g(n)  # noqa: F821


@pl.function
def shared(x: pl.INDEX) -> pl.INDEX:
    return x + 1


def test_external_function_is_added_once_by_name() -> None:
    alias = shared

    @pl.program
    class Model:
        @pl.function
        def a(self, x: pl.INDEX) -> pl.INDEX:
            return shared(x)

        @pl.function
        def b(self, x: pl.INDEX) -> pl.INDEX:
            y = alias(x)
            return shared(y)

    assert sorted(gv.name for gv in Model.functions) == ["a", "b", "shared"]
    assert Model.get_function("shared") is shared
    assert_roundtrip(Model)


SCALE = 3


@pl.inline
def scaled(v: pl.INDEX) -> pl.INDEX:
    w = v * SCALE  # a closure variable of the definition site
    return w


@pl.inline
def scaled_twice(v: pl.INDEX) -> pl.INDEX:
    once = scaled(v)  # nested inline call
    return scaled(once)


def test_inline_expansion_closures_nesting_and_independence() -> None:
    @pl.function
    def f(n: pl.INDEX) -> pl.INDEX:
        a = scaled_twice(n)
        b = scaled(n + 1)
        return a + b

    stmts = f.body.stmts
    names = [s.var.name_hint for s in stmts[:-1]]
    assert names == ["w", "once", "w", "a", "v", "w", "b"]
    assert stmts[0].var is not stmts[2].var  # each expansion has its own variables
    assert stmts[0].value.right.value == SCALE
    assert isinstance(stmts[4].value, ir.Add)  # a non-variable argument is bound to the parameter name
    assert_roundtrip(f)


def test_inline_parameters_do_not_leak_into_the_caller() -> None:
    @pl.inline
    def bump(v: pl.INDEX) -> pl.INDEX:
        v = v + 1  # re-binding a parameter does not re-define the caller's variable
        return v

    @pl.function
    def f(n: pl.INDEX) -> pl.INDEX:
        m = bump(n)
        return n + m

    copy_v, assign_v, _, ret = f.body.stmts
    # the helper re-assigns a variable of its own, which starts as the argument
    assert copy_v.var.name_hint == "v" and copy_v.value is f.params[0]
    assert assign_v.var is not f.params[0] and assign_v.value.left is copy_v.var
    assert ret.value[0].left is f.params[0]
    assert interp.run(f, 4).returns == (9,)


def test_inline_with_constant_arguments_and_no_return() -> None:
    @pl.inline
    def barrier(times: int) -> None:
        pl.static_assert(times > 0)
        pl.system.bar_all()

    @pl.function
    def f(n: pl.INDEX) -> pl.INDEX:
        barrier(2)
        return n

    assert isinstance(f.body.stmts[0], ir.EvalStmt)


def test_inline_misuse() -> None:
    with pytest.raises(ParserSyntaxError, match="can only be called inside a @pl.function body"):
        scaled(1)
    with pytest.raises(ParserSyntaxError, match="too deeply"):

        @pl.inline
        def loop(v: pl.INDEX) -> pl.INDEX:
            return loop(v)

        @pl.function
        def f(n: pl.INDEX) -> pl.INDEX:
            return loop(n)


def test_constructs_outside_functions() -> None:
    with pytest.raises(ParserSyntaxError, match="pl.pipeline can only be used inside a @pl.function body"):
        pl.pipeline(4)
    assert pl.const(3, pl.INT32).dtype == pl.INT32
    with pytest.raises(TypeError, match="cannot have the integer dtype"):
        pl.const(1.5, pl.INT32)
