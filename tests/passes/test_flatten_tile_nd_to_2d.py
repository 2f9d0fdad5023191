"""FlattenTileNdTo2D: kernel tiles of rank > 2 become 2-D (leading axes merged into rows), the
kernels compute what they computed before, and kernels already 2-D pass through as they are."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from pass_helpers import before_after
from tile_programs import PROGRAMS, inputs
from tile_programs import front as tile_front
from tile_stage_programs import ND, front, kernel

import pypto.language as pl
from pypto import ir, passes
from pypto.interp.testing import assert_pass_preserves
from pypto.languages.invariants import TileOps2D
from pypto.passes import PassError

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def flatten(program: ir.Program) -> ir.Program:
    return assert_pass_preserves(passes.flatten_tile_nd_to_2d(), program, inputs(program), entry="main")


def kernel_lines(program: ir.Program) -> list[str]:
    """The printed statements of the program's kernel, one per line."""
    (func,) = [f for f in program.functions.values() if ir.is_incore_type(f.func_type)]
    return [line.strip() for line in func.as_python().splitlines()[2:]]


def outlined(program: ir.Program) -> ir.Program:
    """``program`` after the front pipeline and the outlining passes (as the pipeline hands it over)."""
    program = passes.PassManager(passes.front_passes()).run(program)
    for step in (passes.outline_hierarchy_scopes(), passes.outline_incore_scopes(), passes.outline_cluster_scopes()):
        program = step(program)
    return program


@pytest.mark.parametrize("name", sorted(ND))
def test_snapshot(name: str, snapshot) -> None:
    before = front(name)
    after = flatten(before)
    assert TileOps2D.check(after) == []
    assert before_after("FlattenTileNdTo2D", before, after) == snapshot


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_two_dimensional_kernels_are_unchanged(name: str) -> None:
    program = tile_front(name)
    assert passes.flatten_tile_nd_to_2d()(program) is program


# Examples on rank > 2 tensors, whose kernels FlattenTileNdTo2D rewrites.
ND_EXAMPLES = {"tensor_batch_matmul"}


def converted(path: Path) -> ir.Program:
    """An example as it reaches FlattenTileNdTo2D (tensor-level ones converted)."""
    program = passes.PassManager(passes.front_passes()).run(pl.parse(path.read_text()))
    for step in passes.lowering_passes():
        if step.name == "FlattenTileNdTo2D":
            break
        program = step(program)
    return program


@pytest.mark.parametrize("path", sorted(p for p in EXAMPLES.glob("*.py") if p.stem not in ND_EXAMPLES),
                         ids=lambda p: p.stem)
def test_examples_are_unchanged(path: Path) -> None:
    """Every other example reaches FlattenTileNdTo2D with 2-D tiles only."""
    program = converted(path)
    assert passes.flatten_tile_nd_to_2d()(program) is program


@pytest.mark.parametrize("name", sorted(ND_EXAMPLES))
def test_rank_n_examples_are_flattened(name: str) -> None:
    program = converted(EXAMPLES / f"{name}.py")
    after = flatten(program)
    assert after is not program and TileOps2D.check(after) == []


def test_loads_keep_their_window_and_stores_get_the_partition_shape() -> None:
    lines = kernel_lines(flatten(front("nd_elementwise")))
    assert lines[0] == (
        "x: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = "
        "pl.tile.load(a, [0, 0, 0], [2, 16, 64], [2, 16, 64], target_memory=pl.Mem.Vec, flatten=True)"
    )
    assert lines[6] == "r: pl.Tile[[32, 1], pl.FP32, pl.Mem.Vec] = pl.tile.row_sum(m, tmp)"
    assert lines[8] == "out: pl.Tensor[[2, 16, 64], pl.FP32] = pl.tile.store(d, [0, 0, 0], c, [2, 16, 64])"


def test_a_valid_region_along_the_first_axis_merges_into_rows() -> None:
    lines = kernel_lines(flatten(front("nd_loop_partial")))
    assert lines[0].startswith("x: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[24, 32])] = ")
    # Element (1, 2, 3) is row 1*8+2 = 10; (2, 7, 31) is row 23.
    assert "pl.tile.read(acc_out, [10, 3])" in lines[4]
    assert "pl.tile.write(acc_out, [23, 31], v)" in lines[5]


