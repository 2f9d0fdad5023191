"""Transposed matmul operands (``pl.matmul(a, b, a_trans=True, b_trans=True)``) through
ConvertTensorToTileOps: each operand is loaded to Mat as stored and read through
``tile.transpose_view``; the whole lowering keeps what the program computes, K-split included."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest
from pass_helpers import before_after

import pypto.language as pl
from pypto import ir, passes
from pypto.interp.testing import assert_pass_preserves
from pypto.languages.outlined import outlined as outlined_dialect
from pypto.passes import PassError


def program(a: list[int], b: list[int], c: list[int], flags: str) -> str:
    return f"""
        @pl.program
        class Trans:
            @pl.function
            def main(self, a: pl.Tensor[{a}, pl.FP16], b: pl.Tensor[{b}, pl.FP16],
                     out: pl.Out[pl.Tensor[{c}, pl.FP32]]) -> pl.Tensor[{c}, pl.FP32]:
                with pl.at(level=pl.Level.CORE_GROUP):
                    p = pl.matmul(a, b, out_dtype=pl.FP32, {flags})
                    out[:] = p
                return out
    """


PROGRAMS = {
    "a_trans": program([64, 32], [64, 48], [32, 48], "a_trans=True"),
    "b_trans": program([32, 64], [48, 64], [32, 48], "b_trans=True"),
    "both": program([64, 32], [48, 64], [32, 48], "a_trans=True, b_trans=True"),
    # K = 512: AutoTileMatmulL0 extracts K slabs from the transposed views.
    "both_big_k": program([512, 128], [128, 512], [128, 128], "a_trans=True, b_trans=True"),
}


def outlined(text: str) -> ir.Program:
    src = "import pypto.language as pl\n\n" + textwrap.dedent(text)
    program = passes.PassManager(passes.front_passes()).run(pl.parse(src))
    for p in (passes.outline_hierarchy_scopes(), passes.outline_incore_scopes(), passes.outline_cluster_scopes()):
        program = p(program)
    return program


def inputs(program: ir.Program) -> list[object]:
    rng = np.random.default_rng(3)
    return [rng.standard_normal([d.value for d in p.type.shape]).astype(np.float16 if p.type.dtype == ir.DataType.FP16
                                                                           else np.float32)
            for p in program.get_function("main").params]


def kernel_lines(program: ir.Program) -> list[str]:
    (func,) = [f for f in program.functions.values() if ir.is_incore_type(f.func_type)]
    return [line.strip() for line in func.as_python().splitlines()[2:]]


@pytest.mark.parametrize("name", ["a_trans", "both"])
def test_snapshot(name: str, snapshot) -> None:
    before = outlined(PROGRAMS[name])
    assert before_after("ConvertTensorToTileOps", before, passes.convert_tensor_to_tile_ops()(before)) == snapshot


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_conversion_preserves_what_the_program_computes(name: str) -> None:
    program = outlined(PROGRAMS[name])
    assert_pass_preserves(passes.convert_tensor_to_tile_ops(), program, inputs(program))


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_the_whole_lowering_keeps_the_meaning(name: str) -> None:
    rest = passes.PassManager(passes.lowering_passes()[4:], start=outlined_dialect)
    program = outlined(PROGRAMS[name])
    assert_pass_preserves(rest, program, inputs(program))


def test_a_transposed_operand_is_loaded_as_stored_and_viewed_transposed() -> None:
    lines = kernel_lines(passes.convert_tensor_to_tile_ops()(outlined(PROGRAMS["b_trans"])))
    assert "b_mat: pl.Tile[[48, 64], pl.FP16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [48, 64], [48, 64], target_memory=pl.Mem.Mat)" in lines
    (view,) = [line for line in lines if "transpose_view" in line]
    assert view.startswith("b_t: pl.Tile[[64, 48], pl.FP16, pl.Mem.Mat, pl.TileView(")
    assert view.endswith("= pl.tile.transpose_view(b_mat)")
    assert any(line.endswith("= pl.tile.matmul(a_mat, b_t)") for line in lines)


def test_the_k_split_extracts_slabs_of_the_transposed_views() -> None:
    rest = passes.PassManager(passes.lowering_passes()[4:9], start=outlined_dialect)
    assert rest.get_pass_names()[-1] == "AutoTileMatmulL0"
    lines = kernel_lines(rest.run(outlined(PROGRAMS["both_big_k"])))
    assert any("pl.tile.extract(a_t, 0, ko * 128, [128, 128], target_memory=pl.Mem.Left)" in line for line in lines)
    assert any("pl.tile.extract(b_t, ko * 128, 0, [128, 128], target_memory=pl.Mem.Right)" in line for line in lines)


def test_c_matrix_nz_is_refused_at_conversion_with_a_hint() -> None:
    prog = outlined(program([32, 64], [64, 48], [32, 48], "c_matrix_nz=True"))
    with pytest.raises(PassError) as err:
        passes.convert_tensor_to_tile_ops()(prog)
    assert err.value.message == "ConvertTensorToTileOps: tensor.matmul with c_matrix_nz has no tile lowering yet"
    assert err.value.hint == "drop c_matrix_nz: the product is stored in ND order"
    assert err.value.span.is_valid()
