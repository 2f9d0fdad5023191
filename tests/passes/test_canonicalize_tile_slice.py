"""CanonicalizeTileSlice: slices of Mat tiles that only feed cube operands become extracts into
Left / Right (a subview cannot leave its buffer); every other slice stays a subview, typed with its
source's pitch when narrower, and copied when read where a strided tile cannot be."""

from __future__ import annotations

from pathlib import Path

import pytest
from pass_helpers import before_after
from tile_programs import PROGRAMS, inputs
from tile_programs import front as tile_front
from tile_stage_programs import SLICES, front

import pypto.language as pl
from pypto import ir, passes
from pypto.interp.testing import assert_pass_preserves
from pypto.ir import op_registry
from pypto.analysis.strided import STRIDED_READERS

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def canonicalize(program: ir.Program) -> ir.Program:
    return assert_pass_preserves(passes.canonicalize_tile_slice(), program, inputs(program), entry="main")


def slice_lines(program: ir.Program) -> list[str]:
    lines = program.get_function("k").as_python().splitlines()
    return [line.strip() for line in lines if "pl.tile.slice" in line or "pl.tile.extract" in line]


@pytest.mark.parametrize("name", sorted(SLICES))
def test_snapshot(name: str, snapshot) -> None:
    before = front(name)
    after = canonicalize(before)
    assert before_after("CanonicalizeTileSlice", before, after) == snapshot


def test_cube_operand_slices_become_extracts_with_their_offsets() -> None:
    assert slice_lines(canonicalize(front("slice_k_loop")))[2:] == [
        "ak: pl.Tile[[64, 32], pl.FP16, pl.Mem.Left] = "
        "pl.tile.extract(ta, 0, i * 32, [64, 32], target_memory=pl.Mem.Left)",
        "bk: pl.Tile[[32, 64], pl.FP16, pl.Mem.Right] = "
        "pl.tile.extract(tb, i * 32, 0, [32, 64], target_memory=pl.Mem.Right)",
    ]


def test_vector_slices_stay_subviews() -> None:
    program = passes.flatten_tile_nd_to_2d()(front("nd_slice_assemble"))
    assert passes.canonicalize_tile_slice()(program) is program


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_kernels_without_slices_are_unchanged(name: str) -> None:
    program = tile_front(name)
    assert passes.canonicalize_tile_slice()(program) is program


# FlattenTileNdTo2D slices this example's Mat operands per batch: those slices become tile.extract.
BATCHED = "tensor_batch_matmul"


def reaching(path: Path) -> ir.Program:
    """An example as it reaches CanonicalizeTileSlice (tensor-level ones converted)."""
    program = passes.PassManager(passes.front_passes()).run(pl.parse(path.read_text()))
    for step in passes.lowering_passes():
        if step.name == "CanonicalizeTileSlice":
            break
        program = step(program)
    return program


@pytest.mark.parametrize("path", sorted(p for p in EXAMPLES.glob("*.py") if p.stem != BATCHED), ids=lambda p: p.stem)
def test_examples_are_unchanged(path: Path) -> None:
    """Every other example reaches CanonicalizeTileSlice with no slice to rewrite."""
    program = reaching(path)
    assert passes.canonicalize_tile_slice()(program) is program


def test_the_per_batch_operand_slices_of_a_batch_matmul_become_extracts() -> None:
    after = passes.canonicalize_tile_slice()(reaching(EXAMPLES / f"{BATCHED}.py"))
    text = after.get_function("main_incore_0").as_python()
    assert "pl.tile.slice(" not in text
    assert text.count("pl.tile.extract(") == 4


@pytest.mark.parametrize("name", sorted(SLICES))
def test_the_pipeline_compiles_them_and_matches_the_interpreter(name: str) -> None:
    program = front(name)
    after = assert_pass_preserves(passes.lowering_passes(), program, inputs(program), entry="main")
    assert "pl.tile.extract(" in after.get_function("k").as_python()


COLUMN_SLICES = """
import pypto.language as pl


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 128], pl.FP32],
          y: pl.Out[pl.Tensor[[16, 192], pl.FP32]]) -> pl.Tensor[[16, 192], pl.FP32]:
        t: pl.Tile[[16, 128], pl.FP32] = pl.load(x, [0, 0], [16, 128])
        lo = t[:, 0:64]
        hi = t[:, 64:128]
        top = t[0:8, :]
        y = pl.store(pl.exp(lo), [0, 0], y)
        y = pl.store(pl.add(hi, hi), [0, 64], y)
        y = pl.store(pl.exp(hi[0:8, 0:32]), [0, 128], y)
        y = pl.store(pl.neg(top), [8, 64], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 128], pl.FP32],
             y: pl.Out[pl.Tensor[[16, 192], pl.FP32]]) -> pl.Tensor[[16, 192], pl.FP32]:
        y = self.k(x, y)
        return y
"""


def reaching_program(program: ir.Program) -> ir.Program:
    """A program as it reaches CanonicalizeTileSlice."""
    program = passes.PassManager(passes.front_passes()).run(program)
    for step in passes.lowering_passes():
        if step.name == "CanonicalizeTileSlice":
            return program
        program = step(program)
    raise AssertionError("CanonicalizeTileSlice is not in the lowering passes")


def test_narrow_vector_slices_keep_their_source_pitch_or_are_copied() -> None:
    program = reaching_program(pl.parse(COLUMN_SLICES))
    after = canonicalize(program)
    lines = [line.strip() for line in after.get_function("k").as_python().splitlines()
             if "pl.tile.slice" in line or "pl.tile.move" in line]
    assert lines == [
        "lo: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec, pl.TileView(stride=[128, 1])] = pl.tile.slice(t, [16, 64], [0, 0])",
        "hi_view: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec, pl.TileView(stride=[128, 1])] = "
        "pl.tile.slice(t, [16, 64], [0, 64])",
        "hi: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.move(hi_view, target_memory=pl.Mem.Vec)",
        "top: pl.Tile[[8, 128], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [8, 128], [0, 0])",
        "t__tmp_v2: pl.Tile[[8, 32], pl.FP32, pl.Mem.Vec, pl.TileView(stride=[64, 1])] = "
        "pl.tile.slice(hi, [8, 32], [0, 0])",
    ]


def test_strided_readers_are_registered_ops() -> None:
    assert sorted(op for op in STRIDED_READERS if op_registry.lookup(op) is None) == []


def test_a_subscript_picking_one_column_is_refused_with_a_hint() -> None:
    source = COLUMN_SLICES.replace("pl.exp(lo)", "pl.exp(t[:, 8])").replace("[16, 192]", "[16, 208]")
    with pytest.warns(Warning, match=r"promoted to shape \[1, 16\]"):
        program = reaching_program(pl.parse(source))
    with pytest.raises(passes.PassError) as err:
        passes.canonicalize_tile_slice()(program)
    assert str(err.value).splitlines() == [
        "CanonicalizeTileSlice: a tile subscript that picks one column of a tile gives a [1, 16] row "
        "whose elements are a row pitch apart in the source tile; no tile view has that layout",
        "   --> <string>:14:29",
        "   |",
        "14 |         y = pl.store(pl.exp(t[:, 8]), [0, 0], y)",
        "   |                             ^^^^^^^",
        "   = hint: keep the column as a [N, 1] tile (t[:, j:j + 1]), or slice the tensor before loading it",
    ]
