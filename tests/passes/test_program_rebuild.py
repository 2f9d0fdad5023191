"""with_functions: a program with new versions of its functions, keeping its keys when it can."""

from __future__ import annotations

from pathlib import Path

import pytest

import pypto.language as pl
from pypto import ir
from pypto.ir.function import Program
from pypto.ir.node import replace
from pypto.transform.program_rebuild import with_functions

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _two_functions() -> Program:
    """An example of two functions (a kernel and its orchestration)."""
    return pl.loads_program(str(EXAMPLES / "tile_add.py"))


def test_the_same_functions_give_the_same_program() -> None:
    program = _two_functions()
    assert with_functions(program, list(program.functions.values())) is program


def test_functions_under_their_names_keep_the_keys_and_equal_the_constructors_program() -> None:
    program = _two_functions()
    funcs = list(program.functions.values())
    assert len(funcs) > 1
    new = [replace(f, body=f.body) for f in funcs]  # new objects, same names
    got = with_functions(program, new)
    made = Program(new, program.name, program.span)
    assert list(got.functions) == list(made.functions)  # equal keys, in the same order
    assert all(a is b for a, b in zip(got.functions, program.functions))  # the old key objects
    assert all(got.functions[gv] is f for gv, f in zip(program.functions, new))
    assert (got.name, got.span) == (made.name, made.span)
    ir.assert_structural_equal(got, made)
    assert got.as_python() == made.as_python()


def test_a_renamed_function_goes_through_the_constructor() -> None:
    program = _two_functions()
    funcs = list(program.functions.values())
    new = [replace(funcs[0], name="zz_last")] + funcs[1:]
    got = with_functions(program, new)
    assert [gv.name for gv in got.functions] == sorted(f.name for f in new)
    assert got.get_function("zz_last") is new[0]


def test_a_function_count_other_than_the_programs_is_refused() -> None:
    program = _two_functions()
    with pytest.raises(ValueError, match="with_functions: 1 functions for a program of"):
        with_functions(program, list(program.functions.values())[:1])


def test_a_function_pass_keeps_the_keys_and_a_non_function_result_is_reported() -> None:
    from pypto.ir.errors import PyptoError
    from pypto.transform.base import FunctionPass

    class Rebuild(FunctionPass):
        name = "Rebuild"

        def run_function(self, func, program):
            return replace(func, body=func.body)

    class Broken(FunctionPass):
        name = "Broken"

        def run_function(self, func, program):
            return func.body  # not a function

    program = _two_functions()
    got = Rebuild().run(program)
    assert got is not program and all(a is b for a, b in zip(got.functions, program.functions))
    with pytest.raises(PyptoError, match="Broken"):  # through the pass manager's entry point
        Broken()(program)
