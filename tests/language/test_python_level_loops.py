"""``pl.range`` / ``pl.parallel`` / ``pl.unroll`` called in plain Python (outside a kernel) iterate
like ``range``; inside a kernel the parser still reads them as DSL loops."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

import pypto.language as pl
from pypto import ir
from pypto.language.parser import ParserTypeError


@pytest.mark.parametrize("loop", [pl.range, pl.parallel, pl.unroll], ids=["range", "parallel", "unroll"])
def test_loops_iterate_like_range_in_python(loop: Callable[..., Iterator[int]]) -> None:
    assert list(loop(4)) == [0, 1, 2, 3]
    assert list(loop(2, 9, 3)) == [2, 5, 8]
    assert list(loop(3, 0, -1)) == [3, 2, 1]


def test_init_values_pair_each_index_with_the_values() -> None:
    assert list(pl.range(2, init_values=(7, 8))) == [(0, (7, 8)), (1, (7, 8))]
    assert [i for i, (acc,) in pl.parallel(3, init_values=[1])] == [0, 1, 2]


@pytest.mark.parametrize(
    ("build", "got"),
    [
        (lambda: pl.range(1.5), "got 1.5"),
        (lambda: pl.unroll(), "got no arguments"),
        (lambda: pl.range(0, 4, 0), "got 0, 4, 0"),
    ],
    ids=["float", "none", "zero-step"],
)
def test_bad_bounds_are_a_clear_error(build: Callable[[], object], got: str) -> None:
    with pytest.raises(ParserTypeError) as info:
        build()
    err = info.value
    assert err.message.endswith("takes 1 to 3 int bounds (a non-zero step), " + got)
    assert err.span["filename"] == __file__ and err.hint.startswith("in plain Python write pl.")


def test_the_parser_still_reads_them_as_dsl_loops() -> None:
    func = pl.parse(
        "@pl.function\n"
        "def f(n: pl.INDEX) -> pl.INDEX:\n"
        "    for i, (acc,) in pl.range(4, init_values=(n,)):\n"
        "        acc = pl.yield_(acc + i)\n"
        "    return acc\n"
    )
    loops = [s for s in ir.flatten_to_stmts(func.body) if isinstance(s, ir.ForStmt)]
    assert len(loops) == 1
