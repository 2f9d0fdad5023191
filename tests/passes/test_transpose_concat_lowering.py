"""ConvertTensorToTileOps lowers ``tensor.transpose`` to ``tile.transpose`` (with TTRANS's scratch
tile) and ``tensor.concat`` to ``tile.concat``; the pipeline keeps what the programs compute, and
what has no tile form is a PassError with the span and a hint at the conversion."""

from __future__ import annotations

import textwrap

import pytest
from tile_programs import inputs

import pypto.language as pl
from pypto import ir, passes
from pypto.interp.testing import assert_pass_preserves
from pypto.ir.errors import PyptoError
from pypto.passes import PassError


def program(body: str, params: str, ret: str) -> ir.Program:
    lines = textwrap.indent(textwrap.dedent(body).strip("\n"), " " * 12)
    return pl.parse(
        "@pl.program\n"
        "class P:\n"
        "    @pl.function\n"
        f"    def main(self, {params}) -> {ret}:\n"
        "        with pl.at(level=pl.Level.CORE_GROUP):\n"
        f"{lines}\n"
        "        return out\n"
    )


_T32x64, _T64x32, _T64x16 = (f"pl.Tensor[[{r}, {c}], pl.FP32]" for r, c in ((32, 64), (64, 32), (64, 16)))
_T64x48 = "pl.Tensor[[64, 48], pl.FP32]"

PROGRAMS = {
    "transpose": lambda: program(
        "out[:] = pl.transpose(x, 0, 1)", f"x: {_T32x64}, out: pl.Out[{_T64x32}]", _T64x32),
    "transpose_negative_axes": lambda: program(
        "out[:] = pl.add(pl.transpose(x, -1, -2), 1.0)", f"x: {_T32x64}, out: pl.Out[{_T64x32}]", _T64x32),
    "concat": lambda: program(
        "out[:] = pl.concat(x, y)", f"x: {_T64x32}, y: {_T64x16}, out: pl.Out[{_T64x48}]", _T64x48),
    "transpose_then_concat": lambda: program(
        """
        t = pl.transpose(x, 0, 1)
        out[:] = pl.concat(pl.exp(t), y)
        """,
        f"x: {_T32x64}, y: {_T64x16}, out: pl.Out[{_T64x48}]", _T64x48),
}


def converted(p: ir.Program) -> ir.Program:
    """``p`` after the passes up to and including ConvertTensorToTileOps."""
    p = passes.PassManager(passes.front_passes()).run(p)
    for step in passes.lowering_passes():
        p = step(p)
        if step.name == "ConvertTensorToTileOps":
            return p
    raise AssertionError("ConvertTensorToTileOps is not in the lowering passes")


def kernel_lines(p: ir.Program) -> list[str]:
    return [line.strip() for line in p.get_function("main_incore_0").as_python().splitlines()[2:]]


def test_a_transpose_becomes_tile_transpose_with_a_scratch_tile() -> None:
    lines = kernel_lines(converted(PROGRAMS["transpose"]()))
    assert lines[:3] == [
        "x_tile: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = "
        "pl.tile.load(x, [0, 0], [32, 64], [32, 64], target_memory=pl.Mem.Vec)",
        "tmp_tile: pl.Tile[[64, 32], pl.FP32, pl.Mem.Vec] = "
        "pl.tile.create([64, 32], dtype=pl.FP32, target_memory=pl.Mem.Vec)",
        "t__tmp_v0_tile: pl.Tile[[64, 32], pl.FP32, pl.Mem.Vec] = pl.tile.transpose(x_tile, 0, 1, tmp_tile)",
    ]


def test_a_concat_becomes_tile_concat() -> None:
    lines = kernel_lines(converted(PROGRAMS["concat"]()))
    assert "pl.tile.concat(x_tile, y_tile)" in lines[2]
    assert lines[2].startswith("t__tmp_v0_tile: pl.Tile[[64, 48], pl.FP32, pl.Mem.Vec] = ")


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_the_pipeline_keeps_what_the_program_computes(name: str) -> None:
    p = PROGRAMS[name]()
    assert_pass_preserves(passes.PassManager.get_strategy(verify="roundtrip"), p, inputs(p), entry="main")


def test_a_concat_result_gets_its_own_buffer() -> None:
    """TCONCAT writes rows wider than its inputs': in place it would overwrite input rows it has yet to read."""
    final = passes.PassManager.get_strategy().run(PROGRAMS["transpose_then_concat"]())
    kernel = next(f for f in final.functions.values() if f.name == "main_incore_0")
    (cat,) = [s for s in ir.flatten_to_stmts(kernel.body)
              if isinstance(s, ir.AssignStmt) and isinstance(s.value, ir.Call) and s.value.op.name == "tile.concat"]
    inputs_at = {a.type.memref.base.name_hint for a in cat.value.args}
    assert cat.var.type.memref.base.name_hint not in inputs_at


def _refused(p: ir.Program, *fragments: str, line: int) -> None:
    with pytest.raises(PassError) as err:
        converted(p)
    text = str(err.value)
    assert "ConvertTensorToTileOps" in text
    for fragment in fragments:
        assert fragment in text
    assert err.value.span.is_valid() and err.value.span.begin_line == line


_T3 = "pl.Tensor[[2, 16, 32], pl.FP32]"


def test_a_transpose_of_a_leading_axis_of_a_rank_3_tensor_is_refused_with_a_hint() -> None:
    _refused(
        program("out[:] = pl.transpose(x, 0, 1)", f"x: {_T3}, out: pl.Out[pl.Tensor[[16, 2, 32], pl.FP32]]",
                "pl.Tensor[[16, 2, 32], pl.FP32]"),
        "tensor.transpose of axes 0, 1 of a rank-3 tensor has no tile lowering: tile transposes swap the last two "
        "axes", "hint: reshape the tensor first",
        line=6,
    )


def test_a_transpose_with_a_valid_shape_is_refused_with_a_hint() -> None:
    _refused(
        program("out[:] = pl.transpose(x, 0, 1, valid_shape=[60, 30])", f"x: {_T32x64}, out: pl.Out[{_T64x32}]",
                _T64x32),
        "tensor.transpose with a valid_shape has no tile lowering yet", "hint: transpose the whole tensor",
        line=6,
    )


def test_a_concat_of_rank_3_tensors_is_refused_where_it_is_written() -> None:
    with pytest.raises(PyptoError, match="Operator 'tensor.concat': requires 2-D operands") as err:
        program("out[:] = pl.concat(x, x)", f"x: {_T3}, out: pl.Out[pl.Tensor[[2, 16, 64], pl.FP32]]",
                "pl.Tensor[[2, 16, 64], pl.FP32]")
    assert err.value.location.begin_line == 6
