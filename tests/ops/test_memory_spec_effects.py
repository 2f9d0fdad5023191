"""Issue 33 item 8: what ``ir.get_op_memory_spec`` and ``ir.get_op_arg_effect`` report."""

from __future__ import annotations

import pytest

from pypto import ir
from pypto.ir import op_registry

Vec, Acc, Left, Right, Bias = ir.Mem.Vec, ir.Mem.Acc, ir.Mem.Left, ir.Mem.Right, ir.Mem.Bias


@pytest.mark.parametrize(("op", "constraints"), [
    ("tile.adds", [[Vec]]),  # the scalar operand is not listed
    ("tile.store", [[Vec, Acc]]),  # nor the offsets and the tensor
    ("tile.load", []),
    ("tile.slice", []),
    ("tile.matmul_bias", [[Left], [Right], [Bias]]),
    ("tile.addsc", [[Vec], [], [Vec]]),  # an unconstrained operand between two constrained ones
])
def test_memory_spec_lists_only_constrained_arguments(op: str, constraints: list) -> None:
    assert ir.get_op_memory_spec(op)["input_constraints"] == constraints


@pytest.mark.parametrize(("op", "output"), [
    ("tile.load", "deferred"),
    ("tile.create", "deferred"),
    ("tile.move", Vec),
    ("tile.fillpad", Vec),
    ("tile.fillpad_expand", Vec),
    ("tile.slice", "inherit_from_input"),
    ("tile.matmul", Acc),
    ("tile.store", None),
])
def test_memory_spec_output(op: str, output: object) -> None:
    assert ir.get_op_memory_spec(op)["output_memory"] == output


def test_no_constraint_list_ends_in_an_unconstrained_argument() -> None:
    for entry in op_registry.all_entries():
        spec = ir.get_op_memory_spec(entry.name)
        if spec is not None and spec["input_constraints"]:
            assert spec["input_constraints"][-1], entry.name


def test_target_memory_places_a_move_and_a_deferred_load() -> None:
    x = ir.Var("x", ir.TensorType([16, 16], ir.FP16))
    t = ir.Var("t", ir.TileType([16, 16], ir.FP16, memory_space=Vec))
    assert ir.op.tile.move(t, target_memory=ir.Mem.Mat).type.memory_space is ir.Mem.Mat
    load = ir.op.tile.load(x, [0, 0], [16, 16], target_memory=ir.Mem.Mat)
    assert load.type.memory_space is ir.Mem.Mat


@pytest.mark.parametrize(("op", "arg"), [
    ("tile.scatter", "dst"),
    ("tile.write", "tile"),
    ("tile.assemble", "target"),
    ("array.update_element", "array"),
    ("tile.matmul_acc", "acc"),
])
def test_in_place_ops_read_and_write_their_argument(op: str, arg: str) -> None:
    assert ir.get_op_arg_effect(op, arg) is ir.ArgEffect.ReadWrite
    assert ir.get_op_arg_effect(op, 0) is ir.ArgEffect.ReadWrite


@pytest.mark.parametrize(("op", "arg"), [("tile.store", "output_tensor"), ("tensor.assemble", "target")])
def test_whole_window_writes_are_writes(op: str, arg: str) -> None:
    assert ir.get_op_arg_effect(op, arg) is ir.ArgEffect.Write
