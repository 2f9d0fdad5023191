"""Batched matmuls with a transposed operand (``pl.matmul(a, b, b_trans=True)`` on rank-3 tensors):
ConvertTensorToTileOps reads the operand through a rank-3 ``tile.transpose_view``, and
FlattenTileNdTo2D turns that into the transposed view of the merged tile, whose batches are column
blocks each matmul extracts; the whole lowering keeps what the program computes."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest
from pass_helpers import before_after

import pypto.language as pl
from pypto import ir, passes
from pypto.interp.testing import assert_pass_preserves
from pypto.languages.invariants import TileOps2D
from pypto.languages.outlined import outlined as outlined_dialect
from pypto.passes import PassError


def program(a: list[int], b: list[int], c: list[int], flags: str) -> str:
    return f"""
        @pl.program
        class BatchedTrans:
            @pl.function
            def main(self, a: pl.Tensor[{a}, pl.FP16], b: pl.Tensor[{b}, pl.FP16],
                     out: pl.Out[pl.Tensor[{c}, pl.FP32]]) -> pl.Tensor[{c}, pl.FP32]:
                with pl.at(level=pl.Level.CORE_GROUP):
                    out[:] = pl.matmul(a, b, out_dtype=pl.FP32, {flags})
                return out
    """


PROGRAMS = {
    "b_trans": program([2, 32, 64], [2, 16, 64], [2, 32, 16], "b_trans=True"),
    "a_trans": program([2, 64, 32], [2, 64, 16], [2, 32, 16], "a_trans=True"),
    "both": program([2, 64, 32], [2, 16, 64], [2, 32, 16], "a_trans=True, b_trans=True"),
    # One B for every batch: its view is read at column 0 by each batch.
    "b_trans_broadcast": program([3, 32, 64], [1, 16, 64], [3, 32, 16], "b_trans=True"),
}


def kernel_program(params: str, ret: str, body: str) -> str:
    lines = "\n".join(" " * 20 + line for line in textwrap.dedent(body).strip().splitlines())
    return f"""
        @pl.program
        class BatchedTransBody:
            @pl.function
            def main(self, {params}) -> {ret}:
                with pl.at(level=pl.Level.CORE_GROUP):
{lines}
                return out
    """


_AB = "a: pl.Tensor[[2, 16, 32], pl.FP16], b: pl.Tensor[[2, 16, 32], pl.FP16], "
_C = "pl.Tensor[[2, 16, 16], pl.FP32]"
PROGRAMS.update({
    # A transpose of the last two axes feeding a matmul is its transposed operand.
    "transpose_fed": kernel_program(_AB + f"out: pl.Out[{_C}]", _C, """
        bt = pl.transpose(b, 1, 2)
        out[:] = pl.matmul(a, bt, out_dtype=pl.FP32)
    """),
    "transpose_fed_2d": kernel_program(
        "a: pl.Tensor[[16, 32], pl.FP16], b: pl.Tensor[[16, 32], pl.FP16], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]",
        "pl.Tensor[[16, 16], pl.FP32]", """
        bt = pl.transpose(b, -1, -2)
        out[:] = pl.matmul(a, bt, out_dtype=pl.FP32)
    """),
    # A batched accumulation: each batch keeps its own Acc tile.
    "matmul_acc_b_trans": kernel_program(_AB + f"out: pl.Out[{_C}]", _C, """
        c = pl.matmul(a, b, out_dtype=pl.FP32, b_trans=True)
        out[:] = pl.matmul_acc(c, a, b, b_trans=True)
    """),
})


def outlined(text: str) -> ir.Program:
    program = passes.PassManager(passes.front_passes()).run(pl.parse(textwrap.dedent(text)))
    for p in (passes.outline_hierarchy_scopes(), passes.outline_incore_scopes(), passes.outline_cluster_scopes()):
        program = p(program)
    return program


def inputs(program: ir.Program) -> list[object]:
    rng = np.random.default_rng(7)
    return [rng.standard_normal([d.value for d in p.type.shape]).astype(np.float16 if p.type.dtype == ir.DataType.FP16
                                                                           else np.float32)
            for p in program.get_function("main").params]


def kernel_lines(program: ir.Program) -> list[str]:
    (func,) = [f for f in program.functions.values() if ir.is_incore_type(f.func_type)]
    return [line.strip() for line in func.as_python().splitlines()[2:]]


def converted(name: str) -> ir.Program:
    return passes.convert_tensor_to_tile_ops()(outlined(PROGRAMS[name]))


def test_snapshot(snapshot) -> None:
    before = converted("both")
    after = passes.flatten_tile_nd_to_2d()(before)
    assert TileOps2D.check(after) == []
    assert before_after("FlattenTileNdTo2D", before, after) == snapshot


def test_conversion_reads_a_rank_3_operand_through_a_rank_3_view() -> None:
    lines = kernel_lines(converted("b_trans"))
    assert lines[2] == ("b_t: pl.Tile[[2, 64, 16], pl.FP16, pl.Mem.Mat, pl.TileView(blayout=pl.TileLayout.row_major, "
                        "slayout=pl.TileLayout.col_major)] = pl.tile.transpose_view(b_mat)")
    assert lines[3].endswith("= pl.tile.batch_matmul(a_mat, b_t)")


def test_each_batch_is_a_column_block_of_the_view_of_the_merged_tile() -> None:
    lines = kernel_lines(passes.flatten_tile_nd_to_2d()(converted("b_trans")))
    view = "pl.TileView(blayout=pl.TileLayout.row_major, slayout=pl.TileLayout.col_major)"
    assert lines[2] == f"b_t_0: pl.Tile[[64, 32], pl.FP16, pl.Mem.Mat, {view}] = pl.tile.transpose_view(b_mat)"
    slices = [line for line in lines if "pl.tile.slice(b_t_0" in line]
    assert [s.split(" = ")[1] for s in slices] == [
        "pl.tile.slice(b_t_0, [64, 16], [0, 0])",
        "pl.tile.slice(b_t_0, [64, 16], [0, 16])",
    ]


def test_a_broadcast_batch_reads_the_same_block() -> None:
    lines = kernel_lines(passes.flatten_tile_nd_to_2d()(converted("b_trans_broadcast")))
    slices = [line.split(" = ")[1] for line in lines if "pl.tile.slice(b_t_0" in line]
    assert slices == ["pl.tile.slice(b_t_0, [64, 16], [0, 0])"] * 3


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_the_whole_lowering_keeps_the_meaning(name: str) -> None:
    rest = passes.PassManager(passes.lowering_passes()[4:], start=outlined_dialect)
    program = outlined(PROGRAMS[name])
    after = assert_pass_preserves(rest, program, inputs(program))
    assert TileOps2D.check(after) == []


_VIEW_STORED = """
    @pl.program
    class ViewStored:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, a: pl.Tensor[[2, 16, 32], pl.FP16],
              c: pl.Out[pl.Tensor[[2, 32, 16], pl.FP16]]) -> pl.Tensor[[2, 32, 16], pl.FP16]:
            x = pl.load(a, [0, 0, 0], [2, 16, 32], target_memory=pl.Mem.Mat)
            t = pl.tile.transpose_view(x)
            out = pl.store(t, [0, 0, 0], c)
            return out

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[2, 16, 32], pl.FP16],
                 c: pl.Out[pl.Tensor[[2, 32, 16], pl.FP16]]) -> pl.Tensor[[2, 32, 16], pl.FP16]:
            c = self.k(a, c)
            return c
