"""pypto.analysis.reductions: the accumulation chain feeding each output, and the tolerance rule on it
(pypto.interp.tolerance)."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import numpy as np
import pytest

import pypto.language as pl
from pypto import interp
from pypto.analysis.reductions import REDUCED_TERMS, SCALES, SUMS, Chain, output_chains
from pypto.interp.run import _entry
from pypto.interp.tolerance import chain_tolerance, output_tolerances
from pypto.ir import op_registry
from pypto.ir.datatype import DataType
from pypto.ir.enums import FunctionType
from pypto.ir.function import Function, Program

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
FP32, FP16 = DataType.FP32, DataType.FP16


def _entry_of(program: Program) -> Function:
    orchestration = [f for f in program.functions.values() if f.func_type is FunctionType.Orchestration]
    return orchestration[0] if orchestration else _entry(program, None)


def _chains(program: Program, values: dict[str, int] | None = None) -> dict[str, Chain]:
    return output_chains(program, _entry_of(program), values)


def test_every_summing_op_of_the_registry_has_a_rule() -> None:
    names = {e.name for e in op_registry.all_entries()}
    assert set(REDUCED_TERMS) == {n for n in names if re.search(r"matmul|gemv|_sum$|_prod$", n)}
    assert SUMS == {n for n in names if re.search(r"\.(part_|row_expand_|col_expand_)?(add|sub)s?c?$", n)}
    assert SCALES == {n for n in names if re.search(
        r"^(tensor|tile)\.((part_|row_expand_|col_expand_)?(mul|div)s?|(row_|col_)expand_expdif"
        r"|exp|log|sqrt|rsqrt|recip|sin|cos)$", n)}
    for name in REDUCED_TERMS:
        assert "lhs" in [p.name for p in op_registry.get_entry(name).params] or "_sum" in name or "_prod" in name


@pytest.mark.parametrize(
    ("example", "output", "terms", "relative"),
    [
        ("tile_add", "out", 2, 1),  # a + b
        ("row_blocks", "c", 2, 1),  # a + b per block, two kernel calls writing c
        ("matmul", "c", 64, 1),  # a kernel's tile.matmul, seen through the orchestration's call
        ("matmul_big_k", "c", 512, 1),
        ("tensor_matmul_acc", "c", 512, 1),  # K = 128 four times: a matmul, then matmul_acc in a 3-trip loop
        ("tensor_matmul_big_mn", "c", 384, 1),
        # e / row_sum(e), e = exp(x - row_max(x)): the 64-column row_sum of 2-term e counts relative
        ("row_softmax", "y", 1, 128),
    ],
)
def test_the_chain_of_an_example(example: str, output: str, terms: int, relative: int) -> None:
    chain = _chains(pl.loads_program(str(EXAMPLES / f"{example}.py")))[output]
    assert (chain.terms, chain.relative) == (terms, relative)
    assert chain.dtypes == frozenset({FP32})


def _calls(body: str, kernel: str) -> Program:
    """A program of ``kernel`` (an InCore function) and a ``main`` orchestration of ``body``."""
    return pl.parse(textwrap.dedent(
        """
        import pypto.language as pl

        @pl.program
        class Calls:
            @pl.function(type=pl.FunctionType.InCore)
        {kernel}

            @pl.function(type=pl.FunctionType.Orchestration)
            def main(
                self,
                x: pl.Tensor[[256, 128], pl.FP32],
                y: pl.Out[pl.Tensor[[256, 1], pl.FP32]],
                z: pl.Out[pl.Tensor[[256, 1], pl.FP32]],
            ) -> pl.Tensor[[256, 1], pl.FP32]:
        {body}
                return y
        """
    ).format(kernel=textwrap.indent(textwrap.dedent(kernel), " " * 4),
             body=textwrap.indent(textwrap.dedent(body), " " * 8)))


ROW_SUM = """
def row_sum(
    self,
    x: pl.Tensor[[256, 128], pl.FP32],
    y: pl.Out[pl.Tensor[[256, 1], pl.FP32]],
    row: pl.Scalar[pl.INDEX],
) -> pl.Tensor[[256, 1], pl.FP32]:
    t: pl.Tile[[8, 128], pl.FP32] = pl.load(x, [row, 0], [8, 128])
    scratch: pl.Tile[[8, 128], pl.FP32] = pl.create_tile([8, 128], dtype=pl.FP32, target_memory=pl.Mem.Vec)
    s: pl.Tile[[8, 1], pl.FP32] = pl.row_sum(t, scratch)
    y = pl.store(s, [row, 0], y)
    return y
