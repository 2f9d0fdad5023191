"""ResolveBackendOpLayouts: row-major-only vector ops get row-major operands ([N, 1] columns
reshaped to [1, N], other col-major tiles moved), their results get their layout back, and the
kernels compute what they computed before."""

from __future__ import annotations

from pathlib import Path

import pytest
from pass_helpers import before_after
from tile_programs import PROGRAMS, inputs
from tile_programs import front as tile_front
from tile_stage_programs import LAYOUTS, front

import pypto.language as pl
from pypto import ir, passes
from pypto.interp.testing import assert_pass_preserves
from pypto.languages import tiled
from pypto.transform.errors import PassError

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def tiled_front(name: str) -> ir.Program:
    return passes.infer_tile_memory_space()(front(name))


def resolve(program: ir.Program) -> ir.Program:
    return assert_pass_preserves(passes.resolve_backend_op_layouts(), program, inputs(program), entry="main")


def kernel_lines(program: ir.Program) -> list[str]:
    return [line.strip() for line in program.get_function("k").as_python().splitlines()[2:]]


@pytest.mark.parametrize("name", sorted(LAYOUTS))
def test_snapshot(name: str, snapshot) -> None:
    before = tiled_front(name)
    after = resolve(before)
    assert after in tiled
    assert before_after("ResolveBackendOpLayouts", before, after) == snapshot


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_row_major_kernels_are_unchanged(name: str) -> None:
    program = passes.infer_tile_memory_space()(tile_front(name))
    assert passes.resolve_backend_op_layouts()(program) is program


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.py")), ids=lambda p: p.stem)
def test_examples_are_unchanged(path: Path) -> None:
    program = passes.PassManager(passes.front_passes()).run(pl.parse(path.read_text()))
    for step in passes.lowering_passes():
        if step.name == "ResolveBackendOpLayouts":
            break
        program = step(program)
    assert passes.resolve_backend_op_layouts()(program) is program


def test_a_column_is_reshaped_to_a_row_and_back() -> None:
    lines = kernel_lines(resolve(tiled_front("layout_row_vectors")))
    assert lines[3:6] == [
        "m_row: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.reshape(m, [1, 64])",
        "e_row: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(m_row)",
        "e: pl.Tile[[64, 1], pl.FP32, pl.Mem.Vec] = pl.tile.reshape(e_row, [64, 1])",
    ]
    # The next row-major-only user of e reads its row form; the row broadcast takes the column.
    assert "pl.tile.mul(e_row, s_row)" in lines[8]
    assert lines[10] == "r: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.row_expand_sub(t, p)"


def test_a_col_major_tile_is_moved_to_row_major() -> None:
    lines = kernel_lines(resolve(tiled_front("layout_col_major_tile")))
    assert lines[2] == (
        "c_row: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.move(c, target_memory=pl.Mem.Vec, "
        "blayout=pl.TileLayout.row_major, slayout=pl.TileLayout.none_box)"
    )


@pytest.mark.parametrize("name", sorted(LAYOUTS))
def test_the_pipeline_compiles_them_and_matches_the_interpreter(name: str) -> None:
    program = front(name)
    assert_pass_preserves(passes.lowering_passes(), program, inputs(program), entry="main")


def test_a_column_into_an_op_that_is_not_per_element_is_refused_with_a_hint() -> None:
    # col_max's a2a3 implementation asserts a row-major input; a column has no row-major form, and its
    # [1, N] reshape would reduce the other axis.
    program = passes.infer_tile_memory_space()(passes.PassManager(passes.front_passes()).run(pl.parse('''
import pypto.language as pl

@pl.program
class ColumnMax:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[64, 64], pl.FP32], y: pl.Out[pl.Tensor[[1, 1], pl.FP32]]) -> pl.Tensor[[1, 1], pl.FP32]:
        t = pl.load(x, [0, 0], [64, 64])
        tmp = pl.create_tile([64, 64], dtype=pl.FP32)
        s = pl.row_sum(t, tmp)
        m = pl.col_max(s)
        out = pl.store(m, [0, 0], y)
        return out
''')))
    with pytest.raises(PassError) as err:
        passes.resolve_backend_op_layouts()(program)
    assert str(err.value).splitlines() == [
        "ResolveBackendOpLayouts: tile.col_max runs only on row-major tiles, and its operand [64, 1] is "
        "a column, which is col-major (a row-major row must fill whole 32-byte blocks)",
        "   --> <string>:11:9",
        "   |",
        "11 |         m = pl.col_max(s)",
        "   |         ^^^^^^^^^^^^^^^^^",
        "   = hint: compute on the column's [1, N] reshape (pl.reshape), where a row reduction of the row stands for "
        "a column reduction of the column, or on a wider tile",
    ]