def test_slice_and_assemble_windows_fold_row_major() -> None:
    lines = kernel_lines(flatten(front("nd_slice_assemble")))
    assert lines[1] == "s: pl.Tile[[8, 32], pl.FP32, pl.Mem.Vec] = pl.tile.slice(x, [8, 32], [16, 0])"
    assert lines[3] == "r: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = pl.tile.assemble(x, e, [8, 0])"


def test_batch_matmul_becomes_one_matmul_per_batch() -> None:
    lines = kernel_lines(flatten(front("nd_batch_matmul")))
    matmuls = [line for line in lines if "pl.tile.matmul(" in line]
    assert len(matmuls) == 2
    assert not any("batch_matmul" in line for line in lines)


def test_flattened_kernels_compile_and_match_the_interpreter() -> None:
    program = front("nd_elementwise")
    after = assert_pass_preserves(passes.lowering_passes(), program, inputs(program), entry="main")
    assert TileOps2D.check(after) == []


_T3 = "pl.Tensor[[2, 16, 64], pl.FP32]"


def _bad(body: str, extra: str = "") -> ir.Program:
    lines = "\n".join(" " * 16 + line for line in textwrap.dedent(body).strip().splitlines())
    return front_of(
        f"""
        @pl.program
        class Bad:
            @pl.function(type=pl.FunctionType.InCore)
            def k(self, a: {_T3}{extra}, c: pl.Out[{_T3}]) -> {_T3}:
{lines}
                return out
        """
    )


def front_of(source: str) -> ir.Program:
    return passes.PassManager(passes.front_passes()).run(kernel(source))


def test_a_column_op_runs_on_each_batch_matrix() -> None:
    program = _bad(
        """
        x = pl.load(a, [0, 0, 0], [2, 16, 64])
        s = pl.col_max(x)
        y = pl.col_expand_sub(x, s)
        out = pl.store(y, [0, 0, 0], c)
        """
    )
    after = passes.flatten_tile_nd_to_2d()(program)
    assert TileOps2D.check(after) == []
    calls = [line.split(" = ")[-1] for line in kernel_lines(after)]
    assert calls[1:7] == [
        "pl.tile.create([2, 64], dtype=pl.FP32, target_memory=pl.Mem.Vec)",
        "pl.tile.slice(x, [16, 64], [0, 0])",
        "pl.tile.col_max(bmm_arg_0)",
        "pl.tile.assemble(bmm_init_0, col_0, [0, 0])",
        "pl.tile.slice(x, [16, 64], [16, 0])",
        "pl.tile.col_max(bmm_arg_1)",
    ]
    assert calls[7] == "pl.tile.assemble(col_out_0, col_1, [1, 0])"


def test_a_column_op_broadcasting_a_batch_axis_is_refused() -> None:
    program = _bad(
        """
        x = pl.load(a, [0, 0, 0], [2, 16, 64])
        h = pl.load(a, [0, 0, 0], [1, 1, 64])
        y = pl.col_expand_sub(x, h)
        out = pl.store(y, [0, 0, 0], c)
        """
    )
    with pytest.raises(PassError, match=r"tile\.col_expand_sub on rank > 2 tiles needs operands with the "
                                        r"result's static batch axes\n") as err:
        passes.flatten_tile_nd_to_2d()(program)
    assert err.value.hint.startswith("broadcast the operands first")


def test_a_column_op_on_a_partially_valid_tile_is_refused() -> None:
    program = _bad(
        """
        x = pl.load(a, [0, 0, 0], [2, 16, 64], valid_shape=[1, 16, 64])
        s = pl.col_max(x)
        y = pl.col_expand_sub(x, s)
        out = pl.store(y, [0, 0, 0], c)
        """
    )
    with pytest.raises(PassError, match=r"tile\.col_max of a partially valid rank > 2 tile has no per-batch "
                                        r"form\n") as err:
        passes.flatten_tile_nd_to_2d()(program)
    assert err.value.hint.startswith("fill the padding first")


def test_a_broadcast_along_a_leading_axis_is_refused() -> None:
    program = _bad(
        """
        x = pl.load(a, [0, 0, 0], [2, 16, 64])
        h = pl.load(a, [0, 0, 0], [1, 16, 64])
        y = pl.add(x, h)
        out = pl.store(y, [0, 0, 0], c)
        """
    )
    with pytest.raises(PassError, match=r"broadcasts a \[1, 16, 64\] tile to \[2, 16, 64\] along a leading axis"):
        passes.flatten_tile_nd_to_2d()(program)