"""


@pytest.mark.parametrize("trips", [8, 32])
def test_a_loop_of_calls_overwriting_their_output_stays_flat(trips: int) -> None:
    body = f"""
    for i in pl.range({trips}):
        y = self.row_sum(x, y, i * 8)
    z = self.row_sum(x, z, 0)
    """
    chains = _chains(_calls(body, ROW_SUM))
    assert chains["y"] == chains["z"] == Chain(128, frozenset({FP32}))


def test_a_call_multiplies_the_chains_it_reads_and_an_inout_adds() -> None:
    accumulate = """
    def accumulate(
        self,
        x: pl.Tensor[[256, 1], pl.FP32],
        y: pl.InOut[pl.Tensor[[256, 1], pl.FP32]],
    ) -> pl.Tensor[[256, 1], pl.FP32]:
        a: pl.Tile[[256, 1], pl.FP32] = pl.load(x, [0, 0], [256, 1])
        b: pl.Tile[[256, 1], pl.FP32] = pl.load(y, [0, 0], [256, 1])
        y = pl.store(pl.add(a, b), [0, 0], y)
        return y
    """
    program = pl.parse(textwrap.dedent(
        """
        import pypto.language as pl

        @pl.program
        class Chained:
            @pl.function(type=pl.FunctionType.InCore)
        {row_sum}
            @pl.function(type=pl.FunctionType.InCore)
        {accumulate}
            @pl.function(type=pl.FunctionType.InCore)
            def col_sum(
                self,
                x: pl.Tensor[[256, 1], pl.FP32],
                y: pl.Out[pl.Tensor[[1, 1], pl.FP32]],
            ) -> pl.Tensor[[1, 1], pl.FP32]:
                t: pl.Tile[[256, 1], pl.FP32] = pl.load(x, [0, 0], [256, 1])
                scratch: pl.Tile[[256, 1], pl.FP32] = pl.create_tile([256, 1], dtype=pl.FP32, target_memory=pl.Mem.Vec)
                s: pl.Tile[[1, 1], pl.FP32] = pl.col_sum(t, scratch)
                y = pl.store(s, [0, 0], y)
                return y

            @pl.function(type=pl.FunctionType.Orchestration)
            def main(
                self,
                x: pl.Tensor[[256, 128], pl.FP32],
                y: pl.Out[pl.Tensor[[256, 1], pl.FP32]],
                acc: pl.Out[pl.Tensor[[256, 1], pl.FP32]],
                total: pl.Out[pl.Tensor[[1, 1], pl.FP32]],
            ) -> pl.Tensor[[256, 1], pl.FP32]:
                y = self.row_sum(x, y, 0)
                total = self.col_sum(y, total)
                acc = self.row_sum(x, acc, 0)
                for i in pl.range(4):
                    acc = self.accumulate(y, acc)
                return y
        """
    ).format(row_sum=textwrap.indent(textwrap.dedent(ROW_SUM), " " * 4),
             accumulate=textwrap.indent(textwrap.dedent(accumulate), " " * 4)))
    chains = _chains(program)
    assert chains["total"].terms == 256 * 128  # a col_sum of row sums
    assert chains["acc"].terms == 5 * 128  # a row sum plus four more, added in place


FP16_SOFTMAX = (EXAMPLES / "row_softmax.py").read_text().replace("pl.FP32", "pl.FP16")


def test_a_scaling_op_turns_the_sums_before_it_into_a_relative_error() -> None:
    program = pl.parse(FP16_SOFTMAX)
    eps16 = 2.0**-10
    # exp(x - max): the difference's rounding (2 terms) becomes a relative error of the exponential
    assert _chains(program)["y"] == Chain(1, frozenset({FP16}), 128, amplified=2)
    assert output_tolerances(program, _entry_of(program)) == {"y": (128**0.5 * eps16 + 2 * eps16, 1e-3)}
    # a scaled sum in a sum: the absolute error is the last sum's, the relative one the longest
    assert chain_tolerance(FP16, Chain(3, frozenset({FP16}), 4096)) == (64 * eps16, 3 * eps16)


def test_five_percent_off_in_one_softmax_element_is_a_mismatch() -> None:
    program = pl.parse(FP16_SOFTMAX)
    x = np.random.default_rng(1).standard_normal((64, 64)).astype(np.float16)
    y = interp.run(program, x, np.zeros((64, 64), np.float16)).outputs["y"].astype(np.float64)
    rtol, atol = output_tolerances(program, _entry_of(program))["y"]
    assert np.allclose(y * (1 + 1e-3), y, rtol=rtol, atol=atol)  # rounding-sized differences pass
    wrong = y.copy()
    wrong.flat[np.argmax(y)] *= 1.05
    assert not np.allclose(wrong, y, rtol=rtol, atol=atol)


LOOP = textwrap.dedent(
    """
    import pypto.language as pl

    @pl.program
    class Loop:
        @pl.function
        def main(
            self,
            x: pl.Tensor[[16, 64], pl.FP16],
            y: pl.Out[pl.Tensor[[16, 1], pl.FP16]],
            z: pl.Out[pl.Tensor[[16, 64], pl.FP16]],
            n: pl.Scalar[pl.INDEX],
            flag: pl.Scalar[pl.INDEX],
        ) -> pl.Tensor[[16, 1], pl.FP16]:
            s: pl.Tensor[[16, 1], pl.FP16] = pl.row_sum(x)
            for i in pl.range(n):
                if flag > 0:
                    s = pl.add(s, pl.row_sum(x))
            y[:] = s
            z[:] = pl.exp(x)
            return y
    """
)


def test_a_loop_counts_its_trips_when_they_are_known() -> None:
    program = pl.parse(LOOP)
    assert _chains(program, {"n": 3})["y"] == Chain(4 * 64, frozenset({FP16}))  # both branches of the if count
    assert _chains(program, {"n": 0})["y"].terms == 64
    assert _chains(program)["y"].terms == 2 * 64  # an unknown trip count counts one trip
    assert _chains(program, {"n": 3})["z"] == Chain()  # an output no sum feeds


def test_the_rule_scales_the_accumulating_dtype_epsilon_with_the_length() -> None:
    eps32, eps16 = 2.0**-23, 2.0**-10
    assert chain_tolerance(FP32, Chain()) == (1e-5, 1e-5)
    assert chain_tolerance(FP32, Chain(2, frozenset({FP32}))) == (1e-5, 1e-5)
    assert chain_tolerance(FP32, Chain(512, frozenset({FP32}))) == (1e-5, 512 * eps32)
    assert chain_tolerance(FP32, Chain(16384, frozenset({FP32}))) == (128 * eps32, 16384 * eps32)
    # an FP16 sum cast to an FP32 output rounds like FP16
    assert chain_tolerance(FP32, Chain(64, frozenset({FP16, FP32}))) == (8 * eps16, 64 * eps16)
    assert chain_tolerance(DataType.INT32, Chain(64, frozenset({DataType.INT32}))) == (0.0, 0.0)
    program = pl.parse(LOOP)
    assert output_tolerances(program, _entry_of(program), {"n": 1}) == {
        "y": (max(4e-3, 128**0.5 * eps16), 128 * eps16),
        "z": (4e-3, 1e-3),
    }


MATMUL_EXP = """
import pypto.language as pl

@pl.program
class MatmulExp:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 128], pl.FP16], b: pl.Tensor[[128, 64], pl.FP16],
             out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            out = pl.assemble(out, pl.exp(pl.matmul(a, b, out_dtype=pl.FP32)), [0, 0])
        return out
"""


def test_an_exponential_keeps_the_absolute_error_of_its_operand_as_a_relative_one() -> None:
    """exp(c + d) = exp(c) * (1 + d): the K = 128 sum's absolute error 128 * e is the result's relative
    error, on top of its own rounding (the simulator and the interpreter differ by 1.53e-5 here)."""
    program = pl.parse(MATMUL_EXP)
    eps32 = 2.0**-23
    assert _chains(program)["out"] == Chain(1, frozenset({FP32}), 128, amplified=128)
    assert output_tolerances(program, _entry_of(program)) == {"out": (1e-5 + 128 * eps32, 1e-5)}
