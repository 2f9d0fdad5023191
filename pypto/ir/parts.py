"""Rebuilding a node from parts that were validated when they were built, without validating again."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

from .expr import Call, IterArg, Submit, Var, _var_ids, call_attrs_model
from .memref import MemRef
from .node import _FIELDS_SETS, ModelBase, replace
from .stmt import (
    AssignStmt,
    ClusterScopeStmt,
    CommDomainScopeStmt,
    EvalStmt,
    ForStmt,
    HierarchyScopeStmt,
    IfStmt,
    InCoreScopeStmt,
    RuntimeScopeStmt,
    SpmdScopeStmt,
    SplitAivScopeStmt,
    WhileStmt,
)
from .types import TileType

_set_fields_set = BaseModel.__dict__["__pydantic_fields_set__"].__set__
_set_extra = BaseModel.__dict__["__pydantic_extra__"].__set__
_set_private = BaseModel.__dict__["__pydantic_private__"].__set__
_set_dict = BaseModel.__dict__["__dict__"].__set__  # the descriptor itself: no attribute lookup by name
_new = object.__new__

# The node classes (exactly) and fields whose constructors only validate those fields: a copy with
# other values of the same classes needs nothing computed. (Call's kwargs and attrs are checked by
# its constructor, a Var's unique id is drawn anew below; a MemRef's type is always MemRefType; a
# tile type's memory space and view normalisation do not depend on its MemRef once it has a space;
# a loop, a branch or a scope derives nothing from its bodies, most often the only part a pass changes.)
_BODY = frozenset({"body", "span"})
_FIELDS: dict[type, frozenset[str]] = {
    Var: frozenset({"name_hint", "type", "span"}),
    IterArg: frozenset({"name_hint", "type", "initValue", "span"}),
    MemRef: frozenset({"name_hint", "base_", "byte_offset_", "size_", "span"}),
    Call: frozenset({"args", "type", "span"}),
    AssignStmt: frozenset({"var", "value", "span"}),
    EvalStmt: frozenset({"expr", "span"}),
    TileType: frozenset({"memref"}),
    IfStmt: frozenset({"then_body", "else_body", "span"}),
    **dict.fromkeys((ForStmt, WhileStmt, InCoreScopeStmt, ClusterScopeStmt, HierarchyScopeStmt, SpmdScopeStmt,
                     RuntimeScopeStmt, SplitAivScopeStmt, CommDomainScopeStmt), _BODY),
}


def replace_parts(node: ModelBase, **changes: Any) -> Any:
    """:func:`~pypto.ir.node.replace` for a pass rebuilding ``node`` from validated parts.

    When ``node`` is a variable, an iter_arg, a MemRef, a call, an assignment, an evaluation, a tile
    type with a memory space, a loop, an if or a scope, and each change is to one of its plain fields
    (above) with a value of the class it replaces (a variable for a variable, a tile type for a tile
    type, a list for a list, a block for a block; a MemRef for a tile type's MemRef or its absence),
    the copy is made without pydantic's validation (most of a small node's construction cost);
    anything else goes through ``replace``. List elements are not looked at: a malformed program is
    still refused by the dialect check at the next pass boundary (tests/ir/test_replace_parts.py). A
    variable's copy is a new variable.
    """
    cls = type(node)
    plain = _FIELDS.get(cls)
    if plain is None:
        return replace(node, **changes)
    data = node.__dict__
    filled = False
    for name, value in changes.items():
        if name not in plain:
            return replace(node, **changes)
        if type(value) is not type(data[name]):
            if not _fills(cls, data, name, value):
                return replace(node, **changes)
            filled = True
    given = node.__pydantic_fields_set__
    if filled:  # a field that was unset is now given
        given = given | changes.keys()
        given = _FIELDS_SETS.setdefault(frozenset(given), given)
    return _made(cls, {**data, **changes}, given)


def copy_parts(node: ModelBase, changes: dict[str, Any]) -> Any:
    """``node`` with ``changes``, unchecked: for a pass's hot path that makes many copies of one node
    it built with the validated constructor, each change a value of the class the field already
    holds (what :func:`replace_parts` checks) and every field it changes already given. A
    variable's copy is a new variable."""
    return _made(type(node), {**node.__dict__, **changes}, node.__pydantic_fields_set__)


def with_attrs(node: Call | Submit | ForStmt, values: Mapping[str, Any]) -> Call | Submit | ForStmt:
    """``node`` with attrs ``values``, validated alone by the model its constructor validates them with
    (a call's depends on its op; a submit's and a loop's is the class of their attrs): nothing else a
    call, a submit or a loop holds depends on its attrs, so the constructor would only validate the
    other fields again."""
    model = call_attrs_model(node.op) if type(node) is Call else type(node.attrs)
    attrs = model.for_node(type(node).__name__, values)
    given = node.__pydantic_fields_set__
    if "attrs" not in given:  # a node made without attrs now has them
        given = given | {"attrs"}
        given = _FIELDS_SETS.setdefault(frozenset(given), given)
    return _made(type(node), {**node.__dict__, "attrs": attrs}, given)


def _made(cls: type, fields: dict[str, Any], given: set[str]) -> Any:
    """A node of ``cls`` holding ``fields`` (a variable gets a new unique id)."""
    if "unique_id" in fields:
        fields["unique_id"] = next(_var_ids)
    new = _new(cls)
    _set_dict(new, fields)
    _set_fields_set(new, given)
    _set_extra(new, None)
    _set_private(new, None)
    return new


def _fills(cls: type, data: dict[str, Any], name: str, value: Any) -> bool:
    """A MemRef given to a tile type that has none but has its memory space (the constructor would
    derive the space from the MemRef only when the type has none)."""
    return (cls is TileType and name == "memref" and data["memref"] is None and type(value) is MemRef
            and data["memory_space_"] is not None)
