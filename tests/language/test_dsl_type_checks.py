"""Type checks of the parser: call arguments against the callee's parameters, returned values
against the declared return types, annotated assignments against their values."""

from __future__ import annotations

import textwrap

import pytest
from dsl_helpers import assert_roundtrip

import pypto.language as pl
from pypto import ir
from pypto.language.parser.diagnostics import ParserTypeError

T4 = "pl.Tensor[[4], pl.FP32]"


def type_error(code: str) -> ParserTypeError:
    """The ParserTypeError of parsing ``code`` (dedented)."""
    with pytest.raises(ParserTypeError) as info:
        pl.parse(textwrap.dedent(code))
    assert type(info.value) is ParserTypeError
    return info.value


def where(err: ParserTypeError) -> tuple[int, int, int]:
    """Line, first and last+1 column of the error."""
    return err.location.begin_line, err.location.begin_column, err.location.end_column


def program_calling(kernel_params: str, call: str, main_params: str = f"x: {T4}, s: pl.INDEX") -> str:
    return f"""
    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, {kernel_params}) -> {T4}:
            return a

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, {main_params}) -> {T4}:
            {call}
            return y
    """


# ----- call arguments -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("kernel_params", "given", "reason"),
    [
        (f"a: {T4}, b: pl.Tensor[[4], pl.FP16]", "pl.Tensor[[4], pl.FP32]", "dtype FP32, expected FP16"),
        (f"a: {T4}, b: pl.Tensor[[4, 1], pl.FP32]", "pl.Tensor[[4], pl.FP32]", "rank 1, expected 2"),
        (f"a: {T4}, b: pl.Tensor[[8], pl.FP32]", "pl.Tensor[[4], pl.FP32]", "dimension 0 is 4, expected 8"),
        (f"a: {T4}, b: pl.Scalar[pl.INT32]", "pl.Tensor[[4], pl.FP32]", "a Tensor where a Scalar is expected"),
        (f"a: {T4}, b: pl.Tile[[4], pl.FP32]", "pl.Tensor[[4], pl.FP32]", "a Tensor where a Tile is expected"),
        (f"a: {T4}, b: pl.Array[4, pl.INT32]", "pl.Tensor[[4], pl.FP32]", "a Tensor where a Array is expected"),
    ],
)
def test_argument_mismatch_names_function_parameter_and_both_types(kernel_params: str, given: str, reason: str) -> None:
    err = type_error(program_calling(kernel_params, "y = self.k(x, x)"))
    expected = kernel_params.split("b: ")[1]
    assert err.message == (f"function 'k': parameter 'b' expects {expected} but the argument 'x' is {given} ({reason})")
    assert where(err) == (10, 23, 24)
    assert err.hint == f"pass a {expected} as 'b', or change that parameter's annotation in 'k'"


def test_argument_checks_cover_keywords_submit_and_spmd_submit() -> None:
    params = f"a: {T4}, b: pl.Scalar[pl.INT32]"
    keyword = type_error(program_calling(params, "y = self.k(x, b=x)"))
    assert where(keyword) == (10, 25, 26)
    submit = type_error(program_calling(params, "y, tid = pl.submit(self.k, x, x)"))
    assert submit.message.startswith("function 'k': parameter 'b' expects pl.Scalar[pl.INT32] but the argument 'x'")
    assert where(submit) == (10, 39, 40)
    spmd = type_error(program_calling(params, "y, tid = pl.spmd_submit(self.k, s, 1, core_num=4)"))
    assert spmd.message == (
        "function 'k': parameter 'a' expects pl.Tensor[[4], pl.FP32] but the argument 's' is "
        "pl.Scalar[pl.INDEX] (a Scalar where a Tensor is expected)"
    )
    assert where(spmd) == (10, 41, 42)