def test_a_slice_that_is_not_whole_rows_is_refused() -> None:
    program = _bad(
        """
        x = pl.load(a, [0, 0, 0], [2, 16, 64])
        s = pl.slice(x, [2, 8, 64], [0, 0, 0])
        out = pl.store(s, [0, 0, 0], c)
        """
    )
    with pytest.raises(PassError, match=r"a \[2, 8, 64\] window of a \[2, 16, 64\] tile is not a block of whole merged rows"):
        passes.flatten_tile_nd_to_2d()(program)


def test_a_slice_dropping_leading_unit_axes_takes_its_merged_rows() -> None:
    program = _bad(
        """
        x = pl.load(a, [0, 0, 0], [2, 16, 64])
        s = pl.slice(x, [8, 64], [1, 4, 0])
        out = pl.store(pl.reshape(s, [1, 8, 64]), [1, 4, 0], c)
        """
    )
    lines = kernel_lines(passes.flatten_tile_nd_to_2d()(program))
    assert "s: pl.Tile[[8, 64], pl.FP32, pl.Mem.Vec] = pl.tile.slice(x, [8, 64], [20, 0])" in lines


def test_a_slice_dropping_the_last_axis_is_refused() -> None:
    program = _bad(
        """
        x = pl.load(a, [0, 0, 0], [2, 16, 64])
        s = pl.slice(x, [2, 16, 1], [0, 0, 0], drop_dims=[2])
        e = pl.store(s, [0, 0], d)
        out = pl.store(x, [0, 0, 0], c)
        """,
        ", d: pl.Out[pl.Tensor[[2, 16], pl.FP32]]",
    )
    with pytest.raises(PassError, match=r"tile.slice of a rank > 2 tile that drops its last axis has no 2-D form"):
        passes.flatten_tile_nd_to_2d()(program)


def test_a_valid_region_that_is_not_a_row_prefix_is_refused() -> None:
    program = _bad(
        """
        x = pl.load(a, [0, 0, 0], [2, 16, 64], valid_shape=[2, 8, 64])
        out = pl.store(x, [0, 0, 0], c)
        """
    )
    with pytest.raises(PassError, match=r"valid region \[2, 8, 64\] .* is not a block of whole merged rows"):
        passes.flatten_tile_nd_to_2d()(program)


