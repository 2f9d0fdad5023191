"""The registry core: lookup, create_op_call validation, kwargs storage, spans, memory specs."""

from __future__ import annotations

import pytest
from ops_helpers import printed, scalar, tensor, tile

import pypto.language as pl
from pypto import ir
from pypto.ir import op_registry
from pypto.ir.errors import PyptoError
from pypto.ir.op_registry import Effect, OpTypeError, OpValueError


def test_get_op_returns_shared_singleton():
    assert ir.get_op("tensor.add") is ir.get_op("tensor.add")
    assert ir.get_op("tensor.add").name == "tensor.add"
    assert ir.is_op_registered("tile.load")
    assert not ir.is_op_registered("tile.nope")


def test_unknown_op_is_a_value_error():
    with pytest.raises(ValueError, match=r"^Operator 'x' not found in registry$"):
        ir.create_op_call("x", [], ir.Span.unknown())
    with pytest.raises(ValueError, match="Operator 'x' not found in registry"):
        ir.get_op("x")


def test_create_op_call_overloads_deduce_the_type():
    a, b = tensor("a", [4, 8]), tensor("b", [8])
    span = ir.Span("f.py", 3, 1)
    c1 = ir.create_op_call("tensor.add", [a, b], span)
    c2 = ir.create_op_call("tensor.add", [a, b], {}, span)
    for c in (c1, c2):
        assert c.op is ir.get_op("tensor.add")
        assert printed(c) == "pl.Tensor[[4, 8], pl.FP32]"
        assert c.span == span
        assert c.kwargs == {}


def test_unknown_kwarg():
    with pytest.raises(ValueError, match=r"^Unknown kwarg 'k' for operator 'tensor.add'$"):
        ir.create_op_call("tensor.add", [tensor("a", [4]), tensor("b", [4])], {"k": 1}, ir.Span.unknown())


def test_kwarg_of_wrong_python_type_is_a_type_error():
    t = tile("t", [16, 16])
    with pytest.raises(TypeError, match=r"Operator 'tile.cast': kwarg 'target_type' expects a DataType, got str"):
        ir.create_op_call("tile.cast", [t], {"target_type": "fp16"}, ir.Span.unknown())
    with pytest.raises(TypeError, match=r"kwarg 'mode' expects str or int, got list"):
        ir.create_op_call("tile.cast", [t], {"target_type": ir.FP16, "mode": []}, ir.Span.unknown())


def test_bad_enum_name_is_a_value_error():
    t = tile("t", [16, 16])
    with pytest.raises(ValueError, match=r"Operator 'tile.cast': kwarg 'mode' must be one of none, rint, round"):
        ir.create_op_call("tile.cast", [t], {"target_type": ir.FP16, "mode": "fast"}, ir.Span.unknown())
    with pytest.raises(ValueError, match=r"kwarg 'target_memory' must be a MemorySpace name"):
        ir.create_op_call("tile.move", [t], {"target_memory": "L0"}, ir.Span.unknown())


def test_cast_mode_stored_as_int_and_defaulted_for_tensors_only():
    t = tile("t", [16, 16])
    c = ir.create_op_call("tile.cast", [t], {"target_type": ir.FP16, "mode": "floor"}, ir.Span.unknown())
    assert c.kwargs == {"target_type": ir.FP16, "mode": 3}
    with pytest.raises(TypeError, match=r"^Operator 'tile.cast': missing required kwarg 'mode'$"):
        ir.create_op_call("tile.cast", [t], {"target_type": ir.FP16}, ir.Span.unknown())
    d = ir.create_op_call("tensor.cast", [tensor("x", [16, 16])], {"target_type": ir.FP16}, ir.Span.unknown())
    assert d.kwargs == {"target_type": ir.FP16, "mode": 2}
    assert str(d) == "pl.tensor.cast(x, target_type=pl.FP16, mode='round')"


def test_datatype_kwarg_accepts_raw_code():
    c = ir.create_op_call("tensor.create", [ir.MakeTuple([ir.ConstInt(4, ir.INDEX)])], {"dtype": 0x34},
                          ir.Span.unknown())
    assert c.kwargs["dtype"] == ir.FP32
    assert list(c.kwargs) == ["dtype", "layout"]


def test_optional_kwargs_are_stored_only_when_set():
    a = tensor("a", [64, 64])
    plain = ir.op.tile.load(a, [0, 0], [64, 64], clamp=False)
    assert plain.kwargs == {"target_memory": ir.Mem.Vec}
    clamped = ir.op.tile.load(a, [0, 0], [64, 64], clamp=True)
    assert clamped.kwargs == {"target_memory": ir.Mem.Vec, "clamp": True}