def test_external_function_arguments_are_checked() -> None:
    @pl.function
    def ext(a: pl.Tensor[[4, 4], pl.FP32]) -> pl.Tensor[[4, 4], pl.FP32]:
        return a

    with pytest.raises(ParserTypeError) as info:

        @pl.program
        class P:
            @pl.function
            def main(self, x: pl.Tensor[[4], pl.FP32]) -> pl.Tensor[[4, 4], pl.FP32]:
                y = ext(x)
                return y

    assert info.value.message == (
        "function 'ext': parameter 'a' expects pl.Tensor[[4, 4], pl.FP32] but the argument 'x' is "
        "pl.Tensor[[4], pl.FP32] (rank 1, expected 2)"
    )
    assert info.value.location.filename == __file__


def test_accepted_arguments_dynamic_dims_index_int64_and_literals() -> None:
    program = pl.parse_program(
        textwrap.dedent(
            """
            N = pl.dynamic("N")

            @pl.program
            class P:
                @pl.function(type=pl.FunctionType.InCore)
                def k(self, a: pl.Tensor[[N, 4], pl.FP32], n: pl.INT64, c: pl.Scalar[pl.INT32],
                      f: pl.FP16) -> pl.Tensor[[N, 4], pl.FP32]:
                    return a

                @pl.function(type=pl.FunctionType.Orchestration)
                def main(self, x: pl.Tensor[[16, 4], pl.FP32], i: pl.INDEX) -> pl.Tensor[[N, 4], pl.FP32]:
                    y = self.k(x, i, 3, 1.5)
                    return y
            """
        )
    )
    call = program.get_function("main").body.stmts[0].value
    assert [a.type for a in call.args[2:]] == [ir.ScalarType(pl.INT32), ir.ScalarType(pl.FP16)]
    assert_roundtrip(program, auto_mapping=True)


# ----- returns --------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("returns", "body", "message", "span"),
    [
        (
            "pl.Tensor[[4, 4], pl.FP32]",
            "return x",
            (
                "function 'f' declares the return value as pl.Tensor[[4, 4], pl.FP32] but 'x' is "
                "pl.Tensor[[4], pl.FP32] (rank 1, expected 2)"
            ),
            (4, 12, 13),
        ),
        (
            "pl.Tensor[[4], pl.BF16]",
            "return x",
            (
                "function 'f' declares the return value as pl.Tensor[[4], pl.BF16] but 'x' is "
                "pl.Tensor[[4], pl.FP32] (dtype FP32, expected BF16)"
            ),
            (4, 12, 13),
        ),
        (
            "tuple[pl.Tensor[[4], pl.FP32], pl.Tensor[[5], pl.FP32]]",
            "return x, x",
            (
                "function 'f' declares return value 1 as pl.Tensor[[5], pl.FP32] but 'x' is "
                "pl.Tensor[[4], pl.FP32] (dimension 0 is 4, expected 5)"
            ),
            (4, 15, 16),
        ),
        (
            "pl.Scalar[pl.FP32]",
            "return n",
            (
                "function 'f' declares the return value as pl.Scalar[pl.FP32] but 'n' is "
                "pl.Scalar[pl.INDEX] (dtype INDEX, expected FP32)"
            ),
            (4, 12, 13),
        ),
        (
            "pl.Tile[[4], pl.FP32]",
            "return x",
            (
                "function 'f' declares the return value as pl.Tile[[4], pl.FP32] but 'x' is "
                "pl.Tensor[[4], pl.FP32] (a Tensor where a Tile is expected)"
            ),
            (4, 12, 13),
        ),
    ],
)
def test_return_value_mismatch(returns: str, body: str, message: str, span: tuple[int, int, int]) -> None:
    err = type_error(
        f"""
        @pl.function
        def f(x: {T4}, n: pl.INDEX) -> {returns}:
            {body}
        """
    )
    assert err.message == message
    assert where(err) == span
    declared = message.split(" as ")[1].split(" but ")[0]
    assert err.hint == f"return a {declared} here, or change the '->' annotation of 'f'"