"""


def test_a_rank_3_view_read_by_another_op_is_refused_with_a_hint() -> None:
    program = passes.PassManager(passes.front_passes()).run(pl.parse(textwrap.dedent(_VIEW_STORED)))
    with pytest.raises(PassError) as err:
        passes.flatten_tile_nd_to_2d()(program)
    assert err.value.message == (
        "FlattenTileNdTo2D: the transposed view t of a rank-3 tile is read by something other than a batched matmul "
        "operand; merged rows have no transposed 2-D form")
    assert err.value.hint == "use it only as an operand of pl.matmul (a_trans/b_trans), or transpose 2-D tiles"
    assert err.value.span.is_valid() and err.value.span.begin_line == 8  # the view


def test_a_transpose_feeding_a_matmul_is_a_transposed_view_of_the_mat_tile() -> None:
    lines = kernel_lines(converted("transpose_fed"))
    assert lines[2] == ("bt_tile: pl.Tile[[2, 32, 16], pl.FP16, pl.Mem.Mat, "
                        "pl.TileView(blayout=pl.TileLayout.row_major, slayout=pl.TileLayout.col_major)] = "
                        "pl.tile.transpose_view(b_mat)")
    assert not any("tile.transpose(" in line for line in lines)


def test_a_batched_accumulation_adds_to_each_batch_part() -> None:
    lines = kernel_lines(passes.flatten_tile_nd_to_2d()(converted("matmul_acc_b_trans")))
    calls = [line.split(" = ")[1] for line in lines if "matmul" in line]
    assert calls == [
        "pl.tile.matmul(bmm_arg_0, bmm_arg_1)",
        "pl.tile.matmul(bmm_arg_2, bmm_arg_3)",
        "pl.tile.matmul_acc(bmm_0, bmm_arg_4, bmm_arg_5)",
        "pl.tile.matmul_acc(bmm_1, bmm_arg_6, bmm_arg_7)",
    ]
    assert not any("assemble" in line for line in lines)


def test_a_batched_accumulation_with_init_cond_is_refused_with_a_hint() -> None:
    text = kernel_program(_AB + f"out: pl.Out[{_C}]", _C, """
        c = pl.matmul(a, b, out_dtype=pl.FP32, b_trans=True)
        out[:] = pl.matmul_acc(c, a, b, b_trans=True, init_cond=True)
    """)
    with pytest.raises(PassError) as err:
        passes.convert_tensor_to_tile_ops()(outlined(text))
    assert err.value.message == (
        "ConvertTensorToTileOps: tensor.matmul_acc of rank > 2 operands with init_cond has no tile lowering")
    assert err.value.hint == "start the sum with pl.matmul instead of an init_cond"
