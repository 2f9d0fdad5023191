"""``tensor.matmul_acc`` through ConvertTensorToTileOps: ``tile.matmul_acc`` on the accumulator tile
and Mat-resident operands (transposed ones through ``tile.transpose_view``), carried through
loops; an accumulator in GM is refused with a hint. Interpreter preservation over the lowering."""

from __future__ import annotations

import pytest
from test_transposed_matmul import inputs, kernel_lines, outlined

from pypto import passes
from pypto.interp.testing import assert_pass_preserves
from pypto.languages.outlined import outlined as outlined_dialect
from pypto.passes import PassError

_A = "pl.Tensor[[64, 256], pl.FP16]"
_B = "pl.Tensor[[256, 32], pl.FP16]"
_C = "pl.Tensor[[64, 32], pl.FP32]"

PROGRAMS = {
    "k_loop": f"""
        @pl.program
        class KLoop:
            @pl.function
            def main(self, a: {_A}, b: {_B}, out: pl.Out[{_C}]) -> {_C}:
                with pl.at(level=pl.Level.CORE_GROUP):
                    acc = pl.matmul(a[:, 0:64], b[0:64, :], out_dtype=pl.FP32)
                    for k in pl.range(1, 4):
                        acc = pl.matmul_acc(acc, a[:, k * 64 : k * 64 + 64], b[k * 64 : k * 64 + 64, :])
                    out[:] = acc
                return out
    """,
    "straight_line": f"""
        @pl.program
        class StraightLine:
            @pl.function
            def main(self, a: {_A}, b: {_B}, out: pl.Out[{_C}]) -> {_C}:
                with pl.at(level=pl.Level.CORE_GROUP):
                    acc = pl.matmul(a[:, 0:128], b[0:128, :], out_dtype=pl.FP32)
                    acc = pl.matmul_acc(acc, a[:, 128:256], b[128:256, :])
                    out[:] = acc
                return out
    """,
    # An if choosing the first product or the sum, in one K loop over one carried accumulator.
    "if_else": f"""
        @pl.program
        class IfElse:
            @pl.function
            def main(self, a: {_A}, b: {_B}, out: pl.Out[{_C}]) -> {_C}:
                with pl.at(level=pl.Level.CORE_GROUP):
                    acc = pl.create_tensor([64, 32], dtype=pl.FP32)
                    for k in pl.range(4):
                        if k == 0:
                            acc = pl.matmul(a[:, k * 64 : k * 64 + 64], b[k * 64 : k * 64 + 64, :], out_dtype=pl.FP32)
                        else:
                            acc = pl.matmul_acc(acc, a[:, k * 64 : k * 64 + 64], b[k * 64 : k * 64 + 64, :])
                    out[:] = acc
                return out
    """,
    # The same with the branches the other way round.
    "else_if": f"""
        @pl.program
        class ElseIf:
            @pl.function
            def main(self, a: {_A}, b: {_B}, out: pl.Out[{_C}]) -> {_C}:
                with pl.at(level=pl.Level.CORE_GROUP):
                    acc = pl.create_tensor([64, 32], dtype=pl.FP32)
                    for k in pl.range(4):
                        if k > 0:
                            acc = pl.matmul_acc(acc, a[:, k * 64 : k * 64 + 64], b[k * 64 : k * 64 + 64, :])
                        else:
                            acc = pl.matmul(a[:, 0:64], b[0:64, :], out_dtype=pl.FP32)
                    out[:] = acc
                return out
    """,
    "b_trans": f"""
        @pl.program
        class BTrans:
            @pl.function
            def main(self, a: {_A}, b: pl.Tensor[[32, 256], pl.FP16], out: pl.Out[{_C}]) -> {_C}:
                with pl.at(level=pl.Level.CORE_GROUP):
                    acc = pl.matmul(a[:, 0:128], b[:, 0:128], out_dtype=pl.FP32, b_trans=True)
                    acc = pl.matmul_acc(acc, a[:, 128:256], b[:, 128:256], b_trans=True)
                    out[:] = acc
                return out
    """,
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_conversion_preserves_what_the_program_computes(name: str) -> None:
    program = outlined(PROGRAMS[name])
    assert_pass_preserves(passes.convert_tensor_to_tile_ops(), program, inputs(program))


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_the_whole_lowering_keeps_the_meaning(name: str) -> None:
    rest = passes.PassManager(passes.lowering_passes()[4:], start=outlined_dialect)
    program = outlined(PROGRAMS[name])
    assert_pass_preserves(rest, program, inputs(program))


def test_the_sum_is_a_tile_matmul_acc_carried_through_the_loop() -> None:
    lines = kernel_lines(passes.convert_tensor_to_tile_ops()(outlined(PROGRAMS["k_loop"])))
    (acc,) = [line for line in lines if "matmul_acc" in line]
    assert acc.startswith("acc__ssa_v2_tile: pl.Tile[[64, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(acc__iter_v1, ")
    loads = [line for line in lines if "pl.tile.load(" in line]
    assert all("target_memory=pl.Mem.Mat" in line for line in loads) and len(loads) == 4


def test_an_accumulator_in_gm_is_refused_with_a_hint() -> None:
    program = outlined(f"""
        @pl.program
        class GmAcc:
            @pl.function
            def main(self, c: {_C}, a: {_A}, b: {_B}, out: pl.Out[{_C}]) -> {_C}:
                with pl.at(level=pl.Level.CORE_GROUP):
                    out[:] = pl.matmul_acc(c, a, b)
                return out
    """)
    with pytest.raises(PassError) as err:
        passes.convert_tensor_to_tile_ops()(program)
    message = str(err.value)
    assert "tensor.matmul_acc accumulating into a GM tensor has no tile lowering" in message
    assert "hint: start the sum with pl.matmul in the same pl.at block" in message
    assert err.value.span.is_valid()


@pytest.mark.parametrize("name", ["if_else", "else_if"])
def test_an_if_choosing_matmul_or_matmul_acc_writes_the_carried_accumulator(name: str) -> None:
    lines = kernel_lines(passes.convert_tensor_to_tile_ops()(outlined(PROGRAMS[name])))
    creates = [line for line in lines if "pl.tile.create(" in line]
    assert creates == [
        "acc__ssa_v0_tile: pl.Tile[[64, 32], pl.FP32, pl.Mem.Acc] = "
        "pl.tile.create([64, 32], dtype=pl.FP32, target_memory=pl.Mem.Acc)"
    ]
    products = {line.split(" = ", 1)[1] for line in lines if "matmul" in line}
    first, rest = ("v0", "v1"), ("v2", "v3")
    if name == "else_if":
        first, rest = rest, first
    assert products == {
        f"pl.tile.matmul_acc(acc__iter_v1, t__tmp_{first[0]}_tile, t__tmp_{first[1]}_tile, True)",
        f"pl.tile.matmul_acc(acc__iter_v1, t__tmp_{rest[0]}_tile, t__tmp_{rest[1]}_tile)",
    }


def test_a_carry_read_twice_keeps_the_plain_matmul() -> None:
    program = outlined(f"""
        @pl.program
        class Twice:
            @pl.function
            def main(self, a: {_A}, b: {_B}, out: pl.Out[{_C}]) -> {_C}:
                with pl.at(level=pl.Level.CORE_GROUP):
                    acc = pl.create_tensor([64, 32], dtype=pl.FP32)
                    for k in pl.range(4):
                        if k == 0:
                            acc = pl.matmul(a[:, 0:64], b[0:64, :], out_dtype=pl.FP32)
                        else:
                            other = pl.matmul_acc(acc, a[:, 0:64], b[0:64, :])
                            acc = pl.matmul_acc(acc, a[:, k * 64 : k * 64 + 64], b[k * 64 : k * 64 + 64, :])
                    out[:] = acc
                return out
    """)
    lines = kernel_lines(passes.convert_tensor_to_tile_ops()(program))
    assert [line.split(" = ", 1)[1].split("(", 1)[0] for line in lines if "matmul" in line] == [
        "pl.tile.matmul", "pl.tile.matmul_acc", "pl.tile.matmul_acc"
    ]