def test_return_count_and_undeclared_returns() -> None:
    count = type_error(
        f"""
        @pl.function
        def f(x: {T4}) -> tuple[{T4}, {T4}]:
            return x
        """
    )
    assert count.message == "function 'f' declares 2 return value(s) but returns 1"
    assert count.hint == (
        "return exactly the declared values (pl.Tensor[[4], pl.FP32], pl.Tensor[[4], pl.FP32]), "
        "or change the '->' annotation"
    )
    undeclared = type_error(
        f"""
        @pl.function
        def f(x: {T4}, n: pl.INDEX):
            return x, n
        """
    )
    assert undeclared.message == "function 'f' returns 2 value(s) but declares no return type"
    assert (
        undeclared.hint == "declare what it returns: def f(...) -> tuple[pl.Tensor[[4], pl.FP32], pl.Scalar[pl.INDEX]]:"
    )
    assert where(undeclared) == (4, 5, 16)
    none = type_error(
        f"""
        @pl.function
        def f(x: {T4}) -> None:
            return x
        """
    )
    assert none.message == "function 'f' declares 0 return value(s) but returns 1"


def test_inline_type_functions_are_checked_like_others() -> None:
    err = type_error(
        """
        @pl.program
        class P:
            @pl.function(type=pl.FunctionType.Inline)
            def half(self, x: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.FP32]:
                return x

            @pl.function
            def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.FP32]:
                m = self.half(n)
                return m
        """
    )
    assert err.message == (
        "function 'half' declares the return value as pl.Scalar[pl.FP32] but 'x' is pl.Scalar[pl.INDEX] "
        "(dtype INDEX, expected FP32)"
    )


def test_accepted_returns_literals_dynamic_dims_and_int64_for_index() -> None:
    func = pl.parse(
        textwrap.dedent(
            """
            N = pl.dynamic("N")

            @pl.function
            def f(x: pl.Tensor[[16], pl.FP32], i: pl.INDEX) -> tuple[pl.Tensor[[N], pl.FP32], pl.INT64, pl.INT32]:
                return x, i, 0
            """
        )
    )
    assert_roundtrip(func, auto_mapping=True)


# ----- @pl.inline ----------------------------------------------------------------------------------
INLINE = """
@pl.inline
def normalize(x: pl.Tensor[[64], pl.FP32], times: int) -> {returns}:
    result: pl.Tensor[[64], pl.FP32] = pl.mul(x, 2.0)
{ret}
@pl.function
def main(x: pl.Tensor[[{n}], pl.FP32]) -> pl.Tensor[[{n}], pl.FP32]:
    y = normalize(x, 2)
    return y
"""


def test_inline_arguments_and_return_against_its_annotations() -> None:
    def inline(returns: str = "pl.Tensor[[64], pl.FP32]", ret: str = "    return result\n", n: int = 64) -> str:
        return INLINE.format(returns=returns, ret=ret, n=n)

    ok = pl.parse_program(inline())
    assert [s.var.name_hint for s in ok.get_function("main").body.stmts[:-1]] == ["result", "y"]
    arg = type_error(inline(n=128))
    assert arg.message == (
        "inline function 'normalize': parameter 'x' expects pl.Tensor[[64], pl.FP32] but the argument is "
        "pl.Tensor[[128], pl.FP32] (dimension 0 is 128, expected 64)"
    )
    assert where(arg) == (9, 19, 20)
    assert arg.hint == "pass a pl.Tensor[[64], pl.FP32] as 'x', or change that parameter's annotation in 'normalize'"
    ret = type_error(inline(returns="pl.Tensor[[64], pl.FP16]"))
    assert ret.message == (
        "inline function 'normalize' declares the return value as pl.Tensor[[64], pl.FP16] but 'result' is "
        "pl.Tensor[[64], pl.FP32] (dtype FP32, expected FP16)"
    )
    assert where(ret) == (5, 12, 18)
    missing = type_error(inline(ret=""))
    assert missing.message == "inline function 'normalize' declares 1 return value(s) but does not return"
    assert missing.hint == "end its body with return <values>, or drop the '->' annotation"
    assert where(missing) == (3, 59, 83)


