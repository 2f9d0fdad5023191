"""Strict SSA scopes and op wrappers outside a function (issue 33 item 3).

Under ``strict_ssa`` a branch or loop body is a scope of its own, as in the established API: it may
re-annotate and rebind a name of an enclosing scope (printed pass output does), as a new variable;
its names are out of scope after it. ``pl.*`` op wrappers called in plain Python return values that
are instances of ``pl.Tensor`` / ``pl.Tile`` / ``pl.Scalar``.
"""

from __future__ import annotations

import numpy as np
import pytest

import pypto.language as pl
from pypto import ir
from pypto.interp import run
from pypto.language.parser.diagnostics import SSAViolationError, UndefinedVariableError

HEAD = """
import pypto.language as pl


@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration, strict_ssa={strict})
    def main(self, x: pl.Tensor[[16], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[16], pl.FP32]:
"""

REBOUND = """\
        y: pl.Tensor[[16], pl.FP32] = pl.add(x, 1.0)
        if n > 2:
            y: pl.Tensor[[16], pl.FP32] = pl.mul(y, 2.0)
            z: pl.Tensor[[16], pl.FP32] = pl.yield_(y)
        else:
            y: pl.Tensor[[16], pl.FP32] = pl.mul(y, 3.0)
            z: pl.Tensor[[16], pl.FP32] = pl.yield_(y)
        w: pl.Tensor[[16], pl.FP32] = pl.add(z, y)
        return w
"""


def parse(body: str, strict: bool = True) -> ir.Program:
    return pl.parse(HEAD.format(strict=strict) + body)


def test_a_branch_rebinds_an_outer_name_as_a_new_variable() -> None:
    program = parse(REBOUND)
    body = program.get_function("main").body.stmts
    outer, branch, after = body[0].var, body[1].then_body.stmts[0].var, body[2]
    assert outer.name_hint == branch.name_hint == "y" and branch is not outer
    assert after.value.args[1] is outer  # the branch's y is out of scope after the if
    x = np.arange(16, dtype=np.float32)
    for n, factor in ((3, 2.0), (1, 3.0)):
        np.testing.assert_array_equal(run(program, x, n).value, (x + 1) * factor + (x + 1))


def test_the_printed_program_parses_back_under_strict_ssa() -> None:
    program = parse(REBOUND)
    text = program.as_python().replace("@pl.function(", "@pl.function(strict_ssa=True, ")
    ir.assert_structural_equal(pl.parse(text), program)


def test_printed_ssa_output_with_one_name_in_both_branches_parses_under_strict_ssa() -> None:
    source = """\
        if n > 2:
            t: pl.Tensor[[16], pl.FP32] = pl.add(x, 1.0)
            r: pl.Tensor[[16], pl.FP32] = pl.yield_(t)
        else:
            t: pl.Tensor[[16], pl.FP32] = pl.add(x, 2.0)
            r: pl.Tensor[[16], pl.FP32] = pl.yield_(t)
        return r
"""
    lenient, strict = parse(source, strict=False), parse(source)
    then_t, else_t = (b.stmts[0].var for b in (strict.get_function("main").body.stmts[0].then_body,
                                                strict.get_function("main").body.stmts[0].else_body))
    assert then_t is not else_t
    x = np.arange(16, dtype=np.float32)
    np.testing.assert_array_equal(run(strict, x, 0).value, run(lenient, x, 0).value)


@pytest.mark.parametrize(("body", "line"), [
    ("        y: pl.Tensor[[16], pl.FP32] = pl.add(x, 1.0)\n        y = pl.add(y, 1.0)\n        return y\n", 10),
    ("        x = pl.add(x, 1.0)\n        return x\n", 9),
    ("        if n > 2:\n            y: pl.Tensor[[16], pl.FP32] = pl.add(x, 1.0)\n"
     "            y = pl.add(y, 1.0)\n        return x\n", 11),
    ("        for i, (acc,) in pl.range(4, init_values=(x,)):\n            acc = pl.add(acc, 1.0)\n"
     "            r = pl.yield_(acc)\n        return r\n", 10),
])
def test_a_second_binding_in_the_same_scope_is_still_an_ssa_violation(body: str, line: int) -> None:
    with pytest.raises(SSAViolationError, match="assigned more than once in strict SSA function 'main'") as err:
        parse(body)
    assert err.value.span["begin_line"] == line


def test_a_branch_local_name_is_out_of_scope_after_the_branch() -> None:
    body = "        if n > 2:\n            y: pl.Tensor[[16], pl.FP32] = pl.add(x, 1.0)\n        return y\n"
    with pytest.raises(UndefinedVariableError, match="undefined variable 'y'"):
        parse(body)
    parse(body, strict=False)  # without strict_ssa the name stays bound, as before


X = ir.Var("x", ir.TensorType([16, 64], ir.DataType.FP32))
T = ir.Var("t", ir.TileType([16, 64], ir.DataType.FP32, None, None, ir.MemorySpace.Vec))
S = ir.Var("s", ir.ScalarType(ir.DataType.FP32))


@pytest.mark.parametrize(("build", "kind", "text"), [
    (lambda: pl.add(X, X), pl.Tensor, "pl.tensor.add(x, x)"),
    (lambda: pl.tensor.muls(pl.Tensor(expr=X), 2.0), pl.Tensor, "pl.tensor.muls(x, 2.0)"),
    (lambda: pl.load(X, [0, 0], [16, 64]), pl.Tile,
     "pl.tile.load(x, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)"),
    (lambda: pl.add(T, 1.0), pl.Tile, "pl.tile.adds(t, 1.0)"),
    (lambda: pl.tensor.read(X, [0, 1]), pl.Scalar, "pl.tensor.read(x, [0, 1])"),
    (lambda: pl.add(S, 1.0), pl.Scalar, "s + 1.0"),
])
def test_op_wrappers_outside_a_function_return_dsl_values(build, kind: type, text: str) -> None:
    value = build()
    assert isinstance(value, kind)
    assert not any(isinstance(value, other) for other in (pl.Tensor, pl.Tile, pl.Scalar) if other is not kind)
    assert value.unwrap().as_python() == text
    assert not isinstance(value, type(pl.RUNTIME))  # pl.RUNTIME's class is a Scalar without values
