"""Pre-SSA loops of the surface dialect: iter_args without any ``pl.yield_`` (ConvertToSSA adds it).

The parser turns ``x = x + 1`` in the body of ``for (x,) in pl.while_(init_values=(x0,))`` or
``for i, (x,) in pl.range(n, init_values=(x0,))`` into an assignment to the IterArg object ``x``
itself and gives the loop no return vars: the carried names are visible only inside the body (seed,
While section). The interpreter carries the IterArg's value at the end of each iteration (or at a
``break``/``continue``) into the next one; code after the loop sees what the body stored in other
variables. Every program is checked against the same computation written in Python here, and
against its own surface -> ssa pipeline output.
"""

from __future__ import annotations

import numpy as np
import pytest
from interp_ir import SP, assign, function, ret, scalar_t, seq, var

import pypto.language as pl
from pypto import ir, passes
from pypto.interp import InterpreterError, run
from pypto.interp.testing import assert_pass_preserves
from pypto.ir import DataType as D

Idx = pl.Scalar[pl.INDEX]
V16 = pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec]
T16 = pl.Tensor[[16, 16], pl.FP32]


def front_pipeline() -> passes.PassManager:
    """The built-in passes up to and including ConvertToSSA."""
    front = []
    for p in passes.builtin_passes():
        front.append(p)
        if p.name == "ConvertToSSA":
            return passes.PassManager(front)
    raise AssertionError("no ConvertToSSA in the built-in pipeline")


def loops_of(func: ir.Function) -> list[ir.ForStmt | ir.WhileStmt]:
    """The loops directly in ``func``'s body, in order."""
    body = func.body.stmts if isinstance(func.body, ir.SeqStmts) else [func.body]
    return [s for s in body if isinstance(s, (ir.ForStmt, ir.WhileStmt))]


# ----- the seed's pl.while_ form -----------------------------------------------------------------


@pl.program
class SeedWhile:
    @pl.function
    def main(self, n: Idx) -> Idx:
        x_init: Idx = 0
        last: Idx = -1
        for (x,) in pl.while_(init_values=(x_init,)):
            pl.cond(x < n)
            x = x + 1
            last = x
        return last


def seed_while_in_python(n: int) -> int:
    x, last = 0, -1
    while x < n:
        x = x + 1
        last = x
    return last


def test_parser_assigns_the_iter_arg_itself_and_binds_no_results() -> None:
    (loop,) = loops_of(SeedWhile.get_function("main"))
    assert isinstance(loop, ir.WhileStmt)
    (x,) = loop.iter_args
    first = loop.body.stmts[0] if isinstance(loop.body, ir.SeqStmts) else loop.body
    assert isinstance(first, ir.AssignStmt) and first.var is x
    assert loop.return_vars == []


@pytest.mark.parametrize("n", [0, 1, 6])
def test_seed_while_form(n: int) -> None:
    assert run(SeedWhile, n).value == seed_while_in_python(n)
    assert_pass_preserves(front_pipeline(), SeedWhile, (n,))


@pl.program
class WhileTwoCarries:
    @pl.function
    def main(self, n: Idx) -> Idx:
        a0: Idx = 0
        b0: Idx = 1
        steps: Idx = 0
        for a, b in pl.while_(init_values=(a0, b0)):
            pl.cond(b < n)
            c: Idx = a + b
            a = b
            b = c
            steps = steps + 1
        return steps


def fibonacci_steps(n: int) -> int:
    a, b, steps = 0, 1, 0
    while b < n:
        a, b = b, a + b
        steps += 1
    return steps


@pytest.mark.parametrize("n", [0, 2, 100])
def test_while_carrying_two_values(n: int) -> None:
    assert run(WhileTwoCarries, n).value == fibonacci_steps(n)
    assert_pass_preserves(front_pipeline(), WhileTwoCarries, (n,))


@pl.program
class CarriedNameShadowsOuter:
    @pl.function
    def main(self, n: Idx) -> Idx:
        x: Idx = 7
        seen: Idx = 0
        for (x,) in pl.while_(init_values=(x,)):  # noqa: B020 (the carried name shadows x on purpose)
            pl.cond(x < n)
            x = x + 1
            seen = x
        return x * 1000 + seen


def test_a_carried_name_is_visible_only_in_the_body() -> None:
    # After the loop `x` is the variable bound before it (the init value 7), not the carried one.
    assert run(CarriedNameShadowsOuter, 10).value == 7 * 1000 + 10
    assert_pass_preserves(front_pipeline(), CarriedNameShadowsOuter, (10,))


# ----- pl.range with init_values -------------------------------------------------------------------


@pl.program
class RangeCarry:
    @pl.function
    def main(self, n: Idx) -> Idx:
        acc0: Idx = 1
        result: Idx = 0
        for i, (acc,) in pl.range(n, init_values=(acc0,)):
            acc = acc * 3 + i
            acc = acc % 1000
            result = acc
        return result


def range_carry_in_python(n: int) -> int:
    acc, result = 1, 0
    for i in range(n):
        acc = (acc * 3 + i) % 1000
        result = acc
    return result


@pytest.mark.parametrize("n", [0, 1, 9])
def test_range_form_reassigned_twice_per_iteration(n: int) -> None:
    assert run(RangeCarry, n).value == range_carry_in_python(n)
    assert_pass_preserves(front_pipeline(), RangeCarry, (n,))


