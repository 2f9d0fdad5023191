"""Per-node memory of the pydantic node base: shared field-name sets, no private-attribute dict."""

from __future__ import annotations

from pydantic import BaseModel

from pypto import ir
from pypto.ir.node import ModelBase

I64 = ir.ScalarType(ir.INT64)


def _node_classes() -> list[type]:
    found, todo = [], [ModelBase]
    while todo:
        cls = todo.pop()
        found.append(cls)
        todo.extend(cls.__subclasses__())
    return found


def test_nodes_given_the_same_fields_share_one_fields_set() -> None:
    a, b = ir.Var("a", I64), ir.Var("b", I64)
    assert a.model_fields_set is b.model_fields_set
    assert a.model_fields_set == {"name_hint", "type", "unique_id"}
    c = ir.Var("c", I64, ir.Span("k.py", 1, 1))
    assert c.model_fields_set == {"name_hint", "type", "unique_id", "span"}
    assert c.model_fields_set is not a.model_fields_set
    assert set(c.model_dump(exclude_unset=True)) == {"name_hint", "type", "unique_id", "span"}


def test_no_node_class_keeps_a_private_attribute_dict() -> None:
    hooked = [c.__name__ for c in _node_classes() if c.model_post_init is not BaseModel.model_post_init]
    assert hooked == []
    assert ir.ConstInt(3, ir.INT32).__pydantic_private__ is None
    assert ir.Var._positional == ("name_hint", "type", "span")
    assert ir.Var._derived == ("unique_id",)
    assert ir.ConstInt._derived == ("type",)
