"""Assigning or deleting a field of an IR node or type raises AttributeError (a pypto error naming
``ir.replace``), and the node is unchanged."""

from __future__ import annotations

import pytest

from pypto import ir
from pypto.ir.errors import ImmutableNodeError, PyptoError

INT = ir.ScalarType(ir.DataType.INT32)


def _nodes() -> list[tuple[object, str, object]]:
    var = ir.Var("a", INT)
    const = ir.ConstInt(1, ir.DataType.INT32)
    return [
        (var, "name_hint", "b"),
        (const, "value", 2),
        (ir.Add(var, const, ir.DataType.INT32), "left", const),
        (ir.AssignStmt(ir.Var("v", INT), const), "value", var),
        (ir.TensorType([4, 4], ir.DataType.FP32), "shape", []),
        (ir.TileType([16, 16], ir.DataType.FP32, None, None, ir.MemorySpace.Vec), "dtype", ir.DataType.FP16),
    ]


@pytest.mark.parametrize(("node", "field", "value"), _nodes(), ids=lambda x: type(x).__name__)
def test_assigning_a_field_is_an_attribute_error_naming_replace(node: object, field: str, value: object) -> None:
    before = getattr(node, field)
    with pytest.raises(AttributeError) as info:
        setattr(node, field, value)
    err = info.value
    assert isinstance(err, ImmutableNodeError) and isinstance(err, PyptoError)
    assert str(err) == (
        f"cannot assign {type(node).__name__}.{field}: IR nodes are immutable; "
        f"build a changed copy with ir.replace(node, {field}=...)"
    )
    assert getattr(node, field) is before


def test_deleting_a_field_is_an_attribute_error() -> None:
    var = ir.Var("a", INT)
    with pytest.raises(AttributeError, match=r"cannot delete Var\.name_hint: IR nodes are immutable"):
        del var.name_hint
    assert var.name_hint == "a"


def test_replace_builds_the_changed_copy() -> None:
    const = ir.ConstInt(1, ir.DataType.INT32)
    changed = ir.replace(const, value=2)
    assert (const.value, changed.value) == (1, 2)