@pl.program
class TileCarry:
    @pl.function(type=pl.FunctionType.InCore)  # tile ops run in kernels (an Opaque one is no pipeline input)
    def main(self, x: T16, out: pl.Out[T16]) -> T16:
        t0: V16 = pl.load(x, [0, 0], [16, 16])
        xt: V16 = pl.load(x, [0, 0], [16, 16])
        res: V16 = pl.load(x, [0, 0], [16, 16])
        for i, (t,) in pl.range(3, init_values=(t0,)):
            t = pl.add(pl.mul(t, 0.5), xt)
            res = t
        out = pl.store(res, [0, 0], out)
        return out


def test_range_form_carrying_a_tile() -> None:
    x = np.random.default_rng(11).standard_normal((16, 16)).astype(np.float32)
    expected = x.copy()
    for _ in range(3):
        expected = expected * np.float32(0.5) + x
    result = run(TileCarry, x, np.zeros((16, 16), np.float32))
    np.testing.assert_allclose(result.value, expected, rtol=1e-6)
    assert_pass_preserves(front_pipeline(), TileCarry, (x, np.zeros((16, 16), np.float32)))


# ----- nesting -----------------------------------------------------------------------------------


@pl.program
class Nested:
    @pl.function
    def main(self, n: Idx) -> Idx:
        row0: Idx = 0
        total: Idx = 0
        for (row,) in pl.while_(init_values=(row0,)):
            pl.cond(row < n)
            for j, (cell,) in pl.range(row, init_values=(row,)):
                cell = cell * 2 + j
                total = total + cell
            row = row + 1
        return total


def nested_in_python(n: int) -> int:
    row, total = 0, 0
    while row < n:
        cell = row
        for j in range(row):
            cell = cell * 2 + j
            total += cell
        row += 1
    return total


@pytest.mark.parametrize("n", [0, 1, 5])
def test_nested_while_and_range(n: int) -> None:
    assert run(Nested, n).value == nested_in_python(n)
    assert_pass_preserves(front_pipeline(), Nested, (n,))


# ----- break and continue --------------------------------------------------------------------------


@pl.program
class BreakContinue:
    @pl.function
    def main(self, n: Idx, limit: Idx) -> Idx:
        acc0: Idx = 0
        seen: Idx = 0
        for i, (acc,) in pl.range(n, init_values=(acc0,)):
            if i % 3 == 0:
                acc = acc + 100
                continue
            if acc > limit:
                break
            acc = acc + i
            seen = acc
        return seen


def break_continue_in_python(n: int, limit: int) -> int:
    acc, seen = 0, 0
    for i in range(n):
        if i % 3 == 0:
            acc += 100  # carried to the next iteration through the continue
            continue
        if acc > limit:
            break
        acc += i
        seen = acc
    return seen


@pytest.mark.parametrize(("n", "limit"), [(0, 0), (10, 1000), (20, 450), (20, 250)])
def test_range_form_with_break_and_continue(n: int, limit: int) -> None:
    assert run(BreakContinue, n, limit).value == break_continue_in_python(n, limit)
    assert_pass_preserves(front_pipeline(), BreakContinue, (n, limit))


I64 = scalar_t(D.INT64)


def test_return_vars_of_a_loop_without_yield_get_the_value_carried_at_break() -> None:
    # Hand-built: while x < 100 carrying x with return var `out`; the body doubles x and breaks
    # once x > n. No pl.yield_ anywhere: `out` is the value x had when the loop stopped.
    n = var("n", I64)
    x = ir.IterArg("x", I64, ir.ConstInt(1, D.INT64, SP), SP)
    out = var("out", I64)
    body = seq(
        assign(x, x * ir.ConstInt(2, D.INT64, SP)),
        ir.IfStmt(x > n, seq(ir.BreakStmt(SP)), None, [], SP),
    )
    loop = ir.WhileStmt(x < ir.ConstInt(100, D.INT64, SP), [x], body, [out], SP)
    f = function("f", [n], [I64], loop, ret(out))
    assert run(f, 5).value == 8  # 1 -> 2 -> 4 -> 8 > 5
    assert run(f, 1000).value == 128  # 64 < 100 -> 128, the condition stops it


def test_a_yield_of_the_wrong_arity_is_still_an_error() -> None:
    x = ir.IterArg("x", I64, ir.ConstInt(1, D.INT64, SP), SP)
    out = var("out", I64)
    i = var("i", scalar_t())
    loop = ir.ForStmt(i, 0, 3, 1, [x], seq(ir.YieldStmt([x, x], SP)), [out], SP)
    with pytest.raises(InterpreterError, match="for loop body ends with a yield of 2 values for 1 iter_args"):
        run(function("f", [], [I64], loop, ret(out)))


# ----- the natural while ---------------------------------------------------------------------------


@pl.program
class NaturalWhile:
    @pl.function
    def main(self, n: Idx) -> Idx:
        i: Idx = 0
        squares: Idx = 0
        while i < n:
            i = i + 1
            squares = squares + i * i
        return i * 10000 + squares


@pytest.mark.parametrize("n", [0, 1, 12])
def test_natural_while(n: int) -> None:
    assert run(NaturalWhile, n).value == n * 10000 + sum(k * k for k in range(1, n + 1))
    assert_pass_preserves(front_pipeline(), NaturalWhile, (n,))