@pl.program
class TensorRank3:
    @pl.function
    def main(
        self, x: pl.Tensor[[2, 16, 64], pl.FP32], out: pl.Out[pl.Tensor[[2, 16, 64], pl.FP32]]
    ) -> pl.Tensor[[2, 16, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            out[:] = pl.mul(pl.exp(x), 2.0)
        return out


def test_a_rank_3_tensor_program_is_converted_flattened_and_compiled() -> None:
    program = passes.PassManager(passes.front_passes()).run(TensorRank3)
    after = assert_pass_preserves(passes.lowering_passes(), program, inputs(program), entry="main")
    (kernel_func,) = [f for f in after.functions.values() if f.func_type == ir.FunctionType.AIV]
    text = kernel_func.as_python()
    assert "pl.Tile[[32, 64], pl.FP32" in text and "[2, 16, 64])" in text
    assert TileOps2D.check(after) == []


# Tensor-level programs with rank > 2 tensors: their kernels load N-D windows into 2-D tiles.
_RANK_N = {
    "rank3_chain": """
        @pl.program
        class Rank3Chain:
            @pl.function
            def main(self, x: pl.Tensor[[2, 16, 64], pl.FP32], y: pl.Tensor[[2, 16, 64], pl.FP32],
                     out: pl.Out[pl.Tensor[[2, 16, 64], pl.FP32]]) -> pl.Tensor[[2, 16, 64], pl.FP32]:
                with pl.at(level=pl.Level.CORE_GROUP):
                    out[:] = pl.add(pl.mul(pl.exp(x), 2.0), y)
                return out
        """,
    "rank4_row_softmax": """
        @pl.program
        class Rank4RowSoftmax:
            @pl.function
            def main(self, x: pl.Tensor[[2, 2, 8, 32], pl.FP32],
                     out: pl.Out[pl.Tensor[[2, 2, 8, 32], pl.FP32]]) -> pl.Tensor[[2, 2, 8, 32], pl.FP32]:
                with pl.at(level=pl.Level.CORE_GROUP):
                    e = pl.exp(pl.row_expand_sub(x, pl.row_max(x)))
                    out[:] = pl.row_expand_div(e, pl.row_sum(e))
                return out
        """,
    "rank3_transpose": """
        @pl.program
        class Rank3Transpose:
            @pl.function
            def main(self, x: pl.Tensor[[2, 16, 32], pl.FP32],
                     out: pl.Out[pl.Tensor[[2, 32, 16], pl.FP32]]) -> pl.Tensor[[2, 32, 16], pl.FP32]:
                with pl.at(level=pl.Level.CORE_GROUP):
                    out[:] = pl.transpose(pl.exp(x), 1, 2)
                return out
        """,
    "rank3_column_ops": """
        @pl.program
        class Rank3ColumnOps:
            @pl.function
            def main(self, x: pl.Tensor[[2, 16, 32], pl.FP32], y: pl.Tensor[[2, 1, 32], pl.FP32],
                     out: pl.Out[pl.Tensor[[2, 16, 32], pl.FP32]]) -> pl.Tensor[[2, 16, 32], pl.FP32]:
                with pl.at(level=pl.Level.CORE_GROUP):
                    out[:] = pl.add(pl.sub(x, pl.col_max(x)), y)
                return out
        """,
    "rank3_batch_matmul": """
        @pl.program
        class Rank3BatchMatmul:
            @pl.function
            def main(self, a: pl.Tensor[[2, 32, 64], pl.FP16], b: pl.Tensor[[2, 64, 32], pl.FP16],
                     out: pl.Out[pl.Tensor[[2, 32, 32], pl.FP32]]) -> pl.Tensor[[2, 32, 32], pl.FP32]:
                with pl.at(level=pl.Level.CORE_GROUP):
                    out[:] = pl.matmul(a, b, out_dtype=pl.FP32)
                return out
        """,
}


@pytest.mark.parametrize("name", sorted(_RANK_N))
def test_every_stage_of_a_rank_n_program_prints_and_parses_back(name: str) -> None:
    """The whole pipeline with round-trip verification after each pass, and the interpreter agrees."""
    program = pl.parse(textwrap.dedent(_RANK_N[name]))
    manager = passes.PassManager.get_strategy(verify="roundtrip")
    after = assert_pass_preserves(manager, program, inputs(program), entry="main")
    assert "flatten=True" in after.as_python()


def test_a_flattened_load_deduces_the_2d_tile_of_its_window() -> None:
    program = outlined(pl.parse(textwrap.dedent(_RANK_N["rank4_row_softmax"])))
    program = passes.convert_tensor_to_tile_ops()(program)
    lines = kernel_lines(flatten(program))
    assert lines[0] == (
        "x_tile: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = "
        "pl.tile.load(x, [0, 0, 0, 0], [2, 2, 8, 32], [2, 2, 8, 32], target_memory=pl.Mem.Vec, flatten=True)"
    )


def test_flatten_true_on_a_window_of_rank_2_is_an_op_error() -> None:
    t = ir.TensorType([16, 64], ir.DataType.FP32)
    x = ir.Var("x", t, ir.Span.unknown())
    dims = ir.MakeTuple([ir.ConstInt(16, ir.DataType.INDEX), ir.ConstInt(64, ir.DataType.INDEX)])
    zero = ir.MakeTuple([ir.ConstInt(0, ir.DataType.INDEX)] * 2)
    with pytest.raises(ValueError, match=r"flatten=True needs a window of rank > 2, got \[16, 64\]"):
        ir.create_op_call("tile.load", [x, zero, dims, dims], {"flatten": True}, ir.Span.unknown())


def test_a_batch_matmul_result_that_is_only_stored_becomes_per_batch_stores() -> None:
    lines = kernel_lines(flatten(front("nd_batch_matmul")))
    assert lines[-3:-1] == [
        "bmm_store_0: pl.Tensor[[2, 16, 16], pl.FP32] = pl.tile.store(bmm_0, [0, 0, 0], c, [1, 16, 16])",
        "out: pl.Tensor[[2, 16, 16], pl.FP32] = pl.tile.store(bmm_1, [1, 0, 0], bmm_store_0, [1, 16, 16])",
    ]
    assert not any("assemble" in line for line in lines)


def test_a_batch_matmul_result_read_by_another_op_is_assembled() -> None:
    program = front_of(
        """
        @pl.program
        class BmmThenAdd:
            @pl.function(type=pl.FunctionType.InCore)
            def k(self, a: pl.Tensor[[2, 16, 32], pl.FP16], b: pl.Tensor[[2, 32, 16], pl.FP16],
                  c: pl.Out[pl.Tensor[[2, 16, 16], pl.FP32]]) -> pl.Tensor[[2, 16, 16], pl.FP32]:
                x = pl.load(a, [0, 0, 0], [2, 16, 32], target_memory=pl.Mem.Mat)
                y = pl.load(b, [0, 0, 0], [2, 32, 16], target_memory=pl.Mem.Mat)
                xl = pl.move(x, target_memory=pl.Mem.Left)
                yr = pl.move(y, target_memory=pl.Mem.Right)
                z = pl.batch_matmul(xl, yr)
                zv = pl.move(z, target_memory=pl.Mem.Vec)
                out = pl.store(zv, [0, 0, 0], c)
                return out

            @pl.function(type=pl.FunctionType.Orchestration)
            def main(self, a: pl.Tensor[[2, 16, 32], pl.FP16], b: pl.Tensor[[2, 32, 16], pl.FP16],
                     c: pl.Out[pl.Tensor[[2, 16, 16], pl.FP32]]) -> pl.Tensor[[2, 16, 16], pl.FP32]:
                c = self.k(a, b, c)
                return c
        """
    )
    lines = kernel_lines(flatten(program))
    assert sum("pl.tile.assemble(" in line for line in lines) == 2
    assert "pl.tile.store(zv, [0, 0, 0], c, [2, 16, 16])" in lines[-2]


def test_a_transpose_of_the_last_two_axes_transposes_each_batch_into_its_rows() -> None:
    program = outlined(pl.parse(textwrap.dedent(_RANK_N["rank3_transpose"])))
    lines = kernel_lines(flatten(passes.convert_tensor_to_tile_ops()(program)))
    assert [line.split(" = ")[1] for line in lines[2:11]] == [
        "pl.tile.create([64, 16], dtype=pl.FP32, target_memory=pl.Mem.Vec)",
        "pl.tile.slice(t__tmp_v0_tile, [16, 32], [0, 0])",
        "pl.tile.create([32, 16], dtype=pl.FP32, target_memory=pl.Mem.Vec)",
        "pl.tile.transpose(tr_arg_0, 0, 1, tr_tmp_0)",
        "pl.tile.assemble(bmm_init_0, tr_0, [0, 0])",
        "pl.tile.slice(t__tmp_v0_tile, [16, 32], [16, 0])",
        "pl.tile.create([32, 16], dtype=pl.FP32, target_memory=pl.Mem.Vec)",
        "pl.tile.transpose(tr_arg_1, 0, 1, tr_tmp_1)",
        "pl.tile.assemble(tr_out_0, tr_1, [32, 0])",
    ]


def test_a_transpose_of_a_leading_axis_is_refused() -> None:
    program = _bad(
        """
        x = pl.load(a, [0, 0, 0], [2, 16, 64])
        t = pl.tile.transpose(x, 0, 1)
        out = pl.store(x, [0, 0, 0], c)
        """
    )
    with pytest.raises(PassError, match=r"tile\.transpose of a leading axis of a rank-3 tile mixes the merged "
                                        r"rows\n") as err:
        passes.flatten_tile_nd_to_2d()(program)
    assert err.value.hint.startswith("transpose the last two axes")


_BMM_2D = """
@pl.program
class Bmm2D:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, a: pl.Tensor[[16, 32], pl.FP16], b: pl.Tensor[[32, 16], pl.FP16],
          c: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        x = pl.load(a, [0, 0], [16, 32], target_memory=pl.Mem.Mat)
        y = pl.load(b, [0, 0], [32, 16], target_memory=pl.Mem.Mat)
        z = pl.batch_matmul(x, y)
        z2 = pl.tile.batch_matmul_acc(z, x, y)
        out = pl.store(z2, [0, 0], c)
        return out
"""


def test_a_batch_matmul_of_2d_operands_is_the_2d_matmul() -> None:
    program = front_of(_BMM_2D)
    assert [v.code for v in TileOps2D.check(program)] == ["BATCH_MATMUL", "BATCH_MATMUL"]
    lines = kernel_lines(flatten(program))
    assert lines[2:5] == [
        "z: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(x, y)",
        "z2: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(z, x, y)",
        "out: pl.Tensor[[16, 16], pl.FP32] = pl.tile.store(z2, [0, 0], c)",
    ]
