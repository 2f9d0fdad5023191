"""Deep programs outside the passes: a 1,000-term sum, 90 nested ifs around it and 199 nested op
calls go through the parser (text and decorator routes), the printer, structural equality and
hash, serialization, the dialect checks, the interpreter and the IR visitor/mutator at Python's
default recursion limit; code too deep for Python's own parser is a ParserSyntaxError with a span
and a hint.

Each program is generated in the printer's exact output form, so printing the parsed program must
give the generated text back.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from pypto.languages import ssa, surface

import pypto.language as pl
from pypto import ir
from pypto.interp import run
from pypto.language.parser.diagnostics import ParserSyntaxError
from pypto.language.parser.diagnostics.render import render_diagnostic

TERMS = 1000
DEPTH = 90
I64 = ir.ScalarType(ir.INT64)
CALLS = 199  # Python's parser allows 200 nested brackets
HEADER = (
    "# pypto.program: Deep\n"
    "import pypto.language as pl\n"
    "\n"
    "@pl.program\n"
    "class Deep:\n"
    "    @pl.function\n"
    "    def main(self, x: pl.Scalar[pl.INT64]) -> pl.Scalar[pl.INT64]:\n"
)


def _sum(terms: int) -> str:
    return " + ".join(["x"] * terms)


def sum_source(terms: int = TERMS) -> str:
    """``y = x + x + ... + x``: a left spine ``terms - 1`` additions deep."""
    return HEADER + f"        y: pl.Scalar[pl.INT64] = {_sum(terms)}\n        return y"


def surface_ifs_source(depth: int = DEPTH, terms: int = TERMS) -> str:
    """``depth`` nested ifs (pre-SSA: the innermost re-assigns ``y``) around a ``terms``-term sum."""
    lines = ["        y: pl.Scalar[pl.INT64] = pl.const(0, pl.INT64)"]
    lines += ["        " + "    " * k + f"if x > {k}:" for k in range(depth)]
    lines.append("        " + "    " * depth + f"y: pl.Scalar[pl.INT64] = {_sum(terms)}")
    lines.append("        return y")
    return HEADER + "\n".join(lines)


def ssa_ifs_source(depth: int = DEPTH, terms: int = TERMS) -> str:
    """``depth`` nested if/else in SSA form: level k yields the level below, or k; the innermost
    yields a ``terms``-term sum."""
    lines = ["        " + "    " * k + f"if x > {k}:" for k in range(depth)]
    for k in reversed(range(depth)):
        pad = "        " + "    " * k
        value = _sum(terms) if k == depth - 1 else f"y{k + 1}"
        lines.append(f"{pad}    y{k}: pl.Scalar[pl.INT64] = pl.yield_({value})")
        lines.append(f"{pad}else:")
        lines.append(f"{pad}    y{k}: pl.Scalar[pl.INT64] = pl.yield_({k})")
    lines.append("        return y0")
    return HEADER + "\n".join(lines)


def nested_calls_source(calls: int = CALLS) -> str:
    """``pl.tensor.add(x, pl.tensor.add(x, ... x))``: ``calls`` op calls nested in each other."""
    tensor = "pl.Tensor[[4], pl.FP32]"
    value = "pl.tensor.add(x, " * calls + "x" + ")" * calls
    header = HEADER.replace("pl.Scalar[pl.INT64]", tensor)
    return header + f"        y: {tensor} = {value}\n        return y"


@dataclass(frozen=True)
class Deep:
    """A deep program, what it computes, how many times its body reads ``x``, and ``x`` doubled."""

    source: str
    inputs: tuple[Any, ...]
    expected: Callable[[Any], Any]
    uses: int
    doubled: str = "(x + x)"


def _ssa_ifs(x: int) -> int:
    return TERMS * x if x > DEPTH - 1 else max(x, 0)  # the first level k with not x > k yields k


_INTS = (-3, 0, 5, DEPTH - 1, DEPTH, 1000)
PROGRAMS = {
    "sum": Deep(sum_source(), _INTS, lambda x: TERMS * x, TERMS),
    "surface_ifs": Deep(surface_ifs_source(), _INTS, lambda x: TERMS * x if x > DEPTH - 1 else 0, DEPTH + TERMS),
    "ssa_ifs": Deep(ssa_ifs_source(), _INTS, _ssa_ifs, DEPTH + TERMS),
    "nested_calls": Deep(
        nested_calls_source(), (np.arange(4, dtype=np.float32),), lambda x: (CALLS + 1) * x, CALLS + 1,
        "pl.tensor.add(x, x)",
    ),
}
_PARSED: dict[str, ir.Program] = {}


def parsed(name: str) -> ir.Program:
    """The program ``name`` parsed from its text (once per test session)."""
    if name not in _PARSED:
        _PARSED[name] = pl.parse(PROGRAMS[name].source)
    return _PARSED[name]


@pytest.fixture(params=sorted(PROGRAMS))
def name(request: pytest.FixtureRequest) -> str:
    return request.param


def test_the_default_recursion_limit_is_in_force() -> None:
    assert sys.getrecursionlimit() == 1000


def test_text_route_builds_the_left_spine() -> None:
    x, y = ir.Var("x", I64), ir.Var("y", I64)
    chain: ir.Expr = x
    for _ in range(TERMS - 1):
        chain = ir.Add(chain, x, ir.INT64)
    body = ir.SeqStmts([ir.AssignStmt(y, chain), ir.ReturnStmt([y])])
    expected = ir.Program([ir.Function("main", [x], [I64], body)], "Deep", ir.Span.unknown())
    ir.assert_structural_equal(parsed("sum"), expected)


def test_decorator_route_equals_the_text_route(name: str, tmp_path: Path) -> None:
    path = tmp_path / f"deep_{name}.py"
    path.write_text(PROGRAMS[name].source)
    spec = importlib.util.spec_from_file_location(f"deep_{name}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    ir.assert_structural_equal(module.Deep, parsed(name))


def test_verbose_print_is_the_source(name: str) -> None:
    assert parsed(name).as_python() == PROGRAMS[name].source


def test_concise_print_drops_the_annotations(name: str) -> None:
    expected = re.sub(r"\b(y\d*): pl\.\w+\[[^=]*\] = ", r"\1 = ", PROGRAMS[name].source)
    assert parsed(name).as_python(concise=True) == expected


@pytest.mark.parametrize("op", ["aiv_shard", "aic_gather"])
def test_nested_keyword_calls_print_as_the_source(op: str) -> None:
    # These ops print split= through their own call shape: it must cost no more frames per level.
    tensor = "pl.Tensor[[4, 4], pl.FP32]"
    value = f"pl.tensor.{op}(" * CALLS + "x" + ", split=0)" * CALLS
    source = HEADER.replace("pl.Scalar[pl.INT64]", tensor) + f"        y: {tensor} = {value}\n        return y"
    assert pl.parse(source).as_python() == source


@pytest.mark.parametrize("concise", [False, True])
def test_parse_of_print_round_trips(name: str, concise: bool) -> None:
    program = parsed(name)
    ir.assert_structural_equal(pl.parse(program.as_python(concise=concise)), program)


def test_structural_equality_and_hash(name: str) -> None:
    program = parsed(name)
    source = PROGRAMS[name].source
    again = pl.parse(source)
    assert ir.structural_equal(program, again)
    assert ir.structural_hash(program) == ir.structural_hash(again)
    first_use = source.index("x", source.index(" = ", source.index("def main")))
    other = pl.parse(source[:first_use] + PROGRAMS[name].doubled + source[first_use + 1 :])
    assert not ir.structural_equal(program, other)


def test_serialize_round_trips(name: str) -> None:
    program = parsed(name)
    ir.assert_structural_equal(ir.deserialize(ir.serialize(program)), program)


def test_surface_accepts_every_program(name: str) -> None:
    assert surface.check(parsed(name)) == []


def test_ssa_accepts_the_ssa_programs_and_names_the_reassignment() -> None:
    for name in ("sum", "ssa_ifs", "nested_calls"):
        assert ssa.check(parsed(name)) == []
    found = [(v.rule, v.code, v.message) for v in ssa.check(parsed("surface_ifs"))]
    assert found == [("SSAForm", "MULTIPLE_ASSIGNMENT", "variable 'y' is defined more than once")]


def test_interpreter_runs_the_deep_programs(name: str) -> None:
    deep = PROGRAMS[name]
    for x in deep.inputs:
        np.testing.assert_array_equal(run(parsed(name), x).value, deep.expected(x))


class _CountX(ir.IRVisitor):
    def __init__(self, x: ir.Var) -> None:
        self.x = x
        self.count = 0

    def visit_var(self, op: ir.Var) -> None:
        self.count += op is self.x


class _XToConst(ir.IRMutator):
    def __init__(self, x: ir.Var, value: int) -> None:
        self.x = x
        self.value = value

    def visit_var(self, op: ir.Var) -> ir.Expr:
        return ir.ConstInt(self.value, ir.INT64) if op is self.x else op


def test_visitor_sees_every_use(name: str) -> None:
    main = parsed(name).get_function("main")
    counter = _CountX(main.params[0])
    counter.visit_function(main)
    assert counter.count == PROGRAMS[name].uses + 1  # the parameter itself, then each use


def test_mutator_rewrites_every_use_and_shares_untouched_trees() -> None:
    program = parsed("sum")
    main = program.get_function("main")
    assert ir.IRMutator().visit_program(program) is program
    body = _XToConst(main.params[0], 2).visit_stmt(main.body)
    rewritten = ir.Program([ir.replace(main, body=body)], "Deep", program.span)
    assert run(rewritten, 7).value == 2 * TERMS


# ----- too deep for Python's own parser --------------------------------------------------------
_SPLIT = "split the expression into several assignments: t = a + b + c, then y = t + d + e"


def _too_deep(source: str) -> ParserSyntaxError:
    with pytest.raises(ParserSyntaxError) as err:
        pl.parse(source)
    return err.value


def test_sum_too_long_for_python_is_a_syntax_error_at_its_statement() -> None:
    err = _too_deep(sum_source(100_000))
    assert err.message == "an expression in this statement is nested too deeply for Python's parser"
    assert err.hint == _SPLIT
    span = err.location
    line = f"        y: pl.Scalar[pl.INT64] = {_sum(100_000)}"
    assert (span.filename, span.begin_line, span.begin_column, span.end_line, span.end_column) == (
        "<string>", 8, 9, 8, len(line) + 1
    )


def test_unary_chain_too_long_for_python_is_a_syntax_error() -> None:
    source = HEADER + "        y: pl.Scalar[pl.INT64] = " + "-" * 100_000 + "x\n        return y"
    err = _too_deep(source)
    assert (err.message, err.hint) == (
        "an expression in this statement is nested too deeply for Python's parser",
        _SPLIT,
    )
    assert (err.location.begin_line, err.location.begin_column) == (8, 9)


def test_nested_parentheses_beyond_python_limit() -> None:
    source = HEADER + "        y: pl.Scalar[pl.INT64] = " + "(" * 300 + "x" + ")" * 300 + "\n        return y"
    err = _too_deep(source)
    assert err.message == "this expression is nested too deeply for Python's parser (too many nested parentheses)"
    assert err.hint == _SPLIT
    assert (err.location.begin_line, err.location.begin_column) == (8, 34 + 200)  # at the 201st "("


def test_blocks_beyond_python_indentation_limit() -> None:
    err = _too_deep(surface_ifs_source(depth=100, terms=1))
    assert err.message == "the blocks are nested too deeply for Python's parser (too many levels of indentation)"
    assert err.hint == "move the innermost blocks into a separate @pl.function or @pl.inline"
    assert err.location.begin_line == 9 + 98  # the first line indented 100 levels: class, def and 98 ifs


def test_rendered_error_shows_a_window_of_a_long_line() -> None:
    err = _too_deep(sum_source(100_000))
    text = str(err)
    assert len(text) < 1000
    shown = "        y: pl.Scalar[pl.INT64] = " + _sum(100_000)
    assert text.splitlines()[3] == "8 | " + shown[:200] + "..."
    assert text.splitlines()[4] == "  | " + " " * 8 + "^" * 192


def test_long_line_window_starts_before_the_caret() -> None:
    line = "a" * 500 + "BAD" + "b" * 500
    text = render_diagnostic("E", "m", ir.Span("f.py", 1, 501, 1, 504), None, None, [line])
    assert text.splitlines()[3:] == [
        "1 | ..." + "a" * 40 + "BAD" + "b" * 157 + "...",
        "  | " + " " * 43 + "^^^",
    ]
