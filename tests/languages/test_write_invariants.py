"""InputsNotWritten and OutParamsWritten: the directions a user declares are what the program writes."""

from __future__ import annotations

from pathlib import Path

import pytest
from inv_helpers import found, prog
from pypto.languages.invariants import InputsNotWritten, OutParamsWritten
from pypto.languages.ssa import ssa
from pypto.languages.surface import surface

import pypto.language as pl
from pypto import ir
from pypto.ir.errors import VerificationError

_T = "pl.Tensor[[16, 16], pl.FP32]"
_TILE = "pl.Tile[[16, 16], pl.FP32]"
_TO_INPUT = "declare it pl.Out[...] (written only) or pl.InOut[...] (read and written) to write it"
_NOT_WRITTEN = ("write it on every path (an if needs it in both branches) or declare it pl.InOut[...], whose "
                "contents the caller provides")

KERNEL = f"""
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, x: {_T}, y: pl.Out[{_T}]) -> {_T}:
            t: {_TILE} = pl.load(x, [0, 0], [16, 16])
            y = pl.store(t, [0, 0], y)
            return y
"""


def _program(main: str, kernel: str = KERNEL) -> ir.Program:
    return prog(f"""
    @pl.program
    class P:
{kernel}
        @pl.function(type=pl.FunctionType.Orchestration)
{main}
    """)


def test_a_store_into_an_input_is_an_error() -> None:
    kernel = f"""
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, x: {_T}, y: {_T}) -> {_T}:
            t: {_TILE} = pl.load(x, [0, 0], [16, 16])
            r: {_T} = pl.store(t, [0, 0], y)
            return r
"""
    program = _program(f"""
        def main(self, x: {_T}, y: pl.InOut[{_T}]) -> {_T}:
            y = self.k(x, y)
            return y
""", kernel)
    assert found(InputsNotWritten, program) == [
        ("WRITE_TO_INPUT", f"input parameter 'y' is written by tile.store; {_TO_INPUT}", "pl.tile.store(t, [0, 0], y)"),
    ]


def test_passing_an_input_as_an_out_argument_is_an_error() -> None:
    program = _program(f"""
        def main(self, x: {_T}, y: {_T}) -> {_T}:
            z: {_T} = y
            z = self.k(x, z)
            return z
""")
    assert found(InputsNotWritten, program) == [
        ("WRITE_TO_INPUT", f"input parameter 'y' is passed as an Out/InOut argument to 'k'; {_TO_INPUT}", "k(x, z)"),
    ]


def test_a_tensor_level_write_into_an_input_is_an_error() -> None:
    program = prog(f"""
    @pl.program
    class P:
        @pl.function
        def main(self, x: {_T}, y: {_T}) -> {_T}:
            with pl.at(level=pl.Level.CORE_GROUP):
                y[:] = pl.exp(x)
            return y
    """)
    [(code, message, _)] = found(InputsNotWritten, program)
    assert (code, message) == ("WRITE_TO_INPUT", f"input parameter 'y' is written by tensor.assemble; {_TO_INPUT}")


def test_declared_outputs_pass() -> None:
    program = _program(f"""
        def main(self, x: {_T}, y: pl.Out[{_T}]) -> {_T}:
            y = self.k(x, y)
            return y
""")
    assert found(InputsNotWritten, program) == []
    assert found(OutParamsWritten, program) == []


@pytest.mark.parametrize(
    "body",
    [
        # an if without else
        """
            if n > 0:
                y = self.k(x, y)
            return y
""",
        # one branch returns before writing
        """
            if n > 0:
                return y
            y = self.k(x, y)
            return y
""",
        # never written
        """
            return y
""",
        # a loop that never runs
        """
            for i in pl.range(0):
                y = self.k(x, y)
            return y
""",
        # an early return inside a loop
        """
            for i in pl.range(4):
                if i == n:
                    return y
                y = self.k(x, y)
            return y
""",
    ],
    ids=["if-without-else", "early-return", "never", "zero-trips", "return-in-a-loop"],
)
def test_an_out_parameter_missing_on_some_path_is_an_error(body: str) -> None:
    program = _program(f"        def main(self, x: {_T}, n: pl.Scalar[pl.INDEX], y: pl.Out[{_T}]) -> {_T}:" + body)
    [(code, message, node)] = found(OutParamsWritten, program)
    assert code == "OUT_NOT_WRITTEN"
    assert message == f"Out parameter 'y' is not written on every path (at this return); {_NOT_WRITTEN}"
    assert node == "return y"


