"""Issue 13: tile.cast needs mode=, a float literal takes a float operand's dtype (spec/ops.md §2) and an
FP32 scalar promotes an FP16 tensor, ``_spmd`` names, pl.no_dep as arg_direction_overrides."""

from __future__ import annotations

import numpy as np
import pytest
from pypto.interp import run
from pypto.interp.testing import assert_pass_preserves
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
    assert err.value.location.begin_line == 7
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
    for p in [*passes.front_passes(), *passes.lowering_passes()[:3]]:
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


SCALE_FP16 = """
@pl.program
class Scale:
    @pl.function
    def main(self, x: pl.Tensor[[16, 64], pl.FP16], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            y = pl.mul(x, pl.const(0.088, pl.FP32))
            z = pl.add(y, 1)
            out[:] = z
        return out
"""


def test_a_float_literal_takes_the_fp16_dtype_and_an_fp32_scalar_promotes() -> None:
    """spec/ops.md §2: a literal is re-typed to a float operand's dtype (the reference API's FP32
    literal, which promoted ``muls(fp16_tensor, 0.088)``, disagrees with the spec; the spec wins)."""
    x = ir.Var("x", ir.TensorType([16, 64], ir.FP16))
    scaled = pl.mul(x, 0.5).unwrap()
    assert scaled.op.name == "tensor.muls" and str(scaled.type) == "pl.Tensor[[16, 64], pl.FP16]"
    assert scaled.args[1].dtype == ir.FP16
    n = ir.Var("n", ir.TensorType([16, 64], ir.INT32))
    assert str(pl.mul(n, 0.5).type) == "pl.Tensor[[16, 64], pl.FP32]"  # a float with an integer operand is FP32
    promoted = pl.mul(x, pl.const(0.088, pl.FP32)).unwrap()
    assert str(promoted.type) == "pl.Tensor[[16, 64], pl.FP32]"
    program = pl.program_from_string(SCALE_FP16)
    assert "pl.tensor.muls(x, 0.087999999999999995)" in program.as_python()  # FP32 prints bare


def test_the_promoted_fp16_product_computes_in_fp32_through_the_lowering() -> None:
    program = pl.program_from_string(SCALE_FP16)
    x = np.random.default_rng(3).standard_normal([16, 64]).astype(np.float16)
    result = run(program, x, np.zeros([16, 64], np.float32)).value
    np.testing.assert_allclose(result, x.astype(np.float32) * np.float32(0.088) + 1, rtol=1e-6)
    front = program
    for p in [*passes.front_passes(), *passes.lowering_passes()[:3]]:
        front = p(front)
    # The tile muls keeps its tile's dtype: the FP16 tile is cast up before it.
    lowered = assert_pass_preserves(passes.convert_tensor_to_tile_ops(), front, [x, np.zeros([16, 64], np.float32)])
    text = lowered.as_python()
    assert "pl.tile.cast(x_tile, target_type=pl.FP32, mode='round')" in text
    assert "pl.tile.muls(cast_tile, 0.087999999999999995)" in text
