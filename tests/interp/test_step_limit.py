"""interp.run(..., max_steps=N): a program that does not terminate stops with an error at its loop."""

from __future__ import annotations

import pytest

import pypto.language as pl
from pypto import interp
from pypto.interp import InterpreterError

COLLATZ = """
import pypto.language as pl


@pl.function
def collatz(n: pl.Scalar[pl.INT64]) -> pl.Scalar[pl.INT64]:
    steps: pl.Scalar[pl.INT64] = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = n * 3 + 1
        steps = steps + 1
    return steps
"""

SPIN = """
import pypto.language as pl


@pl.function
def spin(n: pl.Scalar[pl.INT64]) -> pl.Scalar[pl.INT64]:
    while n > 0:
        n = n + 1
    return n
"""


def test_a_terminating_loop_runs_within_the_default_limit() -> None:
    assert interp.run(pl.parse(COLLATZ, "collatz.py"), 27).returns == (111,)


def test_a_loop_that_does_not_end_is_an_error_naming_the_loop() -> None:
    with pytest.raises(InterpreterError) as info:
        interp.run(pl.parse(SPIN, "spin.py"), 1, max_steps=1000)
    err = info.value
    assert (err.span.filename, err.span.begin_line, err.span.begin_column) == ("spin.py", 7, 5)
    assert err.message == (
        "step limit reached: 1000 loop iterations ran and this while loop was starting another; "
        "the program may not terminate (pass a larger max_steps= to run longer)"
    )


def test_the_limit_counts_the_iterations_of_every_loop() -> None:
    func = pl.parse(COLLATZ, "collatz.py")  # 27 takes 111 iterations
    assert interp.run(func, 27, max_steps=111).returns == (111,)
    with pytest.raises(InterpreterError, match="step limit reached: 110 loop iterations"):
        interp.run(func, 27, max_steps=110)


@pytest.mark.parametrize("bad", [0, -1, True])
def test_a_bad_limit_is_refused(bad: object) -> None:
    with pytest.raises(InterpreterError, match=r"max_steps must be an int >= 1, got"):
        interp.run(pl.parse(SPIN, "spin.py"), 1, max_steps=bad)


COUNTDOWN = """
import pypto.language as pl


@pl.program
class Countdown:
    @pl.function
    def down(self, n: pl.Scalar[pl.INT64]) -> pl.Scalar[pl.INT64]:
        m: pl.Scalar[pl.INT64] = self.again(n)
        return m

    @pl.function
    def again(self, n: pl.Scalar[pl.INT64]) -> pl.Scalar[pl.INT64]:
        m: pl.Scalar[pl.INT64] = self.down(n)
        return m

    @pl.function
    def main(self, n: pl.Scalar[pl.INT64]) -> pl.Scalar[pl.INT64]:
        m: pl.Scalar[pl.INT64] = self.down(n)
        return m
"""


def test_a_recursive_call_is_an_error_at_the_call_naming_the_cycle() -> None:
    with pytest.raises(InterpreterError) as info:
        interp.run(pl.parse(COUNTDOWN, "countdown.py"), 3)
    err = info.value
    assert (err.span.filename, err.span.begin_line) == ("countdown.py", 14)
    assert err.message == (
        "'down' calls itself through other functions (down -> again -> down); a function cannot be recursive: "
        "kernels and orchestrations have no call stack, so repeat the work with a loop (pl.range) instead"
    )
