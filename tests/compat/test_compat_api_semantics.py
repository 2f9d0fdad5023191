"""Issue 13: tile.cast needs mode=, ``_spmd`` names, pl.no_dep as arg_direction_overrides."""

from __future__ import annotations

import pytest
from pypto.language.parser.diagnostics import ParserTypeError

import pypto.language as pl
from pypto import ir, passes

CAST_WITHOUT_MODE = """
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP16]]) -> pl.Tensor[[16, 16], pl.FP16]:
        t: pl.Tile[[16, 16], pl.FP32] = pl.load(x, [0, 0], [16, 16])
        c: pl.Tile[[16, 16], pl.FP16] = pl.tile.cast(t, target_type=pl.FP16)
        out = pl.store(c, [0, 0], out)
        return out
"""


def test_tile_cast_without_mode_is_a_clear_error() -> None:
    t = ir.op.tile.create([16, 16], dtype=ir.FP32, target_memory=ir.MemorySpace.Vec)
    with pytest.raises(ValueError, match=r"^Operator 'tile.cast': missing required kwarg 'mode'$"):
        ir.create_op_call("tile.cast", [t], {"target_type": ir.FP16}, ir.Span.unknown())
    with pytest.raises(TypeError, match=r"Operator 'tile.cast': missing a required argument: 'mode'"):
        ir.op.tile.cast(t, ir.FP16)
    with pytest.raises(ParserTypeError, match="missing a required argument: 'mode'") as err:
        pl.program_from_string(CAST_WITHOUT_MODE)
    assert err.value.span.begin_line == 7
    cast = ir.op.tile.cast(t, ir.FP16, mode="floor")
    assert "pl.tile.cast(" in str(cast) and "mode='floor'" in str(cast)


def test_tensor_cast_and_pl_cast_keep_the_round_default() -> None:
    x = ir.Var("x", ir.TensorType([16, 16], ir.FP32))
    assert ir.op.tensor.cast(x, ir.FP16).kwargs["mode"] == 2
    tile = ir.Var("t", ir.TileType([16, 16], ir.FP32, memory_space=ir.MemorySpace.Vec))
    call = pl.cast(tile, pl.FP16).unwrap()
    assert call.op.name == "tile.cast" and call.kwargs["mode"] == 2


SPMD = """
@pl.program
class S:
    @pl.function(type=pl.FunctionType.InCore)
    def scale(self, x: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        t: pl.Tile[[64, 64], pl.FP32] = pl.load(x, [0, 0], [64, 64])
        out = pl.store(t, [0, 0], out)
        return out

    @pl.function
    def main(self, x: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        with pl.spmd(4):
            out = self.scale(x, out)
        with pl.spmd(2):
            i = pl.tile.get_block_idx()
        return out
"""


def test_a_synthesized_spmd_function_name_ends_in_spmd() -> None:
    program = pl.program_from_string(SPMD)
    for p in [*passes.pipeline.front_passes(), *passes.pipeline.lowering_passes()[:3]]:
        program = p(program)
    spmd = sorted(f.name for f in program.functions.values() if f.func_type is ir.FunctionType.Spmd)
    assert spmd == ["main_incore_0_spmd", "scale_spmd"]


NO_DEP = """
@pl.program
class N:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64], pl.FP32], n: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        out = self.k(pl.no_dep(a), 1, out)
        return out
"""


def test_no_dep_is_recorded_as_arg_direction_overrides() -> None:
    program = pl.program_from_string(NO_DEP)
    text = program.as_python()
    assert 'self.k(a, 1, out, attrs={"arg_direction_overrides": [0]})' in text
    assert "arg_directions" not in text
    assert ir.structural_equal(pl.program_from_string(text), program)