def test_an_out_parameter_rebound_to_a_computed_value_says_how_to_write_it() -> None:
    program = _program(f"        def main(self, x: {_T}, n: pl.Scalar[pl.INDEX], y: pl.Out[{_T}]) -> {_T}:"
                       "\n            y = pl.add(x, 1.0)\n            return y\n")
    [(code, message, node)] = found(OutParamsWritten, program)
    assert (code, node) == ("OUT_NOT_WRITTEN", "return y")
    assert message == (f"Out parameter 'y' is not written on every path (at this return); {_NOT_WRITTEN}; "
                       "'y = ...' binds the name to a new value and leaves the parameter unwritten: write into it "
                       "with y[...] = value or pl.store(tile, offsets, y)")


@pytest.mark.parametrize(
    "body",
    [
        # both branches
        """
            if n > 0:
                y = self.k(x, y)
            else:
                y = self.k(x, y)
            return y
""",
        # a loop whose trips may stop early: the complete trips write
        """
            for i in pl.range(4):
                if i >= n:
                    break
                y = self.k(x, y)
            return y
""",
        # a loop with a run-time trip count
        """
            for i in pl.range(n):
                y = self.k(x, y)
            return y
""",
        # a trip that continues before the write
        """
            for i in pl.range(4):
                if i == 2:
                    continue
                y = self.k(x, y)
            return y
""",
        # a branch inside a loop: some trips write
        """
            for i in pl.range(4):
                if i < n:
                    y = self.k(x, y)
            return y
""",
        # conditions that constants decide
        """
            m: pl.Scalar[pl.INDEX] = 2 * 3
            for i in pl.range(1, 4):
                if i + 0 < m and not i == 0:
                    y = self.k(x, y)
            if m > 7:
                return y
            return y
""",
    ],
    ids=["both-branches", "break", "dynamic-trips", "continue", "branch-in-a-loop", "constant-conditions"],
)
def test_an_out_parameter_written_on_every_path_passes(body: str) -> None:
    program = _program(f"        def main(self, x: {_T}, n: pl.Scalar[pl.INDEX], y: pl.Out[{_T}]) -> {_T}:" + body)
    assert found(OutParamsWritten, program) == []


def test_an_inout_parameter_need_not_be_written() -> None:
    program = _program(f"""
        def main(self, x: {_T}, y: pl.InOut[{_T}]) -> {_T}:
            return y
""")
    assert found(OutParamsWritten, program) == []


def test_the_surface_dialect_checks_declared_directions_and_ssa_does_not() -> None:
    assert {InputsNotWritten, OutParamsWritten} <= set(surface.invariants)
    assert not {InputsNotWritten, OutParamsWritten} & set(ssa.invariants)


BAD_STORE = f"""import pypto.language as pl


@pl.program
class Bad:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: {_T}, y: {_T}) -> {_T}:
        t: {_TILE} = pl.load(x, [0, 0], [16, 16])
        y = pl.store(t, [0, 0], y)
        return y
"""


def test_compiling_a_program_that_stores_into_an_input_fails_at_the_store(tmp_path: Path) -> None:
    source = tmp_path / "bad.py"
    source.write_text(BAD_STORE)
    with pytest.raises(VerificationError) as info:
        ir.compile(pl.loads_program(str(source)), output_dir=tmp_path / "out")
    text = str(info.value)
    assert "[surface] InputsNotWritten WRITE_TO_INPUT in 'k': input parameter 'y' is written by tile.store" in text
    assert f"at {source}:9:13" in text


