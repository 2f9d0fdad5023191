"""ConvertTensorToTileOps lowers ``tensor.ci`` (arange), ``tensor.fillpad``, ``tensor.fillpad_expand``
and ``tensor.expand_clone`` to tile ops, a clamped slice to a clamped load and ``tensor.dim`` of a
static axis to its extent; a tensor op no
kernel may hold and without a lowering is a PassError at the conversion, never a codegen miss; the
pipeline keeps what the programs compute."""

from __future__ import annotations

import textwrap

import pytest
from tile_programs import inputs

import pypto.language as pl
from pypto import ir, passes
from pypto.interp.testing import assert_pass_preserves
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


_F4x8x16 = "pl.Tensor[[4, 8, 16], pl.FP32]"
_F1x32, _F30x24, _F32x32 = (f"pl.Tensor[[{r}, {c}], pl.FP32]" for r, c in ((1, 32), (30, 24), (32, 32)))

PROGRAMS = {
    "arange": lambda: program(
        "out[:] = pl.add(pl.cast(pl.arange(3, [1, 32], dtype=pl.INT32), pl.FP32), x)",
        f"x: {_F1x32}, out: pl.Out[{_F1x32}]", _F1x32),
    "fillpad": lambda: program(
        "out[:] = pl.tensor.fillpad(x, pad_value=pl.PadValue.max)", f"x: {_F32x32}, out: pl.Out[{_F32x32}]", _F32x32),
    "fillpad_expand": lambda: program(
        "out[:] = pl.tensor.fillpad_expand(x, [32, 32], pad_value=pl.PadValue.min)",
        f"x: {_F30x24}, out: pl.Out[{_F32x32}]", _F32x32),
    "clamped_slice": lambda: program(
        "out[:] = pl.add(pl.slice(x, [32, 32], [8, 16], clamp=True), 1.0)",
        f"x: pl.Tensor[[30, 40], pl.FP32], out: pl.Out[{_F32x32}]", _F32x32),
    "dim": lambda: program(
        "n = pl.tensor.dim(x, -1)\nout[:] = pl.mul(x, pl.cast(n, pl.FP32))", f"x: {_F32x32}, out: pl.Out[{_F32x32}]",
        _F32x32),
    **{f"expand_clone_{name}": (lambda shape=shape: program(
        "out[:] = pl.tensor.expand_clone(x, t)",
        f"x: pl.Tensor[{shape}, pl.FP32], t: {_F4x8x16}, out: pl.Out[{_F4x8x16}]", _F4x8x16))
       for name, shape in (("first", [1, 8, 16]), ("middle", [4, 1, 16]), ("last", [4, 8, 1]), ("none", [4, 8, 16]))},
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


def test_arange_becomes_tile_ci_of_the_same_shape() -> None:
    lines = kernel_lines(converted(PROGRAMS["arange"]()))
    assert lines[1] == (
        "t__tmp_v0_tile: pl.Tile[[1, 32], pl.INT32, pl.Mem.Vec] = "
        "pl.tile.ci(pl.const(3, pl.INT32), [1, 32], dtype=pl.INT32, descending=False)"
    )


def test_fillpad_expand_becomes_the_tile_op_with_its_pad_value() -> None:
    lines = kernel_lines(converted(PROGRAMS["fillpad_expand"]()))
    assert lines[1] == (
        "t__tmp_v0_tile: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec, pl.TileView(pad=pl.PadValue.min)] = "
        "pl.tile.fillpad_expand(x_tile, [32, 32], pad_value=pl.PadValue.min)"
    )


def test_a_clamped_slice_is_a_clamped_load_valid_up_to_the_source_edge() -> None:
    lines = kernel_lines(converted(PROGRAMS["clamped_slice"]()))
    assert lines[0] == (
        "t__tmp_v0_tile: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[22, 24])] = "
        "pl.tile.load(x, [8, 16], [32, 32], [32, 32], target_memory=pl.Mem.Vec, clamp=True)"
    )


def test_expand_clone_of_a_middle_unit_dim_col_expands_each_batch_row_into_place() -> None:
    lines = kernel_lines(converted(PROGRAMS["expand_clone_middle"]()))
    ops = [line.split(" = pl.", 1)[1].split("(", 1)[0] for line in lines if " = pl." in line]
    assert ops == ["tile.load", "tile.reshape", "tile.create"] + ["tile.slice", "tile.create", "tile.col_expand",
                                                                  "tile.assemble"] * 4 + ["tile.reshape", "tile.store"]


def test_expand_clone_of_the_last_unit_dim_is_a_row_expand() -> None:
    lines = kernel_lines(converted(PROGRAMS["expand_clone_last"]()))
    assert "pl.tile.row_expand(expand_tile_1, expand_tile)" in lines[3]
    assert lines[4].startswith("t__tmp_v0_tile: pl.Tile[[4, 8, 16], pl.FP32, pl.Mem.Vec] = pl.tile.reshape(")


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_the_pipeline_keeps_what_the_program_computes(name: str) -> None:
    p = PROGRAMS[name]()
    assert_pass_preserves(passes.PassManager.get_strategy(verify="roundtrip"), p, inputs(p), entry="main")


def test_a_tensor_op_no_kernel_holds_is_refused_at_the_conversion() -> None:
    kv = "pl.Tensor[[64, 32], pl.FP16]"
    p = program(
        """
        t = pl.tensor.paged_gather(kv, ix, bt, 16, 64, 16, space=pl.Mem.Vec)
        out[:] = t
        """,
        f"kv: {kv}, ix: pl.Tensor[[16], pl.INT32], bt: pl.Tensor[[4], pl.INT32], "
        "out: pl.Out[pl.Tensor[[16, 32], pl.FP16]]",
        "pl.Tensor[[16, 32], pl.FP16]")
    with pytest.raises(PassError) as err:
        converted(p)
    assert err.value.message == (
        "ConvertTensorToTileOps: tensor.paged_gather has no tile lowering, so it cannot run in kernel 'main_incore_0'")
    assert err.value.hint == (
        "no target has a rule for it: gather the rows with pl.slice of each block and pl.assemble them")
    assert err.value.span.is_valid() and err.value.span.begin_line == 6


def test_tensor_dim_of_a_static_axis_in_a_kernel_is_the_extent() -> None:
    lines = kernel_lines(converted(PROGRAMS["dim"]()))
    assert lines[1] == "n: pl.Scalar[pl.INDEX] = 32"


_DYN_ROWS = """
import pypto.language as pl

N = pl.dynamic("N")


@pl.program
class DimRows:
    @pl.function
    def main(self, x: pl.Tensor[[N, 32], pl.FP32],
             out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            n = pl.tensor.dim(x, 0)
            out = pl.assemble(out, pl.mul(pl.slice(x, [16, 32], [0, 0]), pl.cast(n, pl.FP32)), [0, 0])
        return out
"""


def test_tensor_dim_of_a_dynamic_axis_in_a_kernel_is_refused_with_the_form_that_works() -> None:
    with pytest.raises(PassError) as err:
        converted(pl.parse(_DYN_ROWS))
    assert err.value.message == (
        "ConvertTensorToTileOps: tensor.dim(x, 0) in a kernel: the kernel knows the extent of static axes only, and "
        "this is axis 0, whose extent N is dynamic")
    assert err.value.hint == (
        "compute 'n = pl.tensor.dim(...)' before the pl.at block and use n inside it: it reaches the kernel as a "
        "scalar parameter")
    assert err.value.span.begin_line == 13


def test_tensor_alloc_in_a_kernel_is_refused_naming_the_targets() -> None:
    p = program("a = pl.tensor.alloc(pl.Mem.Vec, 1024)\nout[:] = x", f"x: {_F32x32}, out: pl.Out[{_F32x32}]", _F32x32)
    with pytest.raises(PassError) as err:
        converted(p)
    assert err.value.message == (
        "ConvertTensorToTileOps: tensor.alloc has no tile lowering, so it cannot run in kernel 'main_incore_0'")
    assert err.value.hint == (
        "no kernel target (pto, cce) prints a raw allocation; a kernel makes its buffers with "
        "pl.tile.create(shape, dtype=...)")
    assert err.value.span.begin_line == 6


def test_the_block_index_in_a_kernel_is_the_tile_op() -> None:
    p = program("i = pl.tensor.get_block_idx()\nout[:] = pl.mul(x, pl.cast(i, pl.FP32))",
                f"x: {_F32x32}, out: pl.Out[{_F32x32}]", _F32x32)
    assert kernel_lines(converted(p))[1] == "i: pl.Scalar[pl.INDEX] = pl.tile.get_block_idx()"
