"""pypto.analysis.reductions: the accumulation chain feeding each output, and the tolerance rule on it
(pypto.interp.tolerance)."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest

import pypto.language as pl
from pypto.analysis.reductions import REDUCED_TERMS, SUMS, Chain, output_chains
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
    for name in REDUCED_TERMS:
        assert "lhs" in [p.name for p in op_registry.get_entry(name).params] or "_sum" in name or "_prod" in name


@pytest.mark.parametrize(
    ("example", "output", "terms"),
    [
        ("tile_add", "out", 2),  # a + b
        ("matmul", "c", 64),  # a kernel's tile.matmul, seen through the orchestration's call
        ("matmul_big_k", "c", 512),
        ("tensor_matmul_acc", "c", 512),  # K = 128 four times: a matmul, then matmul_acc in a 3-trip loop
        ("tensor_matmul_big_mn", "c", 384),
        ("row_softmax", "y", 128),  # row_sum over 64 columns of exp(x - row_max(x))
    ],
)
def test_the_chain_of_an_example(example: str, output: str, terms: int) -> None:
    chain = _chains(pl.loads_program(str(EXAMPLES / f"{example}.py")))[output]
    assert chain.terms == terms
    assert chain.dtypes == frozenset({FP32})


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