def test_missing_required_kwarg():
    with pytest.raises(TypeError, match=r"Operator 'tile.cast': missing required kwarg 'target_type'"):
        ir.create_op_call("tile.cast", [tile("t", [16, 16])], ir.Span.unknown())


def test_arity_is_checked():
    with pytest.raises(TypeError, match=r"Operator 'tensor.add' takes 2 positional arguments \(lhs, rhs\), got 1"):
        ir.create_op_call("tensor.add", [tensor("a", [4])], ir.Span.unknown())
    with pytest.raises(TypeError, match=r"takes 3 to 4 positional arguments"):
        ir.create_op_call("tile.store", [tile("t", [4, 4])], ir.Span.unknown())


def test_operand_kind_is_checked():
    with pytest.raises(TypeError, match=r"Operator 'tile.add': argument 'rhs' must be a Tile, got Tensor\[\[4\], fp32\]"):
        ir.create_op_call("tile.add", [tile("t", [4, 4]), tensor("a", [4])], ir.Span.unknown())
    with pytest.raises(TypeError, match=r"argument 'lhs' must be a Tensor, got Python int"):
        ir.create_op_call("tensor.add", [1, tensor("a", [4])], ir.Span.unknown())


def test_errors_are_pypto_errors_carrying_op_and_span():
    span = ir.Span("k.py", 7, 5)
    with pytest.raises(OpValueError) as info:
        ir.op.tensor.add(tensor("a", [4, 8]), tensor("b", [5]), span=span)
    assert isinstance(info.value, PyptoError)
    assert info.value.op == "tensor.add"
    assert info.value.span == span
    assert str(info.value) == "Operator 'tensor.add': requires compatible shapes, but got [4, 8] and [5]"


def test_builder_captures_the_caller_span():
    c = ir.op.tensor.exp(tensor("a", [4]))
    assert c.span.filename == __file__
    assert c.span.begin_line > 0 and c.span.begin_column == -1


def test_builder_rejects_bad_python_arguments():
    with pytest.raises(OpTypeError, match=r"Operator 'tensor.exp': got an unexpected keyword argument 'k'"):
        ir.op.tensor.exp(tensor("a", [4]), k=1)


def test_set_call_attrs_copies():
    c = ir.op.tensor.exp(tensor("a", [4]))
    d = ir.set_call_attrs(c, {"arg_directions": [ir.ArgDirection.Input]})
    assert d is not c
    assert d.attrs == {"arg_directions": [ir.ArgDirection.Input]}
    assert d.op is c.op and d.args == c.args and d.type == c.type and c.attrs == {}


def test_deduce_call_return_type():
    a = tensor("a", [4, 8])
    c = ir.op.tensor.exp(a)
    assert ir.deduce_call_return_type(c) == c.type
    assert ir.deduce_call_return_type("tensor.exp", [a]) == c.type
    assert ir.deduce_call_return_type(ir.get_op("tensor.exp"), [a], {}) == c.type


def test_get_op_memory_spec():
    spec = ir.get_op_memory_spec("tile.matmul")
    assert spec == {"input_constraints": [[ir.Mem.Left], [ir.Mem.Right]], "output_memory": ir.Mem.Acc}
    assert ir.get_op_memory_spec("tile.slice")["output_memory"] == "inherit_from_input"
    assert ir.get_op_memory_spec("tile.load")["output_memory"] == "deferred"
    assert ir.get_op_memory_spec("tile.add") == {"input_constraints": [[ir.Mem.Vec], [ir.Mem.Vec]],
                                                  "output_memory": ir.Mem.Vec}
    assert ir.get_op_memory_spec("tensor.add") is None



def test_each_entry_derives_its_parameter_effects_and_spaces_from_its_declaration():
    # What passes read of every call (made once per entry) says what the parameters and memory spec say.
    for entry in op_registry.all_entries():
        assert entry.param_effects == tuple(entry.effects().values()), entry.name
        spec = ir.get_op_memory_spec(entry.name)
        constraints = spec["input_constraints"] if spec is not None else []
        assert list(entry.input_spaces) == [p.name for p in entry.params], entry.name
        assert [entry.input_spaces[p.name] for p in entry.params][:len(constraints)] == constraints, entry.name
        assert not any(list(entry.input_spaces.values())[len(constraints):]), entry.name
    assert op_registry.get_entry("tile.matmul").input_spaces == {"lhs": [ir.Mem.Left], "rhs": [ir.Mem.Right]}

