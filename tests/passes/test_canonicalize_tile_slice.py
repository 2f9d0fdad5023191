"""CanonicalizeTileSlice: slices of Mat tiles that only feed cube operands become extracts into
Left / Right (a subview cannot leave its buffer); every other slice stays a subview."""

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