def test_inline_without_return_annotation_returns_what_it_computes() -> None:
    @pl.inline
    def twice(v):
        w = v * 2
        return w

    @pl.function
    def f(n: pl.INDEX) -> pl.INDEX:
        m = twice(n)
        return m

    assert f.body.stmts[1].value.type == ir.ScalarType(pl.INDEX)


# ----- annotated assignments ------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("annotation", "value", "reason"),
    [
        ("pl.Tensor[[8], pl.FP32]", "pl.add(x, x)", "dimension 0 is 4, expected 8"),
        ("pl.Tensor[[4], pl.FP16]", "pl.add(x, x)", "dtype FP32, expected FP16"),
        ("pl.Tensor[[4, 1], pl.FP32]", "pl.add(x, x)", "rank 1, expected 2"),
        ("pl.Tile[[4], pl.FP32]", "pl.add(x, x)", "a Tensor where a Tile is expected"),
        ("pl.Scalar[pl.INT32]", "n", "dtype INDEX, expected INT32"),
        ("pl.Scalar[pl.FP32]", "n", "dtype INDEX, expected FP32"),
        ("pl.Scalar[pl.FP32]", "pl.const(1, pl.INT32)", "dtype INT32, expected FP32"),
        ("pl.Tile[[8], pl.FP32]", "pl.load(x, [0], [4])", "dimension 0 is 4, expected 8"),
    ],
)
def test_annotation_disagreeing_with_its_value(annotation: str, value: str, reason: str) -> None:
    err = type_error(
        f"""
        @pl.function
        def f(x: {T4}, n: pl.INDEX):
            w: {annotation} = {value}
        """
    )
    assert err.message.startswith(f"the annotation declares {annotation} but the value has type ")
    assert err.message.endswith(f"({reason})")
    assert err.location.begin_line == 4
    assert err.hint is not None and err.hint.startswith("annotate it as ")


def test_annotated_yield_disagreeing_with_its_value() -> None:
    err = type_error(
        f"""
        @pl.function
        def f(x: {T4}, n: pl.INDEX) -> {T4}:
            if n > 0:
                y: pl.Tensor[[8], pl.FP32] = pl.yield_(x)
            else:
                y: pl.Tensor[[8], pl.FP32] = pl.yield_(x)
            return x
        """
    )
    assert err.message == (
        "the annotation declares pl.Tensor[[8], pl.FP32] but the value has type pl.Tensor[[4], pl.FP32] "
        "(dimension 0 is 4, expected 8)"
    )
    assert err.location.begin_line == 5


def test_lenient_annotations_still_parse() -> None:
    func = pl.parse(
        textwrap.dedent(
            """
            @pl.function(type=pl.FunctionType.InCore)
            def f(x: pl.Tensor[[64, 64], pl.FP32], n: pl.INDEX, m: pl.INT64) -> pl.Tensor[[64, 64], pl.FP32]:
                t: pl.Tile[[64, 64], pl.FP32] = pl.load(x, [0, 0], [64, 64])
                a: pl.INT64 = n
                b: pl.INDEX = m
                c: pl.INT32 = 3
                d: pl.FP16 = 1
                e: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.add(t, t)
                out: pl.Tensor[[64, 64], pl.FP32] = pl.store(e, [0, 0], x)
                return out
            """
        )
    )
    loaded = func.body.stmts[0].var.type
    assert loaded == func.body.stmts[0].value.type  # the plain tile annotation takes the deduced tile
    assert [s.var.type for s in func.body.stmts[1:5]] == [
        ir.ScalarType(pl.INT64),
        ir.ScalarType(pl.INDEX),
        ir.ScalarType(pl.INT32),
        ir.ScalarType(pl.FP16),
    ]
    assert_roundtrip(func, concise=False)  # the concise print drops the INT64 / INDEX annotations
