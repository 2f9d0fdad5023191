"""Which assignments are one source variable: the parser's scoping decides, never a shared name.

Each program runs on the interpreter as parsed and after the front passes up to ConvertToSSA
(InlineFunctions, UnrollLoops, CtrlFlowTransform, ConvertToSSA); both must give Python's value. An
``@pl.inline`` helper's variables are its own even where they share a caller's name (a join by
name once made ``f(5)`` below 210 instead of 155, silently), and so is a parameter it re-assigns
(borrowing the caller's variable once gave 4001 instead of 7001 for ``bump(1)``).
"""

from __future__ import annotations

from typing import Any

import pytest

import pypto.language as pl
from pypto import passes
from pypto.interp.run import run
from pypto.ir.function import Program

FRONT = (passes.inline_functions, passes.unroll_loops, passes.ctrl_flow_transform, passes.convert_to_ssa)


@pl.inline
def pick(a: pl.INDEX) -> pl.INDEX:
    if a > 2:
        t = a + 100
    else:
        t = a + 200
    return t


@pl.inline
def pick_n(a: pl.INDEX) -> pl.INDEX:
    if a > 2:
        n = a + 100
    else:
        n = a + 200
    return n


@pl.inline
def grow(a: pl.INDEX) -> pl.INDEX:
    t = a + 1
    t = t * 2
    for i in pl.range(3):
        t = t + i
    return t


@pl.inline
def bump(a: pl.INDEX) -> pl.INDEX:
    for i in pl.range(3):
        a = a + i + 1
    return a


@pl.inline
def bump_if(a: pl.INDEX) -> pl.INDEX:
    if a > 2:
        a = a + 100
    return a


@pl.inline
def twice(a: pl.INDEX) -> pl.INDEX:
    a = a * 2
    a = a + 1
    return a


@pl.program
class Helpers:
    @pl.function
    def branch_helper(self, n: pl.INDEX) -> pl.INDEX:
        t = n * 10
        u = pick(n)
        return t + u

    @pl.function
    def helper_names_a_parameter(self, m: pl.INDEX, n: pl.INDEX) -> pl.INDEX:
        u = pick_n(m)
        return n * 10 + u

    @pl.function
    def straight_and_loop_helper(self, n: pl.INDEX) -> pl.INDEX:
        t = n * 10
        u = grow(n)
        return t + u

    @pl.function
    def loop_carrying_the_name(self, n: pl.INDEX) -> pl.INDEX:
        t = n
        for i in pl.range(3):
            u = pick(i + 2)
            t = t + u
        return t

    @pl.function
    def loop_calling_a_looping_helper(self, n: pl.INDEX) -> pl.INDEX:
        t = n
        for i in pl.range(2):
            t = t + grow(i + t)
        return t

    @pl.function
    def loop_reassigning_a_parameter(self, n: pl.INDEX) -> pl.INDEX:
        u = bump(n)
        return u * 1000 + n

    @pl.function
    def branch_reassigning_a_parameter(self, n: pl.INDEX) -> pl.INDEX:
        u = bump_if(n)
        return u * 1000 + n

    @pl.function
    def straight_line_reassigning_a_parameter(self, n: pl.INDEX) -> pl.INDEX:
        u = twice(n)
        return u * 1000 + n

    @pl.function
    def looping_helper_in_a_loop(self, n: pl.INDEX) -> pl.INDEX:
        t = n
        for i in pl.range(2):
            t = bump(t)
        return t

    @pl.function
    def looping_helper_given_numbers(self, n: pl.INDEX) -> pl.INDEX:
        u = bump(3)
        v = bump(n + 1)
        return u * 1000 + v


@pl.program
class Jumps:
    """Kernels that leave a block early: CtrlFlowTransform moves the code after the jump into a
    branch, and a read after it means whichever assignment ran last."""

    @pl.function(type=pl.FunctionType.InCore)
    def chain_then_return(self, n: pl.INDEX) -> pl.INDEX:
        x = n + 1
        x = x * 2
        if n > 3:
            return x
        x = x + 100
        return x

    @pl.function(type=pl.FunctionType.InCore)
    def helper_after_return(self, n: pl.INDEX) -> pl.INDEX:
        t = n * 10
        if n > 7:
            return t
        u = pick(n)
        t = t + u
        return t

    @pl.function(type=pl.FunctionType.InCore)
    def unrolled_return(self, n: pl.INDEX) -> pl.INDEX:
        x = n
        for _ in pl.unroll(3):
            x = x + 10
            if x > n + 15:
                return x
        return x

    @pl.function(type=pl.FunctionType.InCore)
    def loop_break(self, n: pl.INDEX) -> pl.INDEX:
        x = n + 1
        x = x * 2
        for i in pl.range(10):
            if i >= n:
                break
            y = x + i
            x = y * 3
        return x


def _front(program: Program) -> Program:
    for make in FRONT:
        program = make()(program)
    return program


@pytest.mark.parametrize(("entry", "args", "expected"), [
    ("branch_helper", (5,), 155),
    ("branch_helper", (1,), 211),
    ("helper_names_a_parameter", (1, 5), 251),
    ("straight_and_loop_helper", (5,), 65),
    ("loop_carrying_the_name", (5,), 5 + 202 + 103 + 104),
    ("loop_calling_a_looping_helper", (5,), 67),
    # a helper re-assigning its parameter re-assigns a variable of its own, copied from the argument
    ("loop_reassigning_a_parameter", (1,), 7001),
    ("loop_reassigning_a_parameter", (5,), 11005),
    ("branch_reassigning_a_parameter", (1,), 1001),
    ("branch_reassigning_a_parameter", (5,), 105005),
    ("straight_line_reassigning_a_parameter", (5,), 11005),
    ("looping_helper_in_a_loop", (5,), 17),
    ("looping_helper_given_numbers", (5,), 9012),
])
def test_an_inlined_helper_keeps_its_own_variables(entry: str, args: tuple[Any, ...], expected: int) -> None:
    assert run(Helpers, *args, entry=entry).value == expected
    assert run(_front(Helpers), *args, entry=entry).value == expected


@pytest.mark.parametrize(("entry", "args", "expected"), [
    ("chain_then_return", (5,), 12),
    ("chain_then_return", (1,), 104),
    ("helper_after_return", (5,), 155),
    ("helper_after_return", (9,), 90),
    ("unrolled_return", (5,), 25),
    ("unrolled_return", (50,), 70),
    ("loop_break", (2,), 57),
])
def test_a_jumping_kernel_reads_the_last_assignment_that_ran(entry: str, args: tuple[Any, ...], expected: int) -> None:
    assert run(Jumps, *args, entry=entry).value == expected
    assert run(_front(Jumps), *args, entry=entry).value == expected


def test_a_function_that_leaves_early_keeps_one_variable_per_name() -> None:
    body = Jumps.get_function("chain_then_return").body.stmts
    assert body[0].var is body[1].var is body[3].var
    straight = Helpers.get_function("straight_and_loop_helper").body.stmts
    assert straight[1].var is not straight[2].var  # grow's t = a + 1; t = t * 2: SSA as parsed
