"""Rebuilding a node from parts that were validated when they were built, without validating again."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from .expr import Call, IterArg, Var, _var_ids
from .node import ModelBase, replace
from .stmt import AssignStmt, EvalStmt

_set_fields_set = BaseModel.__dict__["__pydantic_fields_set__"].__set__
_set_extra = BaseModel.__dict__["__pydantic_extra__"].__set__
_set_private = BaseModel.__dict__["__pydantic_private__"].__set__
_new = object.__new__
_set_dict = object.__setattr__

# The node classes (exactly) and fields whose constructors only validate those fields: a copy with
# other values of the same classes needs nothing computed. (Call's kwargs and attrs are checked by
# its constructor, a Var's unique id is drawn anew below.)
_FIELDS: dict[type, frozenset[str]] = {
    Var: frozenset({"name_hint", "type", "span"}),
    IterArg: frozenset({"name_hint", "type", "initValue", "span"}),
    Call: frozenset({"args", "type", "span"}),
    AssignStmt: frozenset({"var", "value", "span"}),
    EvalStmt: frozenset({"expr", "span"}),
}


def replace_parts(node: ModelBase, **changes: Any) -> Any:
    """:func:`~pypto.ir.node.replace` for a pass rebuilding ``node`` from validated parts.

    When ``node`` is a variable, an iter_arg, a call, an assignment or an evaluation and each change
    is to one of its plain fields (above) with a value of the class it replaces (a variable for a
    variable, a tile type for a tile type, a list for a list), the copy is made without pydantic's
    validation (most of a small node's construction cost); anything else goes through ``replace``.
    List elements are not looked at: a malformed program is still refused by the dialect check at
    the next pass boundary (tests/ir/test_replace_parts.py). A variable's copy is a new variable.
    """
    cls = type(node)
    plain = _FIELDS.get(cls)
    data = node.__dict__
    if plain is None:
        return replace(node, **changes)
    for name, value in changes.items():
        if name not in plain or type(value) is not type(data[name]):
            return replace(node, **changes)
    fields = data.copy()
    fields.update(changes)
    if "unique_id" in fields:
        fields["unique_id"] = next(_var_ids)
    new = _new(cls)
    _set_dict(new, "__dict__", fields)
    _set_fields_set(new, node.__pydantic_fields_set__)
    _set_extra(new, None)
    _set_private(new, None)
    return new
