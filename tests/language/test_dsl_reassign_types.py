"""Re-assigning a name with a value of another type is a ParserTypeError at the assignment.

A fresh variable of the same name (the old behaviour) lost the update inside loops and branches:
a Collatz ``while`` never ended and ``if c: n = 3 * n + 1`` returned a branch-local variable.
"""

from __future__ import annotations

import textwrap

import numpy as np
import pytest
from dsl_helpers import assert_roundtrip

import pypto.language as pl
from pypto import interp
from pypto.language.parser.diagnostics import ParserTypeError

PARAMS = "n: pl.Scalar[pl.INT64], c: pl.BOOL, x: pl.Tensor[[64, 64], pl.FP32], h: pl.Tensor[[64, 64], pl.FP16]"


def parse(body: str, ret: str = "pl.Scalar[pl.INT64]") -> object:
    text = f"@pl.function\ndef f({PARAMS}) -> {ret}:\n" + textwrap.indent(textwrap.dedent(body).strip("\n"), "    ") + "\n"
    return pl.parse(text, filename="prog.py")


def inputs(n: int) -> tuple[object, ...]:
    return n, False, np.zeros((64, 64), np.float32), np.zeros((64, 64), np.float16)


def reassign_error(body: str, ret: str = "pl.Scalar[pl.INT64]") -> ParserTypeError:
    with pytest.raises(ParserTypeError) as info:
        parse(body, ret)
    return info.value


def test_straight_line_scalar_reassignment_with_another_dtype_is_refused_with_the_full_diagnostic() -> None:
    err = reassign_error("n = 3 * n + 1\nreturn n")
    assert str(err) == (
        "Cannot reassign 'n' with a different type: was pl.Scalar[pl.INT64], got pl.Scalar[pl.INDEX]\n"
        "  --> prog.py:3:5\n"
        "  |\n"
        "3 |     n = 3 * n + 1\n"
        "  |     ^^^^^^^^^^^^^\n"
        "  = hint: cast the value to n's dtype, pl.cast(value, pl.INT64), or bind the new value to a new name (n_2 = ...)"
    )


@pytest.mark.parametrize(
    "body",
    [
        # a loop: the update would be lost on the next iteration
        "for i in pl.range(4):\n    n = 3 * n + 1\nreturn n",
        # a branch: `return n` would read a variable defined in one branch only
        "if c:\n    n = 3 * n + 1\nreturn n",
        # a while loop: the Collatz loop never ended
        "while n != 1:\n    if n % 2 == 0:\n        n = n // 2\n    else:\n        n = 3 * n + 1\nreturn n",
    ],
    ids=["for", "if", "while"],
)
def test_reassignment_with_another_dtype_is_refused_in_loops_and_branches(body: str) -> None:
    err = reassign_error(body)
    assert err.message == "Cannot reassign 'n' with a different type: was pl.Scalar[pl.INT64], got pl.Scalar[pl.INDEX]"
    assert "n = 3 * n + 1" in str(err)


def test_the_cast_the_hint_suggests_makes_the_collatz_loop_terminate() -> None:
    func = parse(
        "while n != 1:\n    if n % 2 == 0:\n        n = n // 2\n    else:\n        n = pl.cast(3 * n + 1, pl.INT64)\nreturn n"
    )
    assert interp.run(func, *inputs(27)).returns == (1,)
    assert_roundtrip(func)


def test_tile_reassignment_with_another_dtype_is_refused_with_a_cast_hint() -> None:
    err = reassign_error(
        "t = pl.load(x, [0, 0], [64, 64])\nt = pl.cast(t, pl.FP16)\nreturn n"
    )
    assert err.message == (
        "Cannot reassign 't' with a different type: was pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec], got pl.Tile[[64, 64], pl.FP16, pl.Mem.Vec]"
    )
    assert err.hint == "cast the value to t's dtype, pl.cast(value, pl.FP32), or bind the new value to a new name (t_2 = ...)"


def test_tile_reassignment_with_another_shape_in_a_loop_is_refused_with_a_rename_hint() -> None:
    err = reassign_error(
        "t = pl.load(x, [0, 0], [64, 64])\nfor i in pl.range(2):\n    t = pl.load(x, [0, 0], [32, 64])\nreturn n"
    )
    assert err.message == (
        "Cannot reassign 't' with a different type: was pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec], got pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec]"
    )
    assert err.hint == "bind the new value to a new name (t_2 = ...)"
    assert err.location.begin_line == 5