def test_a_reassigned_input_name_is_a_new_buffer() -> None:
    program = prog(f"""
    @pl.program
    class P:
        @pl.function
        def main(self, x: {_T}, y: pl.Out[{_T}]) -> {_T}:
            x = pl.create_tensor([16, 16], dtype=pl.FP32)
            with pl.at(level=pl.Level.CORE_GROUP):
                x[:] = pl.exp(y)
                y[:] = pl.exp(x)
            return y
    """)
    assert found(InputsNotWritten, program) == []
    assert found(OutParamsWritten, program) == []


def test_a_kernel_result_derived_from_its_written_parameter_names_that_buffer() -> None:
    kernel = f"""
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, x: {_T}, y: pl.InOut[{_T}]) -> {_T}:
            t: {_TILE} = pl.load(x, [0, 0], [16, 16])
            r: {_T} = pl.store(t, [0, 0], y)
            return r
"""
    program = _program(f"""
        def main(self, x: {_T}, y: pl.Out[{_T}]) -> {_T}:
            for i in pl.range(2):
                y = self.k(x, y)
            return y
""", kernel)
    assert found(OutParamsWritten, program) == []


def test_an_inline_helper_writes_the_callers_tensor_whatever_its_parameter_says() -> None:
    program = prog(f"""
    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.Inline)
        def put(self, t: {_TILE}, c: {_T}) -> {_T}:
            c = pl.store(t, [0, 0], c)
            return c

        @pl.function(type=pl.FunctionType.InCore)
        def k(self, x: {_T}, y: pl.Out[{_T}]) -> {_T}:
            t: {_TILE} = pl.load(x, [0, 0], [16, 16])
            y = self.put(t, y)
            return y

        @pl.function(type=pl.FunctionType.InCore)
        def k_in(self, x: {_T}, y: {_T}) -> {_T}:
            t: {_TILE} = pl.load(x, [0, 0], [16, 16])
            y = self.put(t, y)
            return y
    """)
    assert found(OutParamsWritten, program) == []
    assert found(InputsNotWritten, program) == [
        ("WRITE_TO_INPUT", f"input parameter 'y' is passed as an Out/InOut argument to 'put'; {_TO_INPUT}",
         "put(t, y)"),
    ]


_T2 = "pl.Tensor[[32, 16], pl.FP32]"


def test_an_out_parameter_written_through_row_views_passes() -> None:
    """``o = y[0:16, :]`` passed as the kernel's Out writes ``y`` (the runtime writes the view's rows)."""
    program = _program(f"""
        def main(self, x: {_T}, y: pl.Out[{_T2}]) -> {_T2}:
            top = y[0:16, :]
            top = self.k(x, top)
            rest = pl.slice(y, [16, 16], [16, 0])
            rest = self.k(x, rest)
            return y
""")
    assert found(OutParamsWritten, program) == []


def test_passing_a_view_of_an_input_as_an_out_argument_is_an_error() -> None:
    program = _program(f"""
        def main(self, x: {_T}, y: {_T2}) -> {_T2}:
            v = pl.reshape(pl.slice(y, [16, 16], [16, 0]), [16, 16])
            v = self.k(x, v)
            return y
""")
    assert found(InputsNotWritten, program) == [
        ("WRITE_TO_INPUT", f"input parameter 'y' is passed as an Out/InOut argument to 'k'; {_TO_INPUT}", "k(x, v)"),
    ]


def test_an_incore_kernels_tensor_write_into_its_input_is_derived_and_its_caller_passing_an_input_is_an_error() -> None:
    # The kernel may write x (ConvertTensorToTileOps makes it Out); main may not pass its input a for it.
    program = prog(f"""
    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, x: {_T}, y: pl.Out[{_T}]) -> {_T}:
            x[0:16, :] = pl.exp(x)
            t: {_TILE} = pl.load(x, [0, 0], [16, 16])
            y = pl.store(t, [0, 0], y)
            return y

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: {_T}, y: pl.Out[{_T}]) -> {_T}:
            y = self.k(a, y)
            return y
    """)
    assert found(InputsNotWritten, program) == [
        ("WRITE_TO_INPUT", f"input parameter 'a' is passed as an Out/InOut argument to 'k'; {_TO_INPUT}",
         "k(a, y)"),
    ]
