"""LegalizeTileCast: casts the vector unit has no instruction for become chains of native casts
(pto-isa's TCVT pairs, per platform), computing the same values; native casts stay as they are."""

from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import pytest
from pass_helpers import before_after
from tile_programs import PROGRAMS
from tile_programs import front as tile_front
from tile_stage_programs import CASTS, front, integral_inputs, kernel

import pypto.language as pl
from pypto import ir, passes
from pypto.backend import BackendType
from pypto.interp.testing import assert_pass_preserves
from pypto.passes import PassContext, PassError
from pypto.analysis.casts import A2A3_CASTS, A5_CASTS, cast_chain

D = ir.DataType
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def legalize(program: ir.Program) -> ir.Program:
    return assert_pass_preserves(passes.legalize_tile_cast(), program, integral_inputs(program), entry="main")


def cast_lines(program: ir.Program) -> list[str]:
    return [line.strip() for line in program.get_function("k").as_python().splitlines() if "pl.tile.cast" in line]


@pytest.mark.parametrize("name", sorted(CASTS))
def test_snapshot(name: str, snapshot) -> None:
    before = front(name)
    after = legalize(before)
    assert after is not before
    assert before_after("LegalizeTileCast", before, after) == snapshot


@pytest.mark.parametrize("mode", ["rint", "round", "floor", "ceil", "trunc", "odd"])
@pytest.mark.parametrize("name", sorted(CASTS))
def test_the_chain_computes_what_the_interpreter_gives_the_cast_on_fractional_data(name: str, mode: str) -> None:
    """The interpreter rounds a non-native cast at each step of this pass's chain, so the chain is
    exact even where rounding through a narrower float differs from rounding once."""
    source = "import pypto.language as pl\n\n" + textwrap.dedent(CASTS[name]).replace("mode='floor'", f"mode='{mode}'")
    program = passes.PassManager(passes.front_passes()).run(pl.parse(source))
    rng = np.random.default_rng(5)
    x = rng.uniform(-100, 100, (16, 64)).astype(np.float32)
    x[0, :8] = [2.4999, -2.4999, 3.9999, -0.4999, 7.49999, 0.50001, 1.0 + 2**-11, 99.99]
    assert_pass_preserves(passes.legalize_tile_cast(), program, [x, np.zeros((16, 64), np.float32)],
                          entry="main", rtol=0, atol=0)


def test_native_casts_are_unchanged() -> None:
    program = front("cast_native")
    assert legalize(program) is program


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_kernels_without_casts_are_unchanged(name: str) -> None:
    program = tile_front(name)
    assert passes.legalize_tile_cast()(program) is program


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.py")), ids=lambda p: p.stem)
def test_examples_are_unchanged(path: Path) -> None:
    """Every example reaches LegalizeTileCast (tensor-level ones converted) with no cast to rewrite."""
    program = passes.PassManager(passes.front_passes()).run(pl.parse(path.read_text()))
    for step in passes.lowering_passes():
        if step.name == "LegalizeTileCast":
            break
        program = step(program)
    assert passes.legalize_tile_cast()(program) is program


def test_each_step_keeps_the_rounding_mode() -> None:
    assert cast_lines(legalize(front("cast_through_int8"))) == [
        "c0_fp16: pl.Tile[[16, 64], pl.FP16, pl.Mem.Vec] = pl.tile.cast(x, target_type=pl.FP16, mode='floor')",
        "c0: pl.Tile[[16, 64], pl.INT8, pl.Mem.Vec] = pl.tile.cast(c0_fp16, target_type=pl.INT8, mode='floor')",
        "c1_fp16: pl.Tile[[16, 64], pl.FP16, pl.Mem.Vec] = pl.tile.cast(c0, target_type=pl.FP16, mode='floor')",
        "c1: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.cast(c1_fp16, target_type=pl.FP32, mode='floor')",
    ]


def test_shortest_chains_on_a2a3() -> None:
    assert cast_chain(D.FP32, D.FP16, A2A3_CASTS) == [D.FP16]
    assert cast_chain(D.FP32, D.INT8, A2A3_CASTS) == [D.FP16, D.INT8]
    assert cast_chain(D.INT8, D.INT32, A2A3_CASTS) == [D.FP16, D.INT32]
    assert cast_chain(D.BF16, D.INT8, A2A3_CASTS) == [D.FP32, D.FP16, D.INT8]
    assert cast_chain(D.FP32, D.UINT32, A2A3_CASTS) is None


def test_the_table_follows_the_platform() -> None:
    # A2A3 converts INT32 -> FP16 directly (the deq path); A5 does not, and goes through FP32.
    assert cast_chain(D.INT32, D.FP16, A2A3_CASTS) == [D.FP16]
    assert cast_chain(D.INT32, D.FP16, A5_CASTS) == [D.FP32, D.FP16]
    # A5 converts INT8 -> INT32 directly.
    assert cast_chain(D.INT8, D.INT32, A5_CASTS) == [D.INT32]
    program = front("cast_through_int8")
    with PassContext(platform=BackendType.Ascend950):
        after = passes.legalize_tile_cast()(program)
    assert cast_lines(after)[:2] == cast_lines(legalize(program))[:2]


def test_a_pair_no_chain_connects_is_refused() -> None:
    program = passes.PassManager(passes.front_passes()).run(
        kernel(
            """
            @pl.program
            class NoChain:
                @pl.function(type=pl.FunctionType.InCore)
                def k(self, a: pl.Tensor[[16, 64], pl.FP32], c: pl.Out[pl.Tensor[[16, 64], pl.UINT32]]) -> pl.Tensor[[16, 64], pl.UINT32]:
                    x = pl.load(a, [0, 0], [16, 64])
                    y = pl.cast(x, pl.UINT32)
                    out = pl.store(y, [0, 0], c)
                    return out
            """
        )
    )
    with pytest.raises(PassError, match=r"no chain of native conversions casts a FP32 tile to UINT32 on a2a3 \(hint: ") as err:
        passes.legalize_tile_cast()(program)
    assert err.value.span.is_valid()