def test_tensor_reassignment_with_another_type_in_a_branch_is_refused() -> None:
    err = reassign_error("if c:\n    x = h\nreturn n")
    assert err.message == (
        "Cannot reassign 'x' with a different type: was pl.Tensor[[64, 64], pl.FP32], got pl.Tensor[[64, 64], pl.FP16]"
    )
    assert (err.location.begin_line, err.location.begin_column) == (4, 9)


def test_scalar_reassignment_with_another_kind_is_refused_with_a_rename_hint() -> None:
    err = reassign_error("y = n + 1\ny = pl.load(x, [0, 0], [64, 64])\nreturn n")
    assert err.message.startswith("Cannot reassign 'y' with a different type: was pl.Scalar[pl.INT64], got pl.Tile[")
    assert err.hint == "bind the new value to a new name (y_2 = ...)"


def test_reassignment_with_the_same_type_in_a_loop_still_updates_the_variable() -> None:
    func = parse("for i in pl.range(4):\n    n = n * 3 + 1\nreturn n")
    assert interp.run(func, *inputs(1)).returns == (121,)


def test_the_decorator_route_refuses_the_reassignment_too() -> None:
    with pytest.raises(ParserTypeError, match=r"Cannot reassign 'n' with a different type"):

        @pl.function
        def g(n: pl.Scalar[pl.INT64]) -> pl.Scalar[pl.INT64]:
            n = 3 * n + 1
            return n


PLACED_AND_UNPLACED = """
@pl.program
class P:
    @pl.function(type=pl.FunctionType.Inline)
    def twice(self, t: pl.Tile[[16, 64], pl.FP32]) -> pl.Tile[[16, 64], pl.FP32]:
        return pl.add(t, t)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 64], pl.FP32], k: pl.Scalar[pl.INDEX],
             out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(x, [0, 0], [16, 64])
            if k == 0:
                u = self.twice(t)
            else:
                u = pl.mul(t, 3.0)
            out = pl.store(u, [0, 0], out)
        return out
"""


def test_a_helper_tile_without_memory_space_and_an_op_tile_are_one_variable() -> None:
    """``u = self.twice(t)`` (the helper's ``-> pl.Tile[[16, 64], pl.FP32]``) and ``u = pl.mul(t, 3.0)``
    (a Vec tile) differ only in placement: one variable, carried out of the if."""
    from pypto.pipeline.default import builtin_passes

    program = pl.parse(PLACED_AND_UNPLACED)
    x = np.arange(16 * 64, dtype=np.float32).reshape(16, 64)
    for p in builtin_passes():
        program = p(program)
    for k, factor in [(0, 2), (1, 3)]:
        out = interp.run(program, x, k, np.zeros_like(x)).outputs["out"]
        np.testing.assert_array_equal(out, x * factor)


def test_a_submit_bound_to_one_name_says_to_unpack_its_task_id() -> None:
    source = PLACED_AND_UNPLACED.replace(
        """        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(x, [0, 0], [16, 64])
            if k == 0:
                u = self.twice(t)
            else:
                u = pl.mul(t, 3.0)
            out = pl.store(u, [0, 0], out)
""",
        """        out = pl.submit(self.k, x, out)
""",
    ).replace(
        "    @pl.function(type=pl.FunctionType.Orchestration)",
        """    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.FP32],
          out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        out = pl.store(pl.load(x, [0, 0], [16, 64]), [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)""",
    )
    with pytest.raises(ParserTypeError) as info:
        pl.parse(source)
    assert info.value.hint == (
        "a launch gives the kernel's results and its TaskId: unpack them, out, tid = pl.submit(...)"
    )


def test_a_helper_tile_and_a_tile_with_a_smaller_valid_region_are_refused_at_the_assignment() -> None:
    """A valid region smaller than the shape is more than placement: no loop or branch can carry both
    (later, ConvertToSSA's phi failed the type check with internal names and no hint)."""
    source = PLACED_AND_UNPLACED.replace("k: pl.Scalar[pl.INDEX],", "k: pl.Scalar[pl.INDEX], n: pl.Scalar[pl.INDEX],")
    source = source.replace("u = pl.mul(t, 3.0)", "u = pl.load(x, [0, 0], [16, 64], [n, 64])")
    with pytest.raises(ParserTypeError) as info:
        pl.parse(source, filename="prog.py")
    assert str(info.value) == (
        "Cannot reassign 'u' with a different type: was pl.Tile[[16, 64], pl.FP32], "
        "got pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[n, 64])]\n"
        "   --> prog.py:16:17\n"
        "   |\n"
        "16 |                 u = pl.load(x, [0, 0], [16, 64], [n, 64])\n"
        "   |                 ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
        "   = hint: bind the new value to a new name (u_2 = ...)"
    )