def test_op_attr_keys_come_from_the_schema():
    op = ir.get_op("tile.load")
    assert op.get_attr_keys() == ["target_memory", "clamp", "flatten"]
    assert op.has_attr("clamp") and not op.has_attr("mode")


def test_entries_declare_effects_and_placement():
    store = op_registry.lookup("tile.store")
    assert store.effects() == {"tile": Effect.READ, "offsets": Effect.READ, "output_tensor": Effect.WRITE,
                               "shapes": Effect.READ}
    assert store.written_params() == ["output_tensor"]
    assert not hasattr(store, "mnemonic")  # spellings live in the per-target op tables of pypto.codegen
    assert op_registry.lookup("tensor.assemble").written_params() == ["target"]
    assert op_registry.lookup("tile.tpush_to_aiv").side_effect
    assert op_registry.lookup("tile.matmul").allowed_in(ir.FunctionType.AIC)
    assert not op_registry.lookup("tile.matmul").allowed_in(ir.FunctionType.AIV)
    assert not op_registry.lookup("tile.add").allowed_in(ir.FunctionType.Orchestration)
    assert op_registry.lookup("tensor.add").allowed_in(ir.FunctionType.Orchestration)
    assert op_registry.lookup("tensor.add").allowed_in(ir.FunctionType.Opaque)


def test_duplicate_registration_is_an_error():
    entry = op_registry.lookup("tensor.add")
    with pytest.raises(ValueError, match="Operator 'tensor.add' is already registered"):
        op_registry.register(entry)


def test_bind_fills_optional_parameters_in_order_and_by_kind():
    entry = op_registry.lookup("tile.mrgsort_format2")
    t = tile("t", [1, 64])
    assert [p.name for p in entry.bind([t] * 3)] == ["src0", "src1", "tmp"]
    assert [p.name for p in entry.bind([t] * 5)] == ["src0", "src1", "src2", "src3", "tmp"]
    mgather = op_registry.lookup("tile.mgather")
    shape = ir.MakeTuple([ir.ConstInt(16, ir.INDEX), ir.ConstInt(64, ir.INDEX)])
    assert [p.name for p in mgather.bind([tensor("m", [64, 64]), t, shape])] == ["mem", "idx", "valid_shape"]
    assert [p.name for p in mgather.bind([tensor("m", [64, 64]), t, t, shape])] == ["mem", "idx", "scratch",
                                                                                     "valid_shape"]


def test_scalar_operand_dtype():
    x = scalar("x", ir.FP16)
    c = ir.op.tensor.adds(tensor("a", [4], ir.FP32), x)
    assert c.args[1] is x
    assert printed(c) == "pl.Tensor[[4], pl.FP32]"


def test_create_op_call_fills_load_valid_shape_from_shapes():
    t = ir.Var("t", ir.TensorType([64, 64], ir.FP32))
    offsets = ir.MakeTuple([ir.ConstInt(0, ir.INDEX), ir.ConstInt(0, ir.INDEX)])
    shapes = ir.MakeTuple([ir.ConstInt(64, ir.INDEX), ir.ConstInt(64, ir.INDEX)])
    call = ir.create_op_call("tile.load", [t, offsets, shapes], {}, ir.Span.unknown())
    assert len(call.args) == 4 and call.args[3] is shapes
    assert str(call.type) == "pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec]"


def test_builder_with_a_missing_required_value_names_it() -> None:
    with pytest.raises(TypeError, match=r"^Operator 'tensor.abs': argument 'input' is required$"):
        ir.op.tensor.abs(None)


def test_mrgsort_dispatcher_is_named_in_python_errors() -> None:
    with pytest.raises(TypeError, match=r"^mrgsort\(\) got an unexpected keyword argument 'bogus'$"):
        pl.tile.mrgsort(None, bogus=1)


def test_like_tile_shares_its_source_type_only_when_the_result_equals_it() -> None:
    from pypto.ir import structural_equal
    from pypto.ir.ops.common import like_tile

    vec = ir.TileType([16, 32], ir.FP32, None, None, ir.MemorySpace.Vec)
    assert like_tile(vec, space=ir.MemorySpace.Vec) is vec
    narrowed = like_tile(vec, valid=[ir.ConstInt(8, ir.INDEX), vec.shape[1]], space=ir.MemorySpace.Vec)
    assert narrowed is not vec and narrowed.get_effective_tile_view().valid_shape[0].value == 8
    cast = like_tile(vec, dtype=ir.FP16, space=ir.MemorySpace.Vec)
    assert cast.dtype is ir.FP16 and vec.dtype is ir.FP32
    assert structural_equal(like_tile(vec, space=None), ir.TileType([16, 32], ir.FP32))
